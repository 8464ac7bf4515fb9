import AuthCore
import CCurl
import Foundation

/// Sends requests with libcurl's easy interface, blocking the caller until the answer or the timeout. libcurl is
/// opened with dlopen on the first request (`CurlLibrary`): when it is missing, that request fails with one line
/// saying so. Redirects are not followed: an OAuth endpoint that redirects is misconfigured, and following could
/// leak credentials to another host; the 3xx comes back as the answer. Only https goes out, plain http only to a
/// loopback host (`URLPolicy`), with libcurl's certificate and host verification. An answer over `maximumBody` is
/// cut off while it arrives (and at once when its Content-Length says so), never buffered. No cookies are kept
/// and nothing is cached: each request is a fresh handle. Errors are one line naming the host, never the query.
public final class CurlTransport: HTTPTransport, Sendable {
    /// Seconds a whole exchange may take, connection included.
    public let timeout: TimeInterval
    /// The certificate authorities HTTPS trusts: each command derives them from its configuration and environment
    /// (`CATrust.from`); the default is libcurl's own bundle.
    public let trust: CATrust
    /// Answers larger than this are refused; no provider answer comes near it.
    public static let maximumBody = 1 << 20
    static let userAgent = "authdeck/0.1"

    public init(timeout: TimeInterval = 15, trust: CATrust = CATrust()) {
        self.timeout = timeout
        self.trust = trust
    }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        try URLPolicy.requireSecure(request.url)
        guard let url = URL(string: request.url), let host = url.host, !host.isEmpty else {
            throw .unavailable(reason: "'\(Self.redacted(request.url))' is not an http(s) URL")
        }
        let library = try CurlLibrary.shared.get()
        let transfer = try CurlTransfer(library, limit: Self.maximumBody)
        try transfer.configure(
            request, timeout: timeout, userAgent: Self.userAgent, trust: trust)
        let started = Date()
        let code = transfer.perform()
        if transfer.tooLarge {
            throw .network(message: "\(host) sent more than 1 MiB")
        }
        switch code {
        case CURLE_OK:
            break
        case CURLE_OPERATION_TIMEDOUT:
            throw .network(message: "no answer from \(host) within \(Int(timeout)) s")
        case CURLE_PEER_FAILED_VERIFICATION:
            // The one fix is on this side: which CA the server's certificate is checked against.
            throw .network(
                message: "\(host): \(transfer.failure(code, hiding: url.query)); trust its certificate authority "
                    + "with caFile for this provider in config.json, or SSL_CERT_FILE")
        default:
            throw .network(message: "\(host): \(transfer.failure(code, hiding: url.query))")
        }
        let status = transfer.status
        guard status > 0 else { throw .network(message: "\(host) sent no HTTP answer") }
        return IncomingResponse(
            status: status, headers: transfer.headers, body: transfer.body,
            duration: Date().timeIntervalSince(started))
    }

    /// A URL for messages: scheme, host and path only, so query parameters (codes, tokens) never leak.
    public static func redactedForDisplay(_ text: String) -> String { redacted(text) }

    static func redacted(_ text: String) -> String {
        guard let components = URLComponents(string: text), let host = components.host else { return "(invalid URL)" }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "?")://\(host)\(port)\(components.path)"
    }
}
