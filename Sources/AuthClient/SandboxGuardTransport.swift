import AuthCore

/// The transport of a real backend: an answer that carries the sandbox's mark is an error, so a config pointing a
/// direct, turnkey or portal backend at `authdeck sandbox` (which approves anyone) never yields a session that
/// looks real. Backends meant for the sandbox say so with `usesSandbox`.
public struct SandboxGuardTransport: HTTPTransport {
    let inner: HTTPTransport
    let backend: String

    public init(inner: HTTPTransport, backend: String) {
        self.inner = inner
        self.backend = backend
    }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        let response = try inner.send(request)
        if response.headers[SandboxMark.header.lowercased()] != nil {
            throw .unavailable(
                reason: "\(URLPolicy.redacted(request.url)) is authdeck's sandbox, but backend "
                    + "'\(backend)' is not a sandbox backend (use --backend sandbox)")
        }
        return response
    }
}
