import AuthCore
import Foundation

/// How the client authenticates at the token and revocation endpoints (RFC 6749 2.3.1, OIDC Core 9).
public enum ClientAuthentication: Equatable, Sendable {
    /// A public client: only `client_id` in the body (PKCE protects the code).
    case none
    /// `client_secret` in the body (`client_secret_post`), as Apple's ES256 client-secret JWT goes.
    case secret(String)
    /// HTTP Basic with the form-encoded id and secret (`client_secret_basic`), the default of RFC 6749 and OIDC.
    case basic(String)

    /// The name discovery documents use for this method.
    public var method: ClientAuthMethod {
        switch self {
        case .none: return .none
        case .secret: return .clientSecretPost
        case .basic: return .clientSecretBasic
        }
    }

    /// The same secret sent the way `method` says (the revocation endpoint may want another way than the token one).
    public func using(_ method: ClientAuthMethod) -> ClientAuthentication {
        switch (self, method) {
        case (.none, _), (_, .none): return .none
        case (.secret(let secret), .clientSecretBasic), (.basic(let secret), .clientSecretBasic): return .basic(secret)
        case (.secret(let secret), .clientSecretPost), (.basic(let secret), .clientSecretPost): return .secret(secret)
        }
    }
}

/// The OAuth 2.0 calls of a direct sign-in: code exchange, refresh, revocation, device authorization.
public struct OAuthClient: Sendable {
    public let transport: HTTPTransport
    public let clientID: String
    public let authentication: ClientAuthentication
    /// With DPoP, every request carries a proof of the session's key and answers a nonce demand once.
    public var dpop: DPoPProver?

    public init(transport: HTTPTransport, clientID: String, authentication: ClientAuthentication) {
        self.transport = transport
        self.clientID = clientID
        self.authentication = authentication
    }

    private var clientPairs: [(String, String)] {
        switch authentication {
        case .none: return [("client_id", clientID)]
        case .secret(let secret): return [("client_id", clientID), ("client_secret", secret)]
        case .basic: return []
        }
    }

    /// The `Authorization` header of `client_secret_basic`: id and secret each form-encoded first (RFC 6749 2.3.1,
    /// Appendix B), so a colon or non-ASCII character in either survives the `id:secret` split.
    private var clientHeaders: [(String, String)] {
        guard case .basic(let secret) = authentication else { return [] }
        return [("Authorization", Self.basicAuthorization(clientID: clientID, secret: secret))]
    }

    public static func basicAuthorization(clientID: String, secret: String) -> String {
        let pair = FormEncoding.escapeForm(clientID) + ":" + FormEncoding.escapeForm(secret)
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    private func post(_ endpoint: String, _ pairs: [(String, String)]) throws(SignInError) -> IncomingResponse {
        let request = OutgoingRequest.form(endpoint, pairs, headers: clientHeaders)
        if let dpop { return try dpop.send(request, via: transport) }
        return try transport.send(request)
    }

    /// Authorization code + PKCE (RFC 6749 4.1.3, RFC 7636 4.5).
    public func exchange(
        code: String, verifier: String, redirectURI: String,
        endpoint: String
    ) throws(SignInError) -> TokenResponse {
        let pairs =
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
            ] + clientPairs
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }

    /// Refresh (RFC 6749 section 6). Providers may rotate the refresh token; the caller keeps the old one when not.
    public func refresh(_ refreshToken: String, scopes: [String]? = nil, endpoint: String) throws(SignInError)
        -> TokenResponse
    {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)] + clientPairs
        if let scopes, !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }

    /// Revocation (RFC 7009): 200 means revoked or already unknown.
    public func revoke(_ token: String, hint: String, endpoint: String) throws(SignInError) {
        let pairs = [("token", token), ("token_type_hint", hint)] + clientPairs
        let response = try post(endpoint, pairs)
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
    }

    /// Pushed authorization request (RFC 9126 section 2): the parameters (or the request object) with the client's
    /// authentication, as at the token endpoint; the answer is the `request_uri` the browser carries instead.
    public func pushAuthorization(_ parameters: [(String, String)], endpoint: String) throws(SignInError)
        -> PushedAuthorization
    {
        let own = clientPairs
        let pairs = parameters.filter { name, _ in !own.contains { $0.0 == name } } + own
        let response = try post(endpoint, pairs)
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        let json = try response.json()
        guard let requestURI = json["request_uri"]?.string, !requestURI.isEmpty,
            let expiresIn = json["expires_in"]?.integer, expiresIn > 0
        else {
            throw .unavailable(reason: "the pushed authorization answer lacks request_uri or expires_in")
        }
        return PushedAuthorization(requestURI: requestURI, expiresIn: expiresIn)
    }

    /// Device authorization request (RFC 8628 3.1).
    public func startDeviceAuthorization(scopes: [String], endpoint: String) throws(SignInError) -> DeviceAuthorization
    {
        let pairs = clientPairs + [("scope", scopes.joined(separator: " "))]
        let response = try post(endpoint, pairs)
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        let json = try response.json()
        guard let deviceCode = json["device_code"]?.string, let userCode = json["user_code"]?.string,
            let verification = json["verification_uri"]?.string ?? json["verification_url"]?.string
        else {
            throw .unavailable(
                reason: "the device authorization answer lacks device_code, user_code or verification_uri")
        }
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: verification,
            verificationURIComplete: json["verification_uri_complete"]?.string,
            expiresIn: json["expires_in"]?.integer ?? 600,
            interval: max(1, json["interval"]?.integer ?? 5))
    }

    /// One poll of the token endpoint (RFC 8628 3.4/3.5).
    public func pollDevice(_ authorization: DeviceAuthorization, endpoint: String) throws(SignInError) -> DevicePoll {
        let pairs =
            [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", authorization.deviceCode),
            ] + clientPairs
        let response = try post(endpoint, pairs)
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

/// One poll's result.
public enum DevicePoll: Equatable, Sendable {
    case pending
    /// Poll 5 s slower from now on (RFC 8628 3.5).
    case slowDown
    case approved(TokenResponse)
}
