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
    /// DPoP (RFC 9449): a key made for the session, its thumbprint on the authorization request, proofs on every
    /// token, refresh, revocation and UserInfo request.
    public var dpop = false
    /// PAR, JAR and the response mode of the authorization request.
    public var shape = AuthorizationShape()
    /// What the operator added to the requests (`prompt`, `max_age`, `resource`, extra parameters…) and what the ID
    /// token must then show.
    public var authorizationOptions = AuthorizationOptions()

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

    /// A browser sign-in's redirect: the registered URI, else the loopback receiver's (nil when it is not running).
    func browserMethod(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        if let registeredRedirectURI { return .browser(redirectURI: registeredRedirectURI) }
        guard let loopbackRedirectURI else {
            throw .unavailable(reason: "no redirect URI: the loopback receiver is not running")
        }
        return .browser(redirectURI: loopbackRedirectURI)
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
    private let backchannel = Mutex<BackchannelAuthorization?>(nil)
    /// The session's DPoP prover, made with the attempt when the provider uses DPoP.
    private let dpop = Mutex<DPoPProver?>(nil)
    /// When the pushed request's `request_uri` stops being good, and for how long it was (RFC 9126 2.2).
    private let pushedExpiry = Mutex<(at: Date, lifetime: Int)?>(nil)

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
        var client = OAuthClient(
            transport: transport, clientID: provider.clientID, authentication: provider.authentication)
        client.dpop = dpop.withLock { $0 }
        return client
    }

    public var waitsForRedirect: Bool { request.grant == .authorizationCode }

    public var registeredRedirectURI: String? { provider.registeredRedirectURI }

    public func notes(for attempt: Attempt, randomPort: Bool) -> [String] {
        provider.redirectNotes(for: attempt, randomPort: randomPort)
    }

    /// The grants other than the authorization code all wait the device grant's way: nothing comes back through a
    /// redirect, the token endpoint is polled (or, with no one to approve, asked once).
    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        switch request.grant {
        case .authorizationCode:
            return try provider.browserMethod(loopbackRedirectURI: loopbackRedirectURI)
        case .device:
            guard provider.endpoints.deviceAuthorization != nil else {
                throw .authMethodUnavailable(method: "\(provider.preset.title) device")
            }
        case .clientCredentials:
            try requireConfidentialClient("client-credentials")
        case .ciba:
            guard provider.endpoints.backchannelAuthentication != nil else {
                throw .grantUnavailable(
                    grant: "ciba", reason: "\(provider.endpoints.issuer) names no backchannel_authentication_endpoint")
            }
            try requireConfidentialClient("ciba")
        case .tokenExchange(let exchange):
            guard let parent = exchange.parent, exchange.subjectToken != nil else {
                throw .grantUnavailable(
                    grant: "token-exchange", reason: "session '\(exchange.parentKey)' holds no access token")
            }
            // The subject token goes only to the issuer that issued it.
            guard parent.issuer == provider.endpoints.issuer else {
                throw .grantUnavailable(
                    grant: "token-exchange",
                    reason: "session '\(parent.key)' comes from \(parent.issuer), not \(provider.endpoints.issuer), "
                        + "and its token goes to no other issuer")
            }
        }
        return .device
    }

    /// Grants with no user's code to protect them need the client to prove itself (RFC 6749 4.4, CIBA Core 7.1).
    private func requireConfidentialClient(_ grant: String) throws(SignInError) {
        guard provider.authentication != .none else {
            throw .grantUnavailable(
                grant: grant,
                reason: "it needs a confidential client; give its secret (--client-secret-file), key "
                    + "(--private-key-file) or certificate (--client-certificate)")
        }
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        do {
            let pkce = PKCE(randomBytes: try SecureRandom.bytes(32))
            let state = AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16))
            // The device grant carries no nonce (RFC 8628 has no authorize request to put it in).
            let wantsNonce = provider.preset.idToken && method != .device
            let nonce = wantsNonce ? AttemptSecrets.nonce(randomBytes: try SecureRandom.bytes(16)) : nil
            if provider.dpop {
                let prover = DPoPProver(key: try DPoPKey(), clock: clock)
                dpop.withLock { $0 = prover }
            }
            var attempt = Attempt(
                id: id, backend: provider.backendName, provider: provider.preset.provider, method: method,
                state: state, codeVerifier: pkce.verifier, nonce: nonce, deadline: deadline)
            // RFC 9207: the redirect's `iss`, when it has one (or always, when discovery says so), must name the
            // issuer the request goes to; the state machine checks it for every receiver alike.
            attempt.expectedIssuer = provider.endpoints.issuer
            attempt.requiresIssuer = provider.endpoints.issuerInAuthorizationResponse == true
            return attempt
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        switch attempt.method {
        case .browser(let redirectURI):
            let shape = provider.shape
            var authorize = AuthorizationRequest(
                endpoint: provider.endpoints.authorization, clientID: provider.clientID, redirectURI: redirectURI,
                scopes: provider.scopes, state: attempt.state, codeChallenge: PKCE.challenge(for: attempt.codeVerifier),
                nonce: attempt.nonce, responseMode: provider.preset.responseMode,
                extraParameters: provider.extraAuthorizeParameters + dpopParameters,
                options: provider.authorizationOptions)
            if shape.responseMode != .query { authorize.responseMode = shape.responseMode.rawValue }
            let object = try shape.requestObject?.sign(
                authorize.parameters, clientID: provider.clientID, issuer: provider.endpoints.issuer, now: clock())
            guard shape.pushed else {
                return .browser(url: try authorize.url(parameters: shape.frontChannel(authorize, signed: object)))
            }
            guard let endpoint = provider.endpoints.pushedAuthorizationRequest else {
                throw .unavailable(reason: "the provider names no pushed_authorization_request_endpoint")
            }
            let pushed = try oauth.pushAuthorization(
                object.map { [("client_id", provider.clientID), ("request", $0)] } ?? authorize.parameters,
                endpoint: endpoint)
            pushedExpiry.withLock {
                $0 = (clock().addingTimeInterval(TimeInterval(pushed.expiresIn)), pushed.expiresIn)
            }
            return .browser(
                url: try authorize.url(parameters: [
                    ("client_id", provider.clientID), ("request_uri", pushed.requestURI),
                ]))
        case .device:
            switch request.grant {
            case .authorizationCode, .device:
                guard let endpoint = provider.endpoints.deviceAuthorization else {
                    throw .authMethodUnavailable(method: "\(provider.preset.title) device")
                }
                let started = try oauth.startDeviceAuthorization(scopes: provider.scopes, endpoint: endpoint)
                device.withLock { $0 = started }
                return .device(started)
            case .ciba(let loginHint, let bindingMessage):
                guard let endpoint = provider.endpoints.backchannelAuthentication else {
                    throw .unavailable(reason: "the provider names no backchannel_authentication_endpoint")
                }
                let started = try oauth.startBackchannelAuthentication(
                    loginHint: loginHint, bindingMessage: bindingMessage, scopes: provider.scopes, endpoint: endpoint)
                backchannel.withLock { $0 = started }
                return .backchannel(started)
            case .clientCredentials, .tokenExchange:
                return .tokenRequest(grant: request.grant.grantType)
            }
        case .oneTimeCode:
            throw .authMethodUnavailable(method: "one-time code")
        }
    }

    /// `dpop_jkt` (RFC 9449 section 10): the authorization code is bound to the session's key too.
    private var dpopParameters: [(String, String)] {
        dpop.withLock { $0 }.map { [("dpop_jkt", $0.thumbprint)] } ?? []
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        guard case .browser(let redirectURI) = attempt.method else { throw .callbackIncomplete }
        switch grant {
        case .authorizationCode(let code):
            let tokens = try oauth.exchange(
                code: code, verifier: attempt.codeVerifier, redirectURI: redirectURI,
                endpoint: provider.endpoints.token, extra: provider.authorizationOptions.tokenRequestParameters)
            return .issued(try session(from: tokens, attempt: attempt))
        case .idToken, .portalToken, .portalMagicLinkToken:
            // A direct sign-in always exchanges a code: tokens in the redirect would skip PKCE.
            throw .callbackIncomplete
        }
    }

    /// A JWT-secured response (`responseMode: jwt`) verified against the issuer's JWKS and unpacked into the
    /// parameters the callback checks read; a plain redirect as it came. A provider's error that arrives after the
    /// pushed request's `request_uri` ran out says so.
    public func responseParameters(_ callback: Callback) throws(SignInError) -> Callback {
        guard provider.shape.responseMode == .jwt else { return noteExpiredPush(callback) }
        guard let response = callback.response else {
            // An error the provider could not sign (an unknown client) carries no code: it ends the attempt anyway.
            if callback.error != nil, callback.code == nil { return noteExpiredPush(callback) }
            throw .authenticationFailed(providerError: "the redirect carried no signed response (responseMode jwt)")
        }
        guard let jwksURL = provider.endpoints.jwks else {
            throw .authenticationFailed(providerError: "the provider has no JWKS to check its signed response")
        }
        let verifier = AuthorizationResponseVerifier(issuer: provider.endpoints.issuer, clientID: provider.clientID)
        let pairs = try metadata.verifyResponse(response, with: verifier, jwksURL: jwksURL, now: clock())
        do {
            return noteExpiredPush(try CallbackParser.parse(pairs: pairs))
        } catch {
            throw .authenticationFailed(providerError: "the signed response: \(error.description)")
        }
    }

    private func noteExpiredPush(_ callback: Callback) -> Callback {
        guard callback.error != nil, let pushed = pushedExpiry.withLock({ $0 }), clock() >= pushed.at else {
            return callback
        }
        var noted = callback
        let note =
            "the pushed authorization request expired after \(pushed.lifetime) s; sign in again and open the "
            + "link sooner"
        noted.errorDescription = callback.errorDescription.map { $0 + " (" + note + ")" } ?? note
        return noted
    }

    /// RFC 7009 at the provider's revocation endpoint, when it has one; a failure leaves nothing to do.
    public func revoke(_ issued: IssuedSession) {
        try? SessionRefresher(transport: transport, clock: clock).revoke(issued.session)
    }

    /// One poll of the token endpoint: the device grant's and CIBA's until approved; client credentials and token
    /// exchange have no one to wait for, so their one request answers at once.
    public func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer? {
        let endpoint = provider.endpoints.token
        let poll: DevicePoll
        switch request.grant {
        case .authorizationCode, .device:
            let current = device.withLock { $0 }
            guard let current else { throw .unavailable(reason: "the device authorization has not started") }
            do throws(SignInError) {
                poll = try oauth.pollDevice(current, endpoint: endpoint)
            } catch .timedOut {
                // RFC 8628 3.5: the code itself expired at the provider, which is not this attempt's timeout.
                throw .unavailable(
                    reason:
                        "the device code expired before it was approved (expired_token); sign in again for a new code")
            }
        case .ciba(let loginHint, _):
            let current = backchannel.withLock { $0 }
            guard let current else { throw .unavailable(reason: "the backchannel request has not started") }
            do throws(SignInError) {
                poll = try oauth.pollBackchannel(current, endpoint: endpoint)
            } catch .timedOut {
                throw .unavailable(
                    reason: "the backchannel request expired before \(loginHint) approved it (expired_token)")
            } catch {
                guard error.code == "access_denied" else { throw error }
                throw .providerAnswered(
                    "access_denied", description: "\(loginHint) declined the backchannel request")
            }
        case .clientCredentials:
            let tokens = try oauth.clientCredentials(scopes: provider.scopes, endpoint: endpoint)
            return .issued(try issuedWithoutUser(tokens, parent: nil))
        case .tokenExchange(let exchange):
            guard let parent = exchange.parent else {
                throw .grantUnavailable(grant: "token-exchange", reason: "session '\(exchange.parentKey)' was not read")
            }
            let tokens = try oauth.exchangeToken(exchange, scopes: request.scopes ?? [], endpoint: endpoint)
            return .issued(try issuedWithoutUser(tokens, parent: parent))
        }
        switch poll {
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
        let prover = dpop.withLock { $0 }
        if prover != nil { try DPoPProver.checkBound(tokens) }
        var subject: String
        var email: String?
        var name: String?
        var issuer = provider.endpoints.issuer
        var unverifiedEmail = false
        if provider.preset.idToken, let idToken = tokens.idToken {
            guard let jwksURL = provider.endpoints.jwks else {
                throw .invalidIdToken(reason: "the provider has no JWKS")
            }
            var verifier = IDTokenVerifier(
                issuer: provider.endpoints.issuer, clientID: provider.clientID,
                nonce: attempt.nonce)
            verifier.maxAge = provider.authorizationOptions.maxAge
            verifier.acrValues = provider.authorizationOptions.acrValues
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
                        endpoint: endpoint, transport: transport, dpop: prover,
                        certificate: provider.authentication.certificate)
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
            if provider.authorizationOptions.checksIDToken {
                throw .invalidIdToken(
                    reason: "max_age or acr_values was requested, but the provider sent no ID token to show them")
            }
            if provider.preset.idToken, provider.endpoints.userinfo == nil {
                throw .invalidIdToken(reason: "the provider sent no ID token and has no UserInfo endpoint")
            }
            let identity: UserEndpoint.Identity
            do {
                identity = try UserEndpoint.identity(
                    provider: provider.preset.name, accessToken: tokens.accessToken,
                    endpoint: provider.endpoints.userinfo, transport: transport, dpop: prover,
                    certificate: provider.authentication.certificate)
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
        return stored(record, tokens, prover: prover)
    }

    /// The session's secrets as every direct sign-in keeps them: the tokens, where and how the client refreshes and
    /// revokes them, the grant when not a user's browser or device sign-in, and the DPoP key.
    private func stored(
        _ record: SessionRecord, _ tokens: TokenResponse, prover: DPoPProver?, userEndpoint: Bool = true,
        parent: String? = nil
    ) -> IssuedSession {
        var endpoints = SessionEndpoints(
            clientID: provider.clientID, token: provider.endpoints.token,
            revocation: provider.endpoints.revocation, user: userEndpoint ? provider.endpoints.userinfo : nil,
            clientSecretFile: provider.clientSecretFile,
            clientSecretFileFromSignIn: provider.clientSecretFile == nil ? nil : true,
            tokenAuthMethod: provider.authentication.method.rawValue,
            revocationAuthMethod: provider.revocationAuthentication?.method.rawValue)
        endpoints.keepAssertion(of: provider.authentication)
        endpoints.keepCertificate(of: provider.authentication)
        switch request.grant {
        case .authorizationCode, .device: break
        case .clientCredentials, .ciba, .tokenExchange: endpoints.grant = request.grant.grantType
        }
        endpoints.parentSession = parent
        var secrets = SessionSecrets(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            idToken: tokens.idToken, endpoints: endpoints)
        if let prover {
            secrets.dpopKeyHex = Hex.encode(prover.key.privateKey.rawRepresentation)
            secrets.dpopNonce = prover.nonce
            secrets.tokenType = "DPoP"
        }
        return IssuedSession(session: Session(record: record, secrets: secrets), kind: .login)
    }

    /// A session no user signed in to here. Without `parent`, client credentials': the client is the subject (a
    /// machine session), renewed with the client's credentials when it expires, so it counts as refreshable. With
    /// `parent`, a token exchange's: the parent session's user, marked with the parent's key.
    private func issuedWithoutUser(_ tokens: TokenResponse, parent: SessionRecord?) throws(SignInError) -> IssuedSession
    {
        let prover = dpop.withLock { $0 }
        if prover != nil { try DPoPProver.checkBound(tokens) }
        let now = clock()
        let expiresAt = tokens.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
        guard let parent else {
            let record = SessionRecord(
                key: request.sessionKey
                    ?? SessionKeyName.generated(provider: provider.preset.provider, user: provider.clientID),
                backend: provider.backendName, provider: provider.preset.name, subject: provider.clientID,
                displayName: SessionRecord.machineLabel(clientID: provider.clientID),
                issuer: provider.endpoints.issuer, createdAt: now, expiresAt: expiresAt, refreshable: true,
                scopes: tokens.scope ?? provider.scopes)
            return stored(record, tokens, prover: prover, userEndpoint: false)
        }
        let record = SessionRecord(
            key: request.sessionKey
                ?? SessionKeyName.generated(provider: provider.preset.provider, user: parent.key + "-exchanged"),
            backend: provider.backendName, provider: provider.preset.name, subject: parent.subject,
            email: parent.email, phone: parent.phone, displayName: parent.displayName,
            issuer: provider.endpoints.issuer, createdAt: now, expiresAt: expiresAt,
            refreshable: tokens.refreshToken != nil, scopes: tokens.scope ?? request.scopes ?? [])
        return stored(record, tokens, prover: prover, parent: parent.key)
    }

    /// Revokes the refresh and access tokens of a sign-in that failed after the provider issued them (RFC 7009),
    /// and names in the error what became of them.
    private func revokeAfterFailure(_ tokens: TokenResponse, _ error: SignInError) -> SignInError {
        guard let endpoint = provider.endpoints.revocation else {
            return error.adding(
                "the provider has no revocation endpoint, so the tokens it issued stay valid "
                    + "until they expire")
        }
        var client = OAuthClient(
            transport: transport, clientID: provider.clientID,
            authentication: provider.revocationAuthentication ?? provider.authentication)
        client.dpop = dpop.withLock { $0 }
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

    /// - Parameter certificate: with mutual TLS, the client certificate the token is bound to (RFC 8705 3).
    public static func identity(
        provider: String, accessToken: String, endpoint: String?,
        transport: HTTPTransport, dpop: DPoPProver? = nil, certificate: ClientCertificate? = nil
    ) throws(SignInError) -> Identity {
        guard let endpoint else { throw .unavailable(reason: "\(provider) has no user endpoint configured") }
        var request = OutgoingRequest(url: endpoint)
        request.clientCertificate = certificate
        let response = try send(request, accessToken: accessToken, dpop: dpop, via: transport)
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

    /// A resource request with the access token: `Bearer`, or with DPoP `DPoP` and a proof bound to the token by
    /// `ath` (RFC 9449 section 7.1), retried once when the server demands a nonce.
    static func send(
        _ request: OutgoingRequest, accessToken: String, dpop: DPoPProver?, via transport: HTTPTransport
    ) throws(SignInError) -> IncomingResponse {
        var request = request
        request.headers += [
            ("Authorization", (dpop == nil ? "Bearer " : "DPoP ") + accessToken), ("Accept", "application/json"),
        ]
        guard let dpop else { return try transport.send(request) }
        return try dpop.send({ () throws(SignInError) in request }, accessToken: accessToken, via: transport)
    }
}
