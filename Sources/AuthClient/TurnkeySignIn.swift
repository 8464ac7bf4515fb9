import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// The `turnkey` backend: the session is the Auth Proxy's JWT, bound to a P-256 session key drawn fresh for each
/// attempt and stored with it. Email and SMS codes (`otp_init`, `otp_verify`, then `account` → `otp_login`, or
/// `signup` first), social logins (the provider's ID token, or the proxy's `oauth2_authenticate` for Discord and
/// X, whose nonce binds it to the session key), and the TOTP extension. `wallet_kit_config` comes first: it says
/// which methods are on and what a code looks like.
public final class TurnkeySignIn: SignInBackend, Sendable {
    /// Resolves the provider leg of a social login, given the client id the proxy expects (nil: the configured one).
    public typealias ProviderLeg = @Sendable (_ clientID: String?) throws(SignInError) -> ResolvedProvider

    public let request: SignInRequest
    public let client: TurnkeyProxyClient
    /// Google and Apple: the proxy's hosted redirect (an `id_token` comes back) instead of a code exchange.
    public let hostedOrigin: String?
    /// Why this flow runs for Google and Apple (`oauthFlow` set, or whether a client secret is configured), told as
    /// the attempt begins.
    public let oauthFlowReason: String?
    /// config.json's `secondaryClientIDs`: registered as more OIDC audiences when a sign-up creates the account.
    public let secondaryClientIDs: [String]
    /// config.json's `additionalState`: appended to the request's `state`, and so checked on the redirect.
    public let additionalState: [String: String]
    private let resolveProvider: ProviderLeg?
    private let metadata: ProviderMetadataCache?
    private let clock: @Sendable () -> Date

    /// One attempt's values, set by `method` and `makeAttempt`, read by the later calls (on other threads).
    private struct AttemptValues {
        var walletKit: TurnkeyProxyClient.WalletKitConfig?
        var provider: ResolvedProvider?
        var key: P256PrivateKey?
        var kind = SignInKind.login
        var identity = Identity()
        /// A new social account waiting for its email's code before `oauth_login` (Para's verification step).
        var newAccount: (oidcToken: String, organizationID: String?)?
        /// Each otpId's encryption target from `otp_init_v2`; an otpId without one was sent through v1.
        var targetBundles: [String: String] = [:]
    }
    private let attemptValues = Mutex(AttemptValues())

    /// Who the user is, as far as the attempt learned it: for the session's record and the TOTP prompt.
    private struct Identity {
        var email: String?
        var phone: String?
        var name: String?
    }

    /// Turnkey's hosted OAuth pages, the SDK's defaults.
    public static let defaultOAuthOrigin = "https://oauth-origin.turnkey.com"
    public static let defaultOAuthRedirect = "https://oauth-redirect.turnkey.com"

    /// - Parameter provider: for social logins, resolves the provider's endpoints and client (after
    ///   `wallet_kit_config`, so its `oauthClientIds` can name the client); nil for email and SMS.
    /// - Parameter hostedOrigin: for Google and Apple, the hosted OAuth origin page to start at (the SDK's default
    ///   flow); nil runs the code exchange with the configured client.
    public init(
        request: SignInRequest, client: TurnkeyProxyClient, provider: ProviderLeg? = nil,
        metadata: ProviderMetadataCache? = nil, hostedOrigin: String? = nil, oauthFlowReason: String? = nil,
        secondaryClientIDs: [String] = [], additionalState: [String: String] = [:],
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.secondaryClientIDs = secondaryClientIDs
        self.additionalState = additionalState
        self.request = request
        self.client = client
        self.hostedOrigin = hostedOrigin
        self.oauthFlowReason = oauthFlowReason
        self.resolveProvider = provider
        self.metadata = metadata
        self.clock = clock
    }

    private var sendsCode: Bool { request.provider.sendsCode }

    /// Whether this attempt goes through the proxy's hosted redirect.
    private var hosted: Bool { hostedOrigin != nil && [Provider.google, .apple].contains(request.provider) }

