import AuthCore
import Foundation

/// How the client authenticates at the token endpoint.
public enum ClientAuthentication: Equatable, Sendable {
    /// A public client: only `client_id` in the body (PKCE protects the code).
    case none
    /// `client_secret` in the body (`client_secret_post`), as Apple, Discord and most providers accept.
    case secret(String)
}

/// The OAuth 2.0 calls of a direct sign-in: code exchange, refresh, revocation, device authorization.
public struct OAuthClient: Sendable {
    public let transport: HTTPTransport
    public let clientID: String
    public let authentication: ClientAuthentication

    public init(transport: HTTPTransport, clientID: String, authentication: ClientAuthentication) {
        self.transport = transport
        self.clientID = clientID
        self.authentication = authentication
    }

    private var clientPairs: [(String, String)] {
        switch authentication {
        case .none: return [("client_id", clientID)]
        case .secret(let secret): return [("client_id", clientID), ("client_secret", secret)]
        }
    }

    /// Authorization code + PKCE (RFC 6749 4.1.3, RFC 7636 4.5).
    public func exchange(code: String, verifier: String, redirectURI: String,
                         endpoint: String) throws(SignInError) -> TokenResponse {
        let pairs = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                     ("code_verifier", verifier)] + clientPairs
        return try TokenResponse.parse(transport.send(.form(endpoint, pairs)), endpoint: endpoint)
    }

    /// Refresh (RFC 6749 section 6). Providers may rotate the refresh token; the caller keeps the old one when not.
    public func refresh(_ refreshToken: String, scopes: [String]? = nil, endpoint: String) throws(SignInError) -> TokenResponse {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)] + clientPairs
        if let scopes, !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try TokenResponse.parse(transport.send(.form(endpoint, pairs)), endpoint: endpoint)
    }

    /// Revocation (RFC 7009): 200 means revoked or already unknown.
    public func revoke(_ token: String, hint: String, endpoint: String) throws(SignInError) {
        let pairs = [("token", token), ("token_type_hint", hint)] + clientPairs
        let response = try transport.send(.form(endpoint, pairs))
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
    }

    /// Device authorization request (RFC 8628 3.1).
    public func startDeviceAuthorization(scopes: [String], endpoint: String) throws(SignInError) -> DeviceAuthorization {
        let pairs = clientPairs + [("scope", scopes.joined(separator: " "))]
        let response = try transport.send(.form(endpoint, pairs))
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        let json = try response.json()
        guard let deviceCode = json["device_code"]?.string, let userCode = json["user_code"]?.string,
              let verification = json["verification_uri"]?.string ?? json["verification_url"]?.string else {
            throw .unavailable(reason: "the device authorization answer lacks device_code, user_code or verification_uri")
        }
        return DeviceAuthorization(deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
                                   verificationURIComplete: json["verification_uri_complete"]?.string,
                                   expiresIn: json["expires_in"]?.integer ?? 600,
                                   interval: max(1, json["interval"]?.integer ?? 5))
    }

    /// One poll of the token endpoint (RFC 8628 3.4/3.5).
    public func pollDevice(_ authorization: DeviceAuthorization, endpoint: String) throws(SignInError) -> DevicePoll {
        let pairs = [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                     ("device_code", authorization.deviceCode)] + clientPairs
        let response = try transport.send(.form(endpoint, pairs))
        if (200..<300).contains(response.status) {
            return .approved(try TokenResponse.parse(response, endpoint: endpoint))
        }
        switch (try? JSONValue.parse(response.body))?["error"]?.string {
        case "authorization_pending": return .pending
        case "slow_down": return .slowDown
        case "expired_token": throw .timedOut
        default: throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
    }
}

/// What the device authorization endpoint answered: what to show the user, and how to poll.
public struct DeviceAuthorization: Equatable, Sendable {
    public let deviceCode: String
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String?
    public let expiresIn: Int
    public var interval: Int
}

/// One poll's result.
public enum DevicePoll: Equatable, Sendable {
    case pending
    /// Poll 5 s slower from now on (RFC 8628 3.5).
    case slowDown
    case approved(TokenResponse)
}
