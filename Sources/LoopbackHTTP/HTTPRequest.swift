import AuthCore
import Foundation

/// One HTTP request as the server hands it to a handler: the raw target (still escaped), headers with
/// lower-cased names, and the whole body.
public struct HTTPRequest: Sendable {
    public let method: String
    /// The request target as sent: path and query, still percent-encoded.
    public let target: String
    /// Header names lower-cased; a repeated header keeps its last value.
    public let headers: [String: String]
    public let body: [UInt8]
    /// The two ends of the connection (the peer's, and the local one it reached), set by `HTTPServer`; nil for a
    /// request made up in a test.
    public var peer: TCPEndpoint?
    public var local: TCPEndpoint?

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The path without the query.
    public var path: String {
        String(target.prefix { $0 != "?" && $0 != "#" })
    }

    /// The query string without `?`, still escaped; empty when there is none.
    public var query: Substring {
        guard let mark = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: mark)...].prefix { $0 != "#" }
    }

    /// Decoded query parameters, or nil when an escape is broken.
    public var queryParameters: [String: String]? {
        FormEncoding.decode(query).map { Dictionary($0, uniquingKeysWith: { _, last in last }) }
    }

    public var contentType: String {
        (headers["content-type"] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }?
            .lowercased() ?? ""
    }
}
