import AuthCore
import Foundation

/// Turns an Auth Proxy's refusal (`{"code", "message", "details"}` with a gRPC code and an HTTP status) into the
/// sign-in's error, keeping the proxy's own words where the error has room for them. (Portal's refusals are read by
/// status instead, as PortalSwift reads them: `PortalClient.refusal`.)
enum TurnkeyProxyError {
    /// - Parameter service: who answered, for the message ("the auth proxy", "Portal").
    /// - Parameter codeSent: the request carried a code the user typed, so UNAUTHENTICATED means that code was
    ///   wrong and the user may try again.
    static func error(
        from response: IncomingResponse, service: String = "the auth proxy", call: String,
        codeSent: Bool
    ) -> SignInError {
        let status = response.status
        guard let json = try? JSONValue.parse(response.body) else {
            return .network(message: "\(service) answered \(call) with HTTP \(status) and \(bodyKind(response))")
        }
        let message = (json["message"]?.string ?? json["error"]?.string).map(printable)
        switch status {
        case 401:
            return codeSent ? .invalidCode : .unauthorized
        case 429 where call.hasSuffix("otp_init") || call.hasSuffix("otp_init_v2"):
            // Refused before any code went out: too many codes sent, not too many attempts at one (same code).
            return .providerAnswered(
                "rate_limited",
                description: "too many codes sent to this contact; wait a few minutes before asking again")
        case 429:
            return .rateLimited
        case 500...:
            let detail = message.map { ": \($0)" } ?? ""
            return .network(message: "\(service) failed on \(call) (HTTP \(status))\(detail)")
        default:
            return .authenticationFailed(providerError: message ?? "\(service) refused \(call) (HTTP \(status))")
        }
    }

    /// What a non-JSON body looks like, for the message: HTML (a gateway's error page), empty, or other text.
    static func bodyKind(_ response: IncomingResponse) -> String {
        if response.body.isEmpty { return "an empty body" }
        let type = response.headers["content-type"]?.split(separator: ";").first.map(String.init) ?? ""
        let start = String(decoding: response.body.prefix(64), as: UTF8.self).lowercased()
        if type.contains("html") || start.contains("<html") || start.contains("<!doctype") {
            return "an HTML page, not JSON"
        }
        return type.isEmpty ? "a body that is not JSON" : "\(type), not JSON"
    }

    /// A server's message as one short printable line; anything shaped like a token is dropped, so a proxy that
    /// echoes a credential back cannot put it on the screen.
    static func printable(_ text: String) -> String {
        let line = TerminalText.sanitized(String(text.map { $0.isNewline ? " " : $0 }))
        let words = line.split(separator: " ").map { word -> String in
            let parts = word.split(separator: ".")
            if parts.count == 3 && word.count > 40 || word.count > 48 { return "[redacted]" }
            return String(word)
        }
        let joined = words.joined(separator: " ")
        let trimmed = joined.hasSuffix(".") ? String(joined.dropLast()) : joined
        return trimmed.count > 160 ? String(trimmed.prefix(157)) + "…" : trimmed
    }
}
