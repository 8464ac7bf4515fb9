import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Answers one agent connection at a time: checks the peer's user, the allow-list and (with `--confirm`) the
/// operator, then hands out the token through the same path as `authdeck token`, and logs the request.
struct AgentServer {
    let store: SessionStore
    let allowed: Set<String>
    let confirm: Bool
    let log: RequestLog

    /// Seconds a client has to send its request.
    static let requestTimeoutSeconds = 10

    func serve(_ connection: UnixSocket) {
        defer { connection.close() }
        connection.setTimeout(seconds: Self.requestTimeoutSeconds)
        guard let peer = connection.peer() else {
            log.record("refused a connection whose peer cannot be identified")
            return
        }
        let place = Self.place(of: peer.pid)
        guard peer.uid == getuid() else {
            log.record("refused uid \(peer.uid) (pid \(peer.pid)): not this agent's user")
            return
        }
        guard let line = connection.readLine() else {
            log.record("\(place) pid \(peer.pid): no request")
            return
        }
        let answer: [UInt8]
        switch AgentMessage.parseRequest(line) {
        case .failure(let failure):
            log.record("\(place) pid \(peer.pid): refused, \(failure.message)")
            answer = AgentMessage.answer(failure)
        case .success(let (requirement, origin)):
            answer = respond(requirement, who: "\(place) pid \(peer.pid) origin \(origin)")
        }
        connection.write(answer)
    }

    private func respond(_ requirement: TokenRequirement, who: String) -> [UInt8] {
        var requirement = requirement
        do throws(CommandFailure) {
            let key = try StoreCommands.attempt { () throws(StoreError) in try store.resolveKey(requirement.key) }
            requirement.key = key
            guard allowed.contains("*") || allowed.contains(key) else {
                log.record("session '\(key)' for \(who): refused, not on the allow-list")
                throw CommandFailure(.authenticationFailed, "session '\(key)' is not on this agent's allow-list")
            }
            if confirm && !Confirmation.ask("authdeck agent: allow \(who) the token of '\(key)'? [y/N] ") {
                log.record("session '\(key)' for \(who): refused at the prompt")
                throw CommandFailure(.authenticationFailed, "the agent's operator refused the request")
            }
            let issued = try TokenSource.issue(requirement, store: store)
            log.record("session '\(key)' for \(who): token handed out")
            return AgentMessage.answer(issued)
        } catch {
            if error.code != .authenticationFailed {
                log.record("session '\(requirement.key ?? "(default)")' for \(who): failed, \(error.message)")
            }
            return AgentMessage.answer(error)
        }
    }

    /// "remote" when the peer is an ssh client forwarding a socket from another machine, else "local".
    static func place(of pid: Int32) -> String {
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return "local" }
        return comm.trimmingCharacters(in: .whitespacesAndNewlines) == "ssh" ? "remote (via ssh)" : "local"
    }
}

/// The agent's request log: one line per request with time, session, peer and verdict; never a token.
struct RequestLog {
    let descriptor: Int32

    init(path: String?) throws(CommandFailure) {
        guard let path else {
            descriptor = STDERR_FILENO
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(.failed, "cannot open the log \(path): \(String(cString: strerror(errno)))")
        }
    }

    func record(_ event: String) {
        let line = Array((SessionJSON.iso8601(Date()) + " " + event + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
