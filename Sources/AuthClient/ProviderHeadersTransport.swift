import AuthCore

/// The transport of a provider whose config.json names `requestHeaders`: each request gets them after its own, so a
/// provider that demands an `Origin` of public clients (or a vendor header) sees it on discovery, PAR, the token
/// request and UserInfo alike. The names were checked when the configuration was read (`AuthorizationOptions`).
public struct ProviderHeadersTransport: HTTPTransport {
    let inner: HTTPTransport
    let headers: [(String, String)]

    public init(inner: HTTPTransport, headers: [(String, String)]) {
        self.inner = inner
        self.headers = headers
    }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        var request = request
        request.headers += headers
        return try inner.send(request)
    }
}
