import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// Everything a direct sign-in needs about its provider, resolved from preset, configuration and options.
public struct ResolvedProvider: Sendable {
    public var preset: ProviderPreset
    public var clientID: String
    public var authentication: ClientAuthentication
    public var scopes: [String]
    public var endpoints: ProviderEndpoints
    /// Where the provider sends the browser back; nil means the loopback receiver's URI.
    public var registeredRedirectURI: String?
    /// Extra authorize parameters (the sandbox's scripted approval, `prompt`…).
    public var extraAuthorizeParameters: [(String, String)]
    /// The backend name recorded with the session.
    public var backendName: String
    /// The file the client secret was read from, so refreshes can read it again.
    public var clientSecretFile: String?
    /// How the client authenticates at the revocation endpoint; nil means as at the token endpoint.
    public var revocationAuthentication: ClientAuthentication?

    public init(
        preset: ProviderPreset, clientID: String, authentication: ClientAuthentication, scopes: [String],
        endpoints: ProviderEndpoints, registeredRedirectURI: String? = nil,
        extraAuthorizeParameters: [(String, String)] = [], backendName: String = "direct"
    ) {
        self.preset = preset
        self.clientID = clientID
        self.authentication = authentication
        self.scopes = scopes
        self.endpoints = endpoints
        self.registeredRedirectURI = registeredRedirectURI
        self.extraAuthorizeParameters = extraAuthorizeParameters
        self.backendName = backendName
    }
}

/// The `direct` backend: the session is the provider's own tokens. Authorization code + PKCE for every provider,
/// the device grant where offered, ID tokens verified before anything is stored, identity from the user
/// endpoint for providers without ID tokens (Discord, X).
public final class DirectSignIn: SignInBackend, Sendable {
    public let provider: ResolvedProvider
    public let request: SignInRequest
    private let transport: HTTPTransport
    private let metadata: ProviderMetadataCache
    private let clock: @Sendable () -> Date
    private let device = Mutex<DeviceAuthorization?>(nil)

    public init(
        provider: ResolvedProvider, request: SignInRequest, transport: HTTPTransport,
        metadata: ProviderMetadataCache, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.provider = provider
        self.request = request
        self.transport = transport
        self.metadata = metadata
        self.clock = clock
    }

    private var oauth: OAuthClient {
        OAuthClient(transport: transport, clientID: provider.clientID, authentication: provider.authentication)
    }

    public var waitsForRedirect: Bool { !request.useDevice }

