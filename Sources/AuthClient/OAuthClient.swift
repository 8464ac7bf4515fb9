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
    /// A signed JWT in the body, made afresh for each request (`client_secret_jwt`, `private_key_jwt`).
    case assertion(ClientAssertion)
    /// Mutual TLS (RFC 8705 2): the certificate in the handshake, `client_id` in the body.
    case certificate(ClientCertificate)

    /// The name discovery documents use for this method.
    public var method: ClientAuthMethod {
        switch self {
        case .none: return .none
        case .secret: return .clientSecretPost
        case .basic: return .clientSecretBasic
        case .assertion(let assertion): return assertion.method
        case .certificate(let certificate): return certificate.method
        }
    }

    /// The certificate every request of this client presents, for mutual TLS; the access tokens it gets are bound
    /// to it, so UserInfo requests present it too.
    public var certificate: ClientCertificate? {
        if case .certificate(let certificate) = self { return certificate }
        return nil
    }

    /// The client secret, for the methods that have one.
    private var sharedSecret: String? {
        switch self {
        case .none, .certificate: return nil
        case .secret(let secret), .basic(let secret): return secret
        case .assertion(let assertion):
            if case .secret(let secret) = assertion.signer { return secret }
            return nil
        }
    }

    /// The same secret sent the way `method` says (the revocation endpoint may want another way than the token one);
    /// a private key stays a private key.
    public func using(_ method: ClientAuthMethod) -> ClientAuthentication {
        guard method != self.method else { return self }
        switch method {
        case .none: return .none
        case .clientSecretBasic: return sharedSecret.map(ClientAuthentication.basic) ?? self
        case .clientSecretPost: return sharedSecret.map(ClientAuthentication.secret) ?? self
        case .clientSecretJWT:
            return sharedSecret.map { .assertion(ClientAssertion(signer: .secret($0), audience: .endpoint)) } ?? self
        case .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth: return self
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
    /// When assertions are issued (their `iat` and `exp`).
    public let clock: @Sendable () -> Date

    public init(
        transport: HTTPTransport, clientID: String, authentication: ClientAuthentication,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.transport = transport
        self.clientID = clientID
        self.authentication = authentication
        self.clock = clock
    }

    /// How a request to `endpoint` authenticates the client, as form fields and headers: the one place every
    /// endpoint's request (token, refresh, revocation, device, PAR) gets it. `client_secret_basic` sends id and secret
    /// each form-encoded first (RFC 6749 2.3.1, Appendix B), so a colon or non-ASCII character in either survives the
    /// `id:secret` split; an assertion is signed for this request and this endpoint (RFC 7523 2.2); with mutual TLS
    /// the body names the client and `post` presents the certificate (RFC 8705 2).
    private func clientCredentials(
        for endpoint: String
    ) throws(SignInError) -> (pairs: [(String, String)], headers: [(String, String)]) {
        switch authentication {
        case .none: return ([("client_id", clientID)], [])
        case .secret(let secret): return ([("client_id", clientID), ("client_secret", secret)], [])
        case .basic(let secret):
            return ([], [("Authorization", Self.basicAuthorization(clientID: clientID, secret: secret))])
        case .assertion(let assertion):
            let signed = try assertion.signed(clientID: clientID, endpoint: endpoint, now: clock())
            return (
                [
                    ("client_id", clientID), ("client_assertion_type", ClientAssertion.assertionType),
                    ("client_assertion", signed),
                ], []
            )
        case .certificate: return ([("client_id", clientID)], [])
        }
    }

    public static func basicAuthorization(clientID: String, secret: String) -> String {
        let pair = FormEncoding.escapeForm(clientID) + ":" + FormEncoding.escapeForm(secret)
        return "Basic " + Data(pair.utf8).base64EncodedString()
    }

    private func post(_ endpoint: String, _ pairs: [(String, String)]) throws(SignInError) -> IncomingResponse {
        // Built for each send: a DPoP nonce retry carries a fresh client assertion (a jti is good once, RFC 7523 3).
        let request = { () throws(SignInError) -> OutgoingRequest in
            // The client's own fields replace any of the same name the caller had (PAR's parameters carry client_id).
            let client = try clientCredentials(for: endpoint)
            let own = pairs.filter { name, _ in !client.pairs.contains { $0.0 == name } }
            var request = OutgoingRequest.form(endpoint, own + client.pairs, headers: client.headers)
            request.clientCertificate = authentication.certificate
            return request
        }
        if let dpop { return try dpop.send(request, via: transport) }
        return try transport.send(request())
    }

    /// Authorization code + PKCE (RFC 6749 4.1.3, RFC 7636 4.5).
    public func exchange(
        code: String, verifier: String, redirectURI: String,
        endpoint: String, extra: [(String, String)] = []
    ) throws(SignInError) -> TokenResponse {
        // `extra`: RFC 8707's `resource` again and config.json's `tokenParameters`, whose names were checked.
        let pairs =
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
            ] + extra
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }

    /// Refresh (RFC 6749 section 6). Providers may rotate the refresh token; the caller keeps the old one when not.
    /// `extra`: config.json's `tokenParameters`, whose names were checked.
    public func refresh(
        _ refreshToken: String, scopes: [String]? = nil, endpoint: String, extra: [(String, String)] = []
    ) throws(SignInError) -> TokenResponse {
        var pairs = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        pairs += extra
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }

    /// Revocation (RFC 7009): 200 means revoked or already unknown.
    public func revoke(_ token: String, hint: String, endpoint: String) throws(SignInError) {
        let pairs = [("token", token), ("token_type_hint", hint)]
        let response = try post(endpoint, pairs)
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
    }

    /// Introspection (RFC 7662 2): the token with the client's authentication, as at the token endpoint; the answer's
    /// members as they came, `active` a boolean (2.2).
    public func introspect(_ token: String, hint: String, endpoint: String) throws(SignInError) -> [String: JSONValue] {
        let response = try post(endpoint, [("token", token), ("token_type_hint", hint)])
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        guard case .object(let answer) = try response.json(), case .bool? = answer["active"] else {
            throw .unavailable(reason: "the introspection answer has no boolean active member")
        }
        return answer
    }

    /// Pushed authorization request (RFC 9126 section 2): the parameters (or the request object) with the client's
    /// authentication, as at the token endpoint; the answer is the `request_uri` the browser carries instead.
    public func pushAuthorization(_ parameters: [(String, String)], endpoint: String) throws(SignInError)
        -> PushedAuthorization
    {
        let response = try post(endpoint, parameters)
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
        let pairs = [("scope", scopes.joined(separator: " "))]
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
        let pairs = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", authorization.deviceCode),
        ]
        return try Self.polled(post(endpoint, pairs), endpoint: endpoint)
    }

    /// A poll's answer, the same for the device grant (RFC 8628 3.5) and CIBA (CIBA Core 11): tokens, wait, wait
    /// longer, or an end (`expired_token` as the timeout it is; any other error as the provider said it).
    private static func polled(_ response: IncomingResponse, endpoint: String) throws(SignInError) -> DevicePoll {
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

    /// Client credentials (RFC 6749 4.4.2): tokens for the client itself, no user; the client authenticates as at
    /// every other request.
    public func clientCredentials(scopes: [String], endpoint: String) throws(SignInError) -> TokenResponse {
        var pairs = [("grant_type", SessionEndpoints.clientCredentialsGrant)]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }

    /// CIBA's authentication request (CIBA Core 7.1, 7.3): whom to ask (`login_hint`), for what scopes, with what
    /// binding message; the answer names the request to poll for.
    public func startBackchannelAuthentication(
        loginHint: String, bindingMessage: String?, scopes: [String], endpoint: String
    ) throws(SignInError) -> BackchannelAuthorization {
        var pairs = [("scope", scopes.joined(separator: " ")), ("login_hint", loginHint)]
        if let bindingMessage { pairs.append(("binding_message", bindingMessage)) }
        let response = try post(endpoint, pairs)
        guard (200..<300).contains(response.status) else {
            throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
        }
        let json = try response.json()
        guard let id = json["auth_req_id"]?.string, !id.isEmpty, let expiresIn = json["expires_in"]?.integer,
            expiresIn > 0
        else {
            throw .unavailable(reason: "the backchannel authentication answer lacks auth_req_id or expires_in")
        }
        return BackchannelAuthorization(
            authRequestID: id, expiresIn: expiresIn, interval: max(1, json["interval"]?.integer ?? 5),
            bindingMessage: bindingMessage, loginHint: loginHint)
    }

    /// One CIBA poll of the token endpoint (CIBA Core 10.1): `authorization_pending`, `slow_down` and
    /// `expired_token` as for the device grant; `access_denied` when the user declined.
    public func pollBackchannel(
        _ authorization: BackchannelAuthorization, endpoint: String
    ) throws(SignInError) -> DevicePoll {
        let pairs = [("grant_type", SessionEndpoints.cibaGrant), ("auth_req_id", authorization.authRequestID)]
        return try Self.polled(post(endpoint, pairs), endpoint: endpoint)
    }

    /// Token exchange (RFC 8693 2.1): the subject token (an access token) for a new token, for `audience` or
    /// `resource` when given, of `requestedTokenType` when given.
    public func exchangeToken(_ exchange: TokenExchange, scopes: [String], endpoint: String) throws(SignInError)
        -> TokenResponse
    {
        guard let subjectToken = exchange.subjectToken else {
            throw .unavailable(reason: "session '\(exchange.parentKey)' holds no access token to exchange")
        }
        var pairs = [
            ("grant_type", SessionEndpoints.tokenExchangeGrant), ("subject_token", subjectToken),
            ("subject_token_type", TokenExchange.accessTokenType),
        ]
        if let audience = exchange.audience { pairs.append(("audience", audience)) }
        if let resource = exchange.resource { pairs.append(("resource", resource)) }
        if let type = exchange.requestedTokenType { pairs.append(("requested_token_type", type)) }
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        return try TokenResponse.parse(post(endpoint, pairs), endpoint: endpoint)
    }
}

/// One poll's result.
public enum DevicePoll: Equatable, Sendable {
    case pending
    /// Poll 5 s slower from now on (RFC 8628 3.5).
    case slowDown
    case approved(TokenResponse)
}
