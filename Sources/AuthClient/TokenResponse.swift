import AuthCore
import Foundation

/// A token endpoint's successful answer (RFC 6749 section 5.1).
public struct TokenResponse: Equatable, Sendable {
    public let accessToken: String
    public let tokenType: String?
    public let expiresIn: Int?
    public let refreshToken: String?
    public let idToken: String?
    public let scope: [String]?

    /// Reads a 2xx JSON answer; anything else is turned into the `SignInError` a user can act on.
    public static func parse(_ response: IncomingResponse, endpoint: String) throws(SignInError) -> TokenResponse {
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        let json = try response.json()
        guard let accessToken = json["access_token"]?.string, !accessToken.isEmpty else {
            throw .authenticationFailed(providerError: "the token endpoint answered without an access token")
        }
        return TokenResponse(
            accessToken: accessToken, tokenType: json["token_type"]?.string,
            expiresIn: json["expires_in"]?.integer, refreshToken: json["refresh_token"]?.string,
            idToken: json["id_token"]?.string,
            scope: json["scope"]?.string.map { $0.split(separator: " ").map(String.init) })
    }
}

/// Maps error answers of OAuth endpoints (RFC 6749 5.2, RFC 8628 3.5) to sign-in errors.
public enum OAuthErrorResponse {
    public static func error(from response: IncomingResponse, endpoint: String) -> SignInError {
        let place = CurlTransport.redacted(endpoint)
        if response.status == 429 { return .rateLimited }
        let json = try? JSONValue.parse(response.body)
        guard let code = json?["error"]?.string else {
            // Not an OAuth answer: what the server is, not what the network did, goes into the message; a
            // gateway's HTML page points at what sits in front of the provider.
            if response.status >= 500 {
                return .providerUnavailable(
                    status: response.status, "at \(place), with " + TurnkeyProxyError.bodyKind(response))
            }
            if response.status >= 400 {
                return .authenticationFailed(
                    providerError: "the provider refused: \(response.status) at \(place), "
                        + "without an OAuth error")
            }
            return .network(message: "HTTP \(response.status) from \(place)")
        }
        let description = json?["error_description"]?.string
        if response.status >= 500 {
            let words = description.map { ": " + printable($0) } ?? ""
            return .providerUnavailable(status: response.status, "at \(place): " + printable(code) + words)
        }
        return .providerAnswered(code, description: description, status: response.status)
    }

    /// Provider text goes into one-line messages only as printable characters, at most 200 of them.
    static func printable(_ text: String) -> String { SignInError.printable(text) }
}