    public var registeredRedirectURI: String? { provider.registeredRedirectURI }

    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        if request.useDevice {
            guard provider.endpoints.deviceAuthorization != nil else {
                throw .authMethodUnavailable(method: "\(provider.preset.title) device")
            }
            return .device
        }
        if let registered = provider.registeredRedirectURI { return .browser(redirectURI: registered) }
        guard let loopbackRedirectURI else {
            throw .unavailable(reason: "no redirect URI: the loopback receiver is not running")
        }
        return .browser(redirectURI: loopbackRedirectURI)
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        do {
            let pkce = PKCE(randomBytes: try SecureRandom.bytes(32))
            let state = AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16))
            // The device grant carries no nonce (RFC 8628 has no authorize request to put it in).
            let wantsNonce = provider.preset.idToken && method != .device
            let nonce = wantsNonce ? AttemptSecrets.nonce(randomBytes: try SecureRandom.bytes(16)) : nil
            return Attempt(
                id: id, backend: provider.backendName, provider: provider.preset.provider, method: method,
                state: state, codeVerifier: pkce.verifier, nonce: nonce, deadline: deadline)
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        switch attempt.method {
        case .browser(let redirectURI):
            let authorize = AuthorizationRequest(
                endpoint: provider.endpoints.authorization, clientID: provider.clientID, redirectURI: redirectURI,
                scopes: provider.scopes, state: attempt.state, codeChallenge: PKCE.challenge(for: attempt.codeVerifier),
                nonce: attempt.nonce, responseMode: provider.preset.responseMode,
                extraParameters: provider.extraAuthorizeParameters)
            return .browser(url: try authorize.url())
        case .device:
            guard let endpoint = provider.endpoints.deviceAuthorization else {
                throw .authMethodUnavailable(method: "\(provider.preset.title) device")
            }
            let started = try oauth.startDeviceAuthorization(scopes: provider.scopes, endpoint: endpoint)
            device.withLock { $0 = started }
            return .device(started)
        case .oneTimeCode:
            throw .authMethodUnavailable(method: "one-time code")
        }
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        guard case .browser(let redirectURI) = attempt.method else { throw .callbackIncomplete }
        switch grant {
        case .authorizationCode(let code):
            let tokens = try oauth.exchange(
                code: code, verifier: attempt.codeVerifier, redirectURI: redirectURI,
                endpoint: provider.endpoints.token)
            return .issued(try session(from: tokens, attempt: attempt))
        case .idToken, .portalToken:
            // A direct sign-in always exchanges a code: tokens in the redirect would skip PKCE.
            throw .callbackIncomplete
        }
    }

    /// RFC 7009 at the provider's revocation endpoint, when it has one; a failure leaves nothing to do.
    public func revoke(_ issued: IssuedSession) {
        try? SessionRefresher(transport: transport, clock: clock).revoke(issued.session)
    }

    public func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer? {
        let current = device.withLock { $0 }
        guard let current else { throw .unavailable(reason: "the device authorization has not started") }
        switch try oauth.pollDevice(current, endpoint: provider.endpoints.token) {
        case .pending: return nil
        case .slowDown:
            interval += 5
            return nil
        case .approved(let tokens):
            return .issued(try session(from: tokens, attempt: attempt))
        }
    }

    /// Turns a token answer into a session. When no identity can be established from it, what the provider issued
    /// is revoked before the sign-in fails, and the error says so: tokens nobody stores must not stay valid.
    func session(from tokens: TokenResponse, attempt: Attempt) throws(SignInError) -> IssuedSession {
        do {
            return try makeSession(from: tokens, attempt: attempt)
        } catch {
            throw revokeAfterFailure(tokens, error)
        }
    }

    /// Identity from the verified ID token, claims it lacks (email, name) from UserInfo, whose `sub` must be the
    /// same (OIDC Core 5.3.2); without an ID token (the device grant, plain OAuth) from UserInfo or the user endpoint.
    private func makeSession(from tokens: TokenResponse, attempt: Attempt) throws(SignInError) -> IssuedSession {
        let now = clock()
        var subject: String
        var email: String?
        var name: String?
        var issuer = provider.endpoints.issuer
        var unverifiedEmail = false
        if provider.preset.idToken, let idToken = tokens.idToken {
            guard let jwksURL = provider.endpoints.jwks else {
                throw .invalidIdToken(reason: "the provider has no JWKS")
            }
            let verifier = IDTokenVerifier(
                issuer: provider.endpoints.issuer, clientID: provider.clientID,
                nonce: attempt.nonce)
            let claims = try metadata.verify(idToken, with: verifier, jwksURL: jwksURL, now: now)
            subject = claims.subject
            email = claims.email
            name = claims.name
            issuer = claims.issuer
            // OIDC Core 5.1: `email_verified: false` says the provider did not check the address, so anyone may have
            // typed it; it is shown as unverified and never names the session.
            unverifiedEmail = email != nil && [.bool(false), .string("false")].contains(claims.all["email_verified"])
            if email == nil || name == nil, let endpoint = provider.endpoints.userinfo {
                // UserInfo is a supplement here: when it cannot be read the ID token's identity stands alone.
                let found: UserEndpoint.Identity?
                do {
                    found = try UserEndpoint.identity(
                        provider: provider.preset.name, accessToken: tokens.accessToken,
                        endpoint: endpoint, transport: transport)
                } catch {
                    found = nil
                }
                if let found {
                    guard found.subject == subject else {
                        throw .invalidIdToken(reason: "the UserInfo endpoint names another subject than the ID token")
                    }
                    email = email ?? found.email
                    name = name ?? found.name
                }
            }
        } else {
            if provider.preset.idToken, provider.endpoints.userinfo == nil {
                throw .invalidIdToken(reason: "the provider sent no ID token and has no UserInfo endpoint")
            }
            let identity: UserEndpoint.Identity
            do {
                identity = try UserEndpoint.identity(
                    provider: provider.preset.name, accessToken: tokens.accessToken,
                    endpoint: provider.endpoints.userinfo, transport: transport)
            } catch {
                let origin = provider.preset.idToken ? "the provider sent no ID token and " : ""
                throw .authenticationFailed(
                    providerError: "\(origin)the user endpoint named nobody: "
                        + error.message.trimmingSuffix("."))
            }
            subject = identity.subject
            email = identity.email
            name = identity.name
        }
        let key =
            request.sessionKey
            ?? SessionKeyName.generated(
                provider: provider.preset.provider, user: unverifiedEmail ? subject : email ?? name ?? subject)
        if unverifiedEmail, let address = email { email = address + " (unverified)" }
        let record = SessionRecord(
            key: key, backend: provider.backendName, provider: provider.preset.name, subject: subject, email: email,
            displayName: name, issuer: issuer, createdAt: now,
            expiresAt: tokens.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) },
            refreshable: tokens.refreshToken != nil, scopes: tokens.scope ?? provider.scopes)
        var endpoints = SessionEndpoints(
            clientID: provider.clientID, token: provider.endpoints.token,
            revocation: provider.endpoints.revocation, user: provider.endpoints.userinfo,
            clientSecretFile: provider.clientSecretFile,
            clientSecretFileFromSignIn: provider.clientSecretFile == nil ? nil : true,
            tokenAuthMethod: provider.authentication.method.rawValue,
            revocationAuthMethod: provider.revocationAuthentication?.method.rawValue)
        endpoints.keepAssertion(of: provider.authentication)
        let secrets = SessionSecrets(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            idToken: tokens.idToken, endpoints: endpoints)
        return IssuedSession(session: Session(record: record, secrets: secrets), kind: .login)
    }

    /// Revokes the refresh and access tokens of a sign-in that failed after the provider issued them (RFC 7009),
    /// and names in the error what became of them.
    private func revokeAfterFailure(_ tokens: TokenResponse, _ error: SignInError) -> SignInError {
        guard let endpoint = provider.endpoints.revocation else {
            return error.adding(
                "the provider has no revocation endpoint, so the tokens it issued stay valid "
                    + "until they expire")
        }
        let client = OAuthClient(
            transport: transport, clientID: provider.clientID,
            authentication: provider.revocationAuthentication ?? provider.authentication)
        do throws(SignInError) {
            if let refresh = tokens.refreshToken {
                try client.revoke(refresh, hint: "refresh_token", endpoint: endpoint)
            }
            try client.revoke(tokens.accessToken, hint: "access_token", endpoint: endpoint)
            return error.adding("the tokens the provider issued were revoked")
        } catch let failure {
            let why = failure.message.trimmingSuffix(".")
            return error.adding("the tokens the provider issued could not be revoked (\(why))")
        }
    }
}

