import AuthCore
import Foundation

/// An HTTP request authdeck sends to a provider, proxy or the sandbox.
public struct OutgoingRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// The certificate presented in the TLS handshake (mutual TLS, RFC 8705); nil presents none.
    public var clientCertificate: ClientCertificate?

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A form POST (`application/x-www-form-urlencoded`), as token endpoints take.
    public static func form(_ url: String, _ pairs: [(String, String)], headers: [(String, String)] = [])
        -> OutgoingRequest
    {
        OutgoingRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
                + headers,
            body: Array(FormEncoding.encode(pairs).utf8))
    }

    /// A JSON POST, as the auth proxies take.
    public static func json(_ url: String, _ body: [UInt8], headers: [(String, String)] = []) -> OutgoingRequest {
        OutgoingRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")] + headers,
            body: body)
    }
}

/// What came back.
public struct IncomingResponse: Sendable {
    public let status: Int
    /// Header names lower-cased.
    public let headers: [String: String]
    public let body: [UInt8]
    /// Wall time of the exchange, for traces.
    public let duration: TimeInterval

    public init(status: Int, headers: [String: String], body: [UInt8], duration: TimeInterval) {
        self.status = status
        self.headers = headers
        self.body = body
        self.duration = duration
    }

    /// The body as a JSON value; `network` error naming the status when it is not JSON (an HTML error page,
    /// a proxy's banner).
    public func json() throws(SignInError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            let type = headers["content-type"].map { " (\($0.split(separator: ";")[0]))" } ?? ""
            throw .network(message: "HTTP \(status): the answer is not JSON\(type)")
        }
    }
}

/// Something that sends requests: `CurlTransport` for the world; a recorder adds tracing around it.
public protocol HTTPTransport: Sendable {
    func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse
}