    public var waitsForRedirect: Bool { !sendsCode && completion == nil }

    /// `completeOAuth`: the OIDC token obtained elsewhere and the pending session key its nonce is bound to.
    private var completion: (oidcToken: String, sessionKey: [UInt8])? {
        guard case .complete(let oidcToken, let sessionKey) = request.oidcStep else { return nil }
        return (oidcToken, sessionKey)
    }

    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        let config = try client.walletKitConfig()
        // enabledProviders names the SDK's helper providers; any other OIDC issuer's token goes to oauth_login as
        // Turnkey takes it from any OIDC provider, and the proxy decides there.
        guard request.provider == .oidc || config.enables(request.provider.name) else {
            throw .authMethodUnavailable(method: title)
        }
        attemptValues.withLock { $0.walletKit = config }
        if sendsCode {
            guard let contact = request.contact, request.provider.accepts(contact) else {
                throw .invalidContact
            }
            return .oneTimeCode(contact: contact, format: config.otpFormat, otpID: nil)
        }
        // No provider leg: nothing to wait for but the proxy's answer.
        if completion != nil { return .device }
        guard request.provider.isOfferedByAuthProxy, let resolveProvider else {
            throw .authMethodUnavailable(method: "\(title) through the turnkey backend")
        }
        if request.useDevice { throw .authMethodUnavailable(method: "\(title) device") }
        let resolved = try resolveProvider(config.oauthClientIDs[request.provider.name])
        attemptValues.withLock { $0.provider = resolved }
        if hosted {
            // The hosted page sends the id_token on to the app's scheme, as the SDK's redirect URI asks.
            let base = config.oauthRedirectURL ?? Self.defaultOAuthRedirect
            return .browser(redirectURI: base + (base.contains("?") ? "&" : "?") + "scheme=authdeck")
        }
        return try resolved.browserMethod(loopbackRedirectURI: loopbackRedirectURI)
    }

    /// Which flow runs for Google and Apple; for Discord and X, the redirect URI that must be registered.
    public func notes(for attempt: Attempt, randomPort: Bool) -> [String] {
        guard case .browser = attempt.method, let provider = attemptValues.withLock({ $0.provider }) else { return [] }
        let reason = oauthFlowReason.map { " (\($0))" } ?? ""
        if hosted, let hostedOrigin {
            return [
                "\(title) signs in through the auth proxy's hosted pages at \(hostedOrigin), oauthFlow hosted\(reason)"
            ]
        }
        var notes = provider.redirectNotes(for: attempt, randomPort: randomPort)
        if [Provider.google, .apple].contains(request.provider) {
            notes.insert(
                "\(title) signs in with authdeck's own client \(provider.clientID), oauthFlow code\(reason)", at: 0)
        }
        return notes
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        do {
            // A fresh session key per attempt: the proxy binds the session (and, for social logins, the ID token's
            // nonce) to it, so a key is never reused across sign-ins.
            let sessionKey: P256PrivateKey
            if let completion {
                sessionKey = try P256PrivateKey(rawRepresentation: completion.sessionKey)
            } else {
                sessionKey = try P256PrivateKey()
            }
            let publicKey = sessionKey.publicKey.compressedHex
            let pkce = PKCE(randomBytes: try SecureRandom.bytes(32))
            let state = Self.state(
                random: AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16)), additional: additionalState)
            attemptValues.withLock {
                $0.key = sessionKey
                $0.kind = .login
                $0.identity = Identity()
                $0.newAccount = nil
            }
            let nonce = sendsCode ? nil : AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: publicKey)
            var attempt = Attempt(
                id: id, backend: request.backendName, provider: request.provider, method: method,
                state: state, codeVerifier: pkce.verifier, nonce: nonce,
                sessionPublicKeyHex: publicKey, deadline: deadline)
            // The hosted redirect may not hand `state` back; its id_token is bound to this key by the nonce. With
            // additionalState, `state` must come back: its pairs are what the redirect is checked for.
            attempt.acceptsStatelessRedirect = hosted && additionalState.isEmpty
            return attempt
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        switch attempt.method {
        case .oneTimeCode(let contact, _, _):
            return .codeSent(otpID: try startOTP(contact))
        case .browser(let redirectURI):
            let provider = try resolvedProvider()
            if let hostedOrigin, hosted, let nonce = attempt.nonce {
                // The SDK's buildOAuthURL also adds each additionalState pair as a query item of its own.
                let query = FormEncoding.encode(
                    [
                        ("provider", request.provider.name), ("clientId", provider.clientID),
                        ("redirectUri", redirectURI), ("nonce", nonce), ("state", attempt.state),
                    ] + additionalState.sorted { $0.key < $1.key })
                return .browser(url: hostedOrigin + (hostedOrigin.contains("?") ? "&" : "?") + query)
            }
            // Discord and X issue no ID token, so the nonce goes to the proxy's oauth2_authenticate instead.
            // Through the proxy the provider's own tokens are never kept, so no refresh token is asked for: X's preset
            // `offline.access` is left out, as the SDK asks `tweet.read users.read` (scopes set in config.json stay).
            let scopes =
                provider.scopes == provider.preset.scopes
                ? provider.scopes.filter { $0 != "offline.access" } : provider.scopes
            let authorize = AuthorizationRequest(
                endpoint: provider.endpoints.authorization, clientID: provider.clientID, redirectURI: redirectURI,
                scopes: scopes, state: attempt.state,
                codeChallenge: PKCE.challenge(for: attempt.codeVerifier),
                nonce: provider.preset.idToken ? attempt.nonce : nil, responseMode: provider.preset.responseMode,
                extraParameters: provider.extraAuthorizeParameters, options: provider.authorizationOptions)
            return .browser(url: try authorize.url())
        case .device:
            guard completion != nil else { throw .authMethodUnavailable(method: "\(title) device") }
            return .tokenRequest(grant: "oauth_login")
        }
    }

    /// `completeOAuth(oidcToken:publicKey:)`: the token obtained elsewhere goes to the proxy with the pending key,
    /// its claims read only to name the user (the proxy verifies it).
    public func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer? {
        guard let completion else { throw .authMethodUnavailable(method: "\(title) device") }
        let claims = Self.unverifiedClaims(completion.oidcToken)
        attemptValues.withLock {
            $0.identity.email = claims["email"]?.string
            $0.identity.name = claims["name"]?.string
        }
        return try login(oidcToken: completion.oidcToken, providerName: request.provider.name)
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        guard case .browser(let redirectURI) = attempt.method, let nonce = attempt.nonce else {
            throw .callbackIncomplete
        }
        let provider = try resolvedProvider()
        let oidcToken: String
        if hosted {
            // The hosted redirect's answer is the id_token itself; its nonce binds it to this attempt's key.
            guard case .idToken(let idToken) = grant else { throw .callbackIncomplete }
            try checkIDToken(idToken, provider: provider, nonce: nonce)
            oidcToken = idToken
            return try login(oidcToken: oidcToken, providerName: provider.preset.name)
        }
        // Tokens in the redirect would skip PKCE; only a code is accepted.
        guard case .authorizationCode(let code) = grant else { throw .callbackIncomplete }
        if provider.preset.idToken {
            let oauth = OAuthClient(
                transport: client.transport, clientID: provider.clientID,
                authentication: provider.authentication)
            let tokens = try oauth.exchange(
                code: code, verifier: attempt.codeVerifier, redirectURI: redirectURI,
                endpoint: provider.endpoints.token)
            guard let idToken = tokens.idToken else { throw .invalidIdToken(reason: "the provider sent no ID token") }
            try checkIDToken(idToken, provider: provider, nonce: nonce)
            oidcToken = idToken
        } else {
            oidcToken = try client.oauth2Authenticate(
                provider: provider.preset.name, authCode: code, redirectURI: redirectURI,
                codeVerifier: attempt.codeVerifier, clientID: provider.clientID, nonce: nonce)
            // The proxy signed this token; its claims only name the user for the record.
            let claims = Self.unverifiedClaims(oidcToken)
            attemptValues.withLock {
                $0.identity.email = claims["email"]?.string
                $0.identity.name = claims["name"]?.string
            }
        }
        return try login(oidcToken: oidcToken, providerName: provider.preset.name)
    }

    /// `account` → (`signup`) → `oauth_login` for a proven social identity; `--oidc-token-only` stops before them.
    private func login(oidcToken: String, providerName: String) throws(SignInError) -> BackendAnswer {
        if request.oidcStep == .stopAtToken { return .issued(try tokenOnly(oidcToken)) }
        var organizationID = try client.account(filterType: "OIDC_TOKEN", filterValue: oidcToken)
        if organizationID == nil {
            organizationID = try client.signupV2(
                oidcToken: oidcToken, providerName: TurnkeyProxyClient.signupProviderName(providerName),
                secondaryClientIDs: secondaryClientIDs, now: clock())
            attemptValues.withLock { $0.kind = .signup }
            // Para's branch (seed 001): a new user verifies the email the provider named before the session is
            // issued; the login waits on the code screen.
            if let email = attemptValues.withLock({ $0.identity.email }),
                let contact = try? Contact.validatedEmail(email)
            {
                let otpID = try startOTP(contact)
                // wallet_kit_config came first and named the code's shape; six digits is Turnkey's default.
                let format = attemptValues.withLock { values in
                    values.newAccount = (oidcToken, organizationID)
                    return values.walletKit?.otpFormat ?? .totp
                }
                return .codeRequired(contact: contact, format: format, otpID: otpID)
            }
        }
        let answer = try client.oauthLogin(
            oidcToken: oidcToken, publicKey: try sessionKey().publicKey.compressedHex,
            organizationID: organizationID)
        return try backendAnswer(answer)
    }

    public func verifyCode(_ attempt: Attempt, otpID: String, code: String) throws(SignInError) -> BackendAnswer {
        guard case .oneTimeCode(let contact, _, _) = attempt.method else { throw .invalidCode }
        let key = try sessionKey()
        // The SDK's routes (v2) when otp_init_v2 answered; a proxy that has only v1 keeps v1 throughout.
        let bundle = attemptValues.withLock { $0.targetBundles[otpID] }
        let verificationToken: String
        if let bundle {
            verificationToken = try client.verifyOTP(
                otpID: otpID, code: code, targetBundle: bundle, publicKey: key.publicKey.compressedHex)
        } else {
            verificationToken = try client.verifyOTP(
                otpID: otpID, code: code, publicKey: key.publicKey.compressedHex, keepsCodeStep: true)
        }
        // Para's branch: the new social account's email is proven; its session comes from oauth_login.
        if let newAccount = attemptValues.withLock({ $0.newAccount }) {
            attemptValues.withLock { $0.newAccount = nil }
            return try backendAnswer(
                try client.oauthLogin(
                    oidcToken: newAccount.oidcToken, publicKey: key.publicKey.compressedHex,
                    organizationID: newAccount.organizationID))
        }
        attemptValues.withLock {
            switch contact {
            case .email(let address): $0.identity.email = address
            case .phone(let number): $0.identity.phone = number
            }
        }
        let filterType = TurnkeyProxyClient.isEmail(contact) ? "EMAIL" : "PHONE_NUMBER"
        var organizationID = try client.account(
            filterType: filterType, filterValue: contact.value,
            verificationToken: verificationToken)
        if organizationID == nil {
            // The Para flow: a contact without an account signs up first, and the result says so.
            if bundle == nil {
                organizationID = try client.signup(contact: contact, verificationToken: verificationToken, key: key)
            } else {
                organizationID = try client.signupV2(
                    contact: contact, verificationToken: verificationToken, key: key, now: clock())
            }
            attemptValues.withLock { $0.kind = .signup }
        }
        guard bundle == nil else {
            return try backendAnswer(try client.otpLoginV2(verificationToken: verificationToken, key: key))
        }
        let answer = try client.otpLogin(
            verificationToken: verificationToken, key: key,
            organizationID: organizationID)
        return try backendAnswer(answer)
    }

    public func verifyTOTP(_ attempt: Attempt, userJwt: String, code: String) throws(SignInError) -> BackendAnswer {
        .issued(try session(try client.verifyTOTP(userJwt: userJwt, code: code)))
    }

    public func resendCode(_ attempt: Attempt) throws(SignInError) -> String {
        guard case .oneTimeCode(let contact, _, _) = attempt.method else {
            throw .authMethodUnavailable(method: "one-time code")
        }
        return try startOTP(contact)
    }

    /// `otp_init_v2` (or v1), keeping the otpId's encryption target for the code typed later.
    private func startOTP(_ contact: Contact) throws(SignInError) -> String {
        let start = try client.startOTP(contact: contact)
        attemptValues.withLock { $0.targetBundles[start.otpID] = start.targetBundle }
        return start.otpID
    }

    // MARK: - Helpers

    /// The request's `state`: the attempt's random value, then each additionalState pair as `&key=value`, both
    /// sides percent-encoded, in key order (tkhq/sdk's buildOAuthState appends them the same way).
    static func state(random: String, additional: [String: String]) -> String {
        let pairs = additional.sorted { $0.key < $1.key }.map {
            FormEncoding.escape($0.key) + "=" + FormEncoding.escape($0.value)
        }
        return ([random] + pairs).joined(separator: "&")
    }

    /// config.json's additionalState as it may be sent: up to 16 pairs with non-empty keys, 512 characters encoded;
    /// anything else is one line naming the setting, before anything is sent.
    static func checkedAdditionalState(
        _ pairs: [String: String]?, provider: String
    ) throws(SignInError) -> [String: String] {
        let pairs = pairs ?? [:]
        let encoded = state(random: "", additional: pairs)
        guard pairs.count <= 16, !pairs.keys.contains(where: \.isEmpty), encoded.utf8.count <= 512 else {
            throw .unavailable(
                reason: "config.json: providers.\(provider).additionalState takes up to 16 pairs with non-empty keys "
                    + "and 512 characters")
        }
        return pairs
    }

    private var title: String { request.provider.title }

    private func resolvedProvider() throws(SignInError) -> ResolvedProvider {
        guard let provider = attemptValues.withLock({ $0.provider }) else {
            throw .unavailable(reason: "the provider was not resolved before the attempt began")
        }
        return provider
    }

    private func sessionKey() throws(SignInError) -> P256PrivateKey {
        guard let key = attemptValues.withLock({ $0.key }) else {
            throw .unavailable(reason: "the attempt has no session key")
        }
        return key
    }

    /// The provider's ID token is checked before the proxy sees it, so a token for another client or attempt is
    /// refused here with a reason rather than by the proxy without one.
    private func checkIDToken(_ idToken: String, provider: ResolvedProvider, nonce: String) throws(SignInError) {
        if let metadata, let jwks = provider.endpoints.jwks {
            var verifier = IDTokenVerifier(
                issuer: provider.endpoints.issuer, clientID: provider.clientID,
                nonce: nonce)
            verifier.maxAge = provider.authorizationOptions.maxAge
            verifier.acrValues = provider.authorizationOptions.acrValues
            let claims = try metadata.verify(idToken, with: verifier, jwksURL: jwks, now: clock())
            attemptValues.withLock {
                $0.identity.email = claims.email
                $0.identity.name = claims.name
            }
        } else {
            if provider.authorizationOptions.checksIDToken {
                throw .invalidIdToken(reason: "max_age and acr_values need the provider's JWKS to check the ID token")
            }
            let claims = Self.unverifiedClaims(idToken)
            guard claims["nonce"]?.string == nonce else { throw .invalidIdToken(reason: "nonce mismatch") }
            attemptValues.withLock {
                $0.identity.email = claims["email"]?.string
                $0.identity.name = claims["name"]?.string
            }
        }
    }

    /// The SDK's `onOAuthSuccess`: the OIDC token and the session key its nonce is bound to, as a "session" the
    /// front end keeps pending instead of storing (`SignInKind.oidcTokenOnly`).
    private func tokenOnly(_ oidcToken: String) throws(SignInError) -> IssuedSession {
        let key = try sessionKey()
        let claims = Self.unverifiedClaims(oidcToken)
        let known = attemptValues.withLock { $0.identity }
        let now = clock()
        let subject = claims["sub"]?.string ?? ""
        let record = SessionRecord(
            key: request.sessionKey
                ?? SessionKeyName.generated(
                    provider: request.provider, user: known.email ?? known.name ?? subject),
            backend: request.backendName, provider: request.provider.name, subject: subject, email: known.email,
            phone: nil, displayName: known.name, issuer: claims["iss"]?.string ?? client.baseURL, createdAt: now,
            expiresAt: claims["exp"]?.integer.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            refreshable: false, scopes: [])
        let secrets = SessionSecrets(idToken: oidcToken, privateKeyHex: Hex.encode(key.rawRepresentation))
        return IssuedSession(session: Session(record: record, secrets: secrets), kind: .oidcTokenOnly)
    }

    private func backendAnswer(_ answer: TurnkeyProxyClient.LoginAnswer) throws(SignInError) -> BackendAnswer {
        switch answer {
        case .session(let jwt):
            return .issued(try session(jwt))
        case .totpRequired(let userJwt, let link):
            let user = attemptValues.withLock { $0.identity.email ?? $0.identity.phone ?? $0.identity.name }
            return .totpRequired(TOTPChallenge(userJwt: userJwt, enrolmentLink: link, user: user))
        }
    }

    /// The proxy's session JWT as a stored session. Its claims are read without verifying (the proxy's key is not
    /// known to the client), but a session bound to another key than this attempt's is refused: it could not be
    /// used, and storing it would hide that.
    func session(_ jwt: String) throws(SignInError) -> IssuedSession {
        let key = try sessionKey()
        let claims = Self.unverifiedClaims(jwt)
        guard case .object = claims else {
            throw .authenticationFailed(providerError: "the auth proxy's session is not a JWT")
        }
        guard let boundKey = claims["public_key"]?.string,
            ConstantTime.equals(boundKey.lowercased(), key.publicKey.compressedHex)
        else {
            throw .authenticationFailed(providerError: "the auth proxy's session is bound to another key")
        }
        guard let userID = claims["user_id"]?.string ?? claims["organization_id"]?.string, !userID.isEmpty else {
            throw .authenticationFailed(providerError: "the auth proxy's session names no user")
        }
        let now = clock()
        let lifetime = attemptValues.withLock { $0.walletKit?.sessionExpirationSeconds }
        let expiresAt =
            claims["exp"]?.integer.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            ?? lifetime.map { now.addingTimeInterval(TimeInterval($0)) }
        if let expiresAt, expiresAt <= now {
            throw .authenticationFailed(providerError: "the auth proxy issued a session that has already expired")
        }
        let (known, kind) = attemptValues.withLock { ($0.identity, $0.kind) }
        let label = known.email ?? known.phone ?? known.name ?? userID
        let record = SessionRecord(
            key: request.sessionKey ?? SessionKeyName.generated(provider: request.provider, user: label),
            backend: request.backendName, provider: request.provider.name, subject: userID, email: known.email,
            phone: known.phone, displayName: known.name, issuer: claims["iss"]?.string ?? client.baseURL,
            createdAt: now, expiresAt: expiresAt, refreshable: false,
            scopes: claims["session_type"]?.string.map { [$0] } ?? [])
        let secrets = SessionSecrets(sessionJwt: jwt, privateKeyHex: Hex.encode(key.rawRepresentation))
        return IssuedSession(session: Session(record: record, secrets: secrets), kind: kind)
    }

    static func unverifiedClaims(_ jwt: String) -> JSONValue {
        guard let parts = try? JWS.decodeUnverified(jwt), let claims = try? JSONValue.parse(parts.payload) else {
            return .null
        }
        return claims
    }
}
