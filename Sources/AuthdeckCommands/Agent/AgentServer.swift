import AuthCore
import Foundation
import SessionStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Answers agent connections, each on a thread of its own while it is open (threads are kept for the next
/// connection, `ServingThreads`), so a slow or idle client holds up no other: checks the
/// peer's user, the allow-list and (with `--confirm`) the operator, then hands out the token through the same path
/// as `authdeck token`, and logs the request. The store serialises its own calls; the prompts are taken one at a time.
final class AgentServer: Sendable {
    let store: SessionStore
    let allowed: Set<String>
    let confirm: Bool
    let log: RequestLog
    /// The config.json the agent was started with (`--config`): a refresh finds an imported session's client there.
    let config: String?
    /// The agent's environment, read once: a refresh finds the CA bundle and the default configuration through it.
    /// Built per request, this dictionary was a fifth of the agent's CPU under load, for requests that never refresh.
    let variables: [String: String]
    /// Connections being served. Only the agent's own user is served (others are refused before they count), so
    /// this is the count for that one uid. An atomic, not a lock: every connection counts itself in and out.
    private let serving = Atomic(0)
    /// Held while the operator answers a `--confirm` prompt: one question on the terminal at a time.
    private let prompt = Mutex(())
    /// Step-up challenges clients reported, by session key, with the session's sign-in time then: its tokens are
    /// refused until a sign-in again (a later `createdAt`) replaces it.
    private let stepUps = Mutex([String: (challenge: StepUpChallenge, signedInAt: Date)]())
    /// How many sessions `stepUps` holds, set under its lock: a request reads this instead of taking the lock, which
    /// every request took before, and which 50 clients at once held up by turns (threads spinning for it while its
    /// holder waited for a core) for 7 % of the agent's CPU.
    private let stepUpCount = Atomic(0)

    /// Seconds a client has to send its whole request, however slowly the bytes come.
    static let requestTimeoutSeconds = 10
    /// Connections of the agent's user served at once; one more is answered that the agent is busy. Enough for
    /// many scripts at once, each holding a connection for one request.
    static let maximumConnections = 128
    private let threads = ServingThreads()

    init(store: SessionStore, allowed: Set<String>, confirm: Bool, log: RequestLog, config: String? = nil) {
        self.store = store
        self.config = config
        self.variables = ProcessEnvironment.current()
        self.allowed = allowed
        self.confirm = confirm
        self.log = log
    }

    /// Takes a just-accepted connection: refused here (on the accepting thread, without reading) when its peer is
    /// another user or the agent's user already has `maximumConnections` open, else served on a thread of its own.
    func accept(_ connection: UnixSocket) {
        connection.setTimeout(seconds: Self.requestTimeoutSeconds)
        guard let peer = connection.peer() else {
            log.record("refused a connection whose peer cannot be identified")
            connection.close()
            return
        }
        guard peer.uid == getuid() else {
            log.record("refused uid \(peer.uid) (pid \(peer.pid)): not this agent's user")
            connection.close()
            return
        }
        // Only this (the accepting) thread counts connections in, so the count read cannot grow before the add.
        let admitted = serving.load(ordering: .relaxed) < Self.maximumConnections
        if admitted { serving.add(1, ordering: .relaxed) }
        guard admitted else {
            log.record("pid \(peer.pid): refused, \(Self.maximumConnections) connections already open")
            connection.write(
                AgentMessage.answer(
                    CommandFailure(
                        .store,
                        "the agent is busy: \(Self.maximumConnections) connections of this user are open; "
                            + "try again")))
            connection.close()
            return
        }
        threads.run { [self] in
            serve(connection, pid: peer.pid)
            serving.subtract(1, ordering: .releasing)
        }
    }

    /// Whether every connection has been answered or cut off, waiting at most `seconds` for the last ones.
    func drain(seconds: Int) -> Bool {
        for _ in 0..<(seconds * 20) {
            if serving.load(ordering: .acquiring) == 0 { return true }
            usleep(50_000)
        }
        return serving.load(ordering: .acquiring) == 0
    }

    /// Answers the requests of one connection in turn: a client may send one and close (`authdeck token`), or keep
    /// the connection for many (a long-running client; through `ssh -R` that saves a channel per request). Each
    /// request must come whole within `requestTimeoutSeconds` of the connection or of the answer before it; a
    /// connection that sends nothing more in that time is closed.
    private func serve(_ connection: UnixSocket, pid: Int32) {
        defer { connection.close() }
        let place = Self.place(of: pid)
        var reader = UnixSocket.LineReader(connection)
        var answered = 0
        while true {
            let deadline = ContinuousClock.now + .seconds(Self.requestTimeoutSeconds)
            guard let line = reader.next(until: deadline) else {
                if answered == 0 {
                    log.record("\(place) pid \(pid): no request (none whole within \(Self.requestTimeoutSeconds) s)")
                }
                return
            }
            let answer: [UInt8]
            switch AgentMessage.parseRequest(line) {
            case .failure(let failure):
                log.record("\(place) pid \(pid): refused, \(failure.message)")
                answer = AgentMessage.answer(failure)
            case .success(let (requirement, origin, proof, stepUp)):
                answer = respond(
                    requirement, proof: proof, stepUp: stepUp, who: "\(place) pid \(pid) origin \(origin)")
            }
            guard connection.write(answer) else { return }
            answered += 1
        }
    }

    private func respond(
        _ requirement: TokenRequirement, proof: ProofRequest?, stepUp: StepUpChallenge?, who: String
    ) -> [UInt8] {
        var requirement = requirement
        do throws(CommandFailure) {
            let key = try StoreCommands.attempt { () throws(StoreError) in try store.resolveKey(requirement.key) }
            requirement.key = key
            guard allowed.contains("*") || allowed.contains(key) else {
                log.record("session '\(key)' for \(who): refused, not on the allow-list")
                throw CommandFailure(.authenticationFailed, "session '\(key)' is not on this agent's allow-list")
            }
            // The sign-in time matters only to a step-up report and to a session with one pending: most requests
            // skip that read.
            let pending = stepUpCount.load(ordering: .acquiring) == 0 ? nil : stepUps.withLock { $0[key] }
            if stepUp == nil && pending == nil { return try respond(requirement, key: key, proof: proof, who: who) }
            let signedInAt = try StoreCommands.attempt { () throws(StoreError) in try store.entry(key) }.record
                .createdAt
            if let stepUp {
                stepUps.withLock {
                    $0[key] = (stepUp, signedInAt)
                    stepUpCount.store($0.count, ordering: .releasing)
                }
                log.record("session '\(key)' for \(who): step-up asked (\(stepUp.summary))")
                return AgentMessage.answer(stepUp: stepUp.command(key: key), key: key)
            }
            if let pending {
                guard pending.signedInAt == signedInAt else {
                    stepUps.withLock {
                        $0.removeValue(forKey: key)
                        stepUpCount.store($0.count, ordering: .releasing)
                    }
                    return try respond(requirement, key: key, proof: proof, who: who)
                }
                log.record("session '\(key)' for \(who): refused, step-up needed")
                throw CommandFailure(
                    .authenticationFailed,
                    "step-up needed: a resource asked for \(pending.challenge.summary); run "
                        + pending.challenge.command(key: key))
            }
            return try respond(requirement, key: key, proof: proof, who: who)
        } catch {
            if error.code != .authenticationFailed {
                log.record("session '\(requirement.key ?? "(default)")' for \(who): failed, \(error.message)")
            }
            return AgentMessage.answer(error)
        }
    }

    /// The token or DPoP proof of session `key` (on the allow-list), after the operator's yes with `--confirm`.
    private func respond(
        _ requirement: TokenRequirement, key: String, proof: ProofRequest?, who: String
    ) throws(CommandFailure) -> [UInt8] {
        let what = proof == nil ? "the token" : "a DPoP proof"
        let question = "authdeck agent: allow \(who) \(what) of '\(key)'? [y/N] "
        if confirm && !prompt.withLock({ _ in Confirmation.ask(question) }) {
            log.record("session '\(key)' for \(who): refused at the prompt")
            throw CommandFailure(.authenticationFailed, "the agent's operator refused the request")
        }
        if let proof {
            let made = try DPoPProofCommand.make(
                proof, requirement, store: store, config: config, variables: variables)
            log.record("session '\(key)' for \(who): DPoP proof for \(proof.method) handed out")
            return AgentMessage.answer(proof: made, key: key)
        }
        let issued = try TokenSource.issue(requirement, store: store, config: config, variables: variables)
        log.record("session '\(key)' for \(who): token handed out")
        return AgentMessage.answer(issued)
    }

    /// "remote" when the peer is an ssh client forwarding a socket from another machine, else "local". Read with
    /// one `read` of `/proc/PID/comm` ("ssh\n" for an ssh client), as it is asked once per request.
    static func place(of pid: Int32) -> String {
        let descriptor = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "local" }
        defer { close(descriptor) }
        var comm = [UInt8](repeating: 0, count: 32)
        let count = comm.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 && Array(comm.prefix(count)) == Array("ssh\n".utf8) ? "remote (via ssh)" : "local"
    }
}