/// Identity from the user endpoints of providers without ID tokens.
public enum UserEndpoint {
    public struct Identity: Equatable, Sendable {
        public let subject: String
        public let email: String?
        public let name: String?
    }

    public static func identity(
        provider: String, accessToken: String, endpoint: String?,
        transport: HTTPTransport
    ) throws(SignInError) -> Identity {
        guard let endpoint else { throw .unavailable(reason: "\(provider) has no user endpoint configured") }
        let response = try transport.send(
            OutgoingRequest(
                url: endpoint,
                headers: [
                    ("Authorization", "Bearer " + accessToken), ("Accept", "application/json"),
                ]))
        if response.status == 401 || response.status == 403 { throw .unauthorized }
        guard response.status == 200 else { throw OAuthErrorResponse.error(from: response, endpoint: endpoint) }
        let json = try response.json()
        // X wraps the user in `data`; Discord and OIDC userinfo answer flat.
        let user = json["data"] ?? json
        guard let subject = user["id"]?.string ?? user["sub"]?.string, !subject.isEmpty else {
            throw .authenticationFailed(providerError: "the user endpoint named no user id")
        }
        let name = user["global_name"]?.string ?? user["name"]?.string ?? user["username"]?.string
        return Identity(subject: subject, email: user["email"]?.string, name: name)
    }
}
