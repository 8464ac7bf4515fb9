import AuthCore
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
        let line = try exchange(AgentMessage.request(requirement, origin: Self.hostName()))
        switch AgentMessage.parseAnswer(line) {
        case .success(let issued): return issued
        case .failure(let failure): throw failure
        }
    }

    /// A DPoP proof the agent makes with the session's key (which stays with the agent).
    func proof(_ requirement: TokenRequirement, _ request: ProofRequest) throws(CommandFailure) -> String {
        let line = try exchange(AgentMessage.request(requirement, request, origin: Self.hostName()))
        switch AgentMessage.parseProofAnswer(line) {
        case .success(let proof): return proof
        case .failure(let failure): throw failure
        }
    }

    /// Tells the agent a resource answered `key`'s token with a step-up challenge; the command that answers it.
    func reportStepUp(_ challenge: StepUpChallenge, key: String) throws(CommandFailure) -> String {
        let line = try exchange(AgentMessage.request(stepUp: challenge, key: key, origin: Self.hostName()))
        switch AgentMessage.parseStepUpAnswer(line) {
        case .success(let command): return command
        case .failure(let failure): throw failure
        }
    }

    /// Sends one request line and reads the answer line.
    private func exchange(_ request: [UInt8]) throws(CommandFailure) -> [UInt8] {
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
        socket.write(request)
        guard let line = socket.readLine() else {
            throw CommandFailure(.store, "the agent at \(path) closed the connection without an answer")
        }
        return line
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
