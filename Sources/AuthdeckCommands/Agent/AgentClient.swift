#if canImport(Glibc)
    import Glibc
#endif

/// Asks `authdeck agent` for a token over the socket `AUTHDECK_AGENT_SOCK` names (possibly forwarded by `ssh -R`);
/// no store is opened on this machine.
struct AgentClient {
    let path: String

    /// Long enough for an operator to answer a `--confirm` prompt at the agent.
    static let answerTimeoutSeconds = 120

    func token(_ requirement: TokenRequirement) throws(CommandFailure) -> IssuedToken {
        let socket: UnixSocket
        do throws(UnixSocket.Failure) {
            socket = try UnixSocket.connect(path, timeoutSeconds: Self.answerTimeoutSeconds)
        } catch {
            throw CommandFailure(
                .store,
                "no agent answers at \(path) (\(error.message)); start authdeck agent or "
                    + "unset AUTHDECK_AGENT_SOCK")
        }
        defer { socket.close() }
        // Read even when the request could not be sent: a busy agent answers before it closes, unasked.
        socket.write(AgentMessage.request(requirement, origin: Self.hostName()))
        guard let line = socket.readLine() else {
            throw CommandFailure(.store, "the agent at \(path) closed the connection without an answer")
        }
        switch AgentMessage.parseAnswer(line) {
        case .success(let issued): return issued
        case .failure(let failure): throw failure
        }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
