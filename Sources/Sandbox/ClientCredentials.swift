import AuthCore
import AuthCrypto
import LoopbackHTTP

/// A client's id and secret from `Authorization: Basic` (RFC 6749 2.3.1: each part form-encoded, then base64).
struct ClientCredentials {
    let clientID: String
    let secret: String

    /// Nil without a Basic header, or when it does not decode to `id:secret`.
    static func basic(_ request: HTTPRequest) -> ClientCredentials? {
        guard let value = request.headers["authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Base64URL.decode(String(parts[1])),
            let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":"),
            let id = FormEncoding.unescape(text[..<colon]),
            let secret = FormEncoding.unescape(text[text.index(after: colon)...])
        else { return nil }
        return ClientCredentials(clientID: id, secret: secret)
    }

    /// Whether the request carries a Basic header at all (a broken one is an authentication failure).
    static func hasBasic(_ request: HTTPRequest) -> Bool {
        request.headers["authorization"]?.lowercased().hasPrefix("basic ") ?? false
    }
}
