import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// The `portal` backend: Portal runs the provider leg itself. authdeck asks for the provider URL with its redirect
/// URL (allow-listed for the environment byte for byte: a fixed loopback port or `authdeck://`), the browser comes
/// back with a one-time `token` (and `login_type`), which is exchanged for a client session token, or for a TOTP
/// challenge first when the user has a second factor. `login email-link` sends Portal's magic link to the contact
/// instead; the redirect it leads to comes back to the same URL marked `authMethod=EMAIL_MAGIC_LINK`, and its token
/// goes to `/magic-links/validations`.
///
/// Portal's redirect carries no app-side `state` (its own `state` binds the provider to Portal, not authdeck to
/// Portal). So one redirect without state is taken while the attempt waits, once; what remains is the login-CSRF
/// risk every Portal SDK shares: a web page or program that knows the fixed redirect URL could deliver a token of
/// its own account first. The loopback receiver takes only this user's sockets and the browser's own navigations,
/// and the session is stored only once the user has seen whom it signs in and kept it
/// (`Attempt.confirmsStatelessSession`).
public final class PortalSignIn: SignInBackend, Sendable {
    public let request: SignInRequest
    public let client: PortalClient
    /// The allow-listed redirect URL (config.json's `redirectURL`).
    public let redirectURL: String?
    /// The sender and template a magic link is sent with (config.json's `magicLinkFromEmail`,
    /// `magicLinkTemplateID`); nil when the backend has none.
    public let magicLink: MagicLink?
    private let clock: @Sendable () -> Date
    /// Who the TOTP enrolment link named (an email or a name): Portal otherwise knows the user only by a UUID.
    private let learnedAccount = Mutex<String?>(nil)

    /// PortalSwift's `MagicLinkConfig`: both are checked by Portal against the environment.
    public struct MagicLink: Equatable, Sendable {
        public var fromEmail: String
        public var templateID: String

        public init(fromEmail: String, templateID: String) {
            self.fromEmail = fromEmail
            self.templateID = templateID
        }
    }

    public init(
        request: SignInRequest, client: PortalClient, redirectURL: String?, magicLink: MagicLink? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.request = request
        self.client = client
        self.redirectURL = redirectURL
        self.magicLink = magicLink
        self.clock = clock
    }

    public var waitsForRedirect: Bool { true }

    private var title: String { request.provider.title }

    /// `login email-link`: a magic link to the contact instead of a provider's page.
    private var sendsLink: Bool { request.provider == .emailLink }

    /// The method as Portal names it in `allowedAuthMethods`: `GOOGLE`, `APPLE`, `EMAIL_MAGIC_LINK`.
    private var portalMethod: String { sendsLink ? "EMAIL_MAGIC_LINK" : request.provider.name.uppercased() }

    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        if request.useDevice { throw .authMethodUnavailable(method: "\(title) device") }
        if sendsLink, magicLink == nil {
            throw .unavailable(
                reason: "an email link needs magicLinkFromEmail and magicLinkTemplateID in config.json, "
                    + "as the environment names its sender and template")
        }
        let offered = try client.methods()
        // Portal names methods in capitals (`GOOGLE`, `APPLE`); authdeck's provider names are lower case.
        guard offered.contains(where: { $0.caseInsensitiveCompare(portalMethod) == .orderedSame }) else {
            throw .authMethodUnavailable(method: title)
        }
        // Portal matches the redirect URL byte for byte against the environment's allow-list, so a port picked
        // at random can never match: the URL is configured, and a loopback one must be where the receiver listens.
        guard let redirectURL else {
            throw .unavailable(
                reason: "the portal backend needs redirectURL in config.json, exactly as the "
                    + "environment allow-lists it: authdeck://callback or http://127.0.0.1:PORT/callback")
        }
        if redirectURL.hasPrefix("http://") {
            guard let loopbackRedirectURI, loopbackRedirectURI == redirectURL else {
                throw .unavailable(
                    reason: "the allow-listed redirect URL \(redirectURL) needs the loopback receiver "
                        + "on its port: pass --listen with that address")
            }
        }
        return .browser(redirectURI: redirectURL)
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        do {
            // Portal keeps the provider's PKCE verifier itself; the attempt's is drawn only because every attempt
            // has one, and never leaves this process.
            let pkce = PKCE(randomBytes: try SecureRandom.bytes(32))
            let state = AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16))
            var attempt = Attempt(
                id: id, backend: request.backendName, provider: request.provider, method: method,
                state: state, codeVerifier: pkce.verifier, nonce: nil, deadline: deadline)
            attempt.acceptsStatelessRedirect = true
            attempt.confirmsStatelessSession = true
            return attempt
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        guard case .browser(let redirectURI) = attempt.method else {
            throw .authMethodUnavailable(method: "\(title) without a browser")
        }
        if sendsLink {
            guard let magicLink, case .email(let address)? = request.contact else { throw .invalidContact }
            try client.sendMagicLink(
                email: address, redirectURL: redirectURI, fromEmail: magicLink.fromEmail,
                templateID: magicLink.templateID)
            return .linkSent(contact: .email(address))
        }
        let urls = try client.oauthURLs(redirectURL: redirectURI)
        guard
            let url = urls.first(where: { $0.key.caseInsensitiveCompare(request.provider.name) == .orderedSame })?.value
        else {
            throw .authMethodUnavailable(method: title)
        }
        return .browser(url: url)
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        let tokens: PortalClient.Tokens
        switch grant {
        case .portalToken(let token) where !sendsLink: tokens = try client.exchange(token: token)
        case .portalMagicLinkToken(let token) where sendsLink: tokens = try client.validateMagicLink(token: token)
        case .portalToken, .portalMagicLinkToken, .authorizationCode, .idToken:
            // Portal's redirect brings a one-time token marked with the method that sent it (a magic link's
            // `authMethod`); a code, an ID token or another method's token is not this attempt's answer.
            throw .callbackIncomplete
        }
        if tokens.clientSessionToken != nil { return .issued(try session(tokens)) }
        guard let userJwt = tokens.userJwt else { throw .callbackIncomplete }
        if let account = OTPAuthAccount.account(in: tokens.totpLink) { learnedAccount.withLock { $0 = account } }
        return .totpRequired(TOTPChallenge(userJwt: userJwt, enrolmentLink: tokens.totpLink, user: tokens.endUserID))
    }

    /// A wrong code (any 401) keeps the code step: PortalSwift's `verifyTotp` says it does not spend the userJwt.
    /// Once the userJwt's `exp` has passed the step is over, and the sign-in must start again (no code is spent
    /// on it, and a 401 then is the expiry, not the code).
    public func verifyTOTP(_ attempt: Attempt, userJwt: String, code: String) throws(SignInError) -> BackendAnswer {
        if stepExpired(userJwt) { throw Self.expiredStep }
        do throws(SignInError) {
            return .issued(try session(try client.validateTOTP(userJwt: userJwt, code: code)))
        } catch .invalidCode where stepExpired(userJwt) {
            throw Self.expiredStep
        }
    }

    static let expiredStep = SignInError.authenticationFailed(
        providerError: "Portal's TOTP step expired before a code was accepted; sign in again")

    /// Whether the userJwt's `exp` claim (read unverified, as its `endUserId` is) has passed by this clock.
    private func stepExpired(_ userJwt: String) -> Bool {
        guard let expiry = TurnkeySignIn.unverifiedClaims(userJwt)["exp"]?.number else { return false }
        return clock().timeIntervalSince1970 >= expiry
    }

    func session(_ tokens: PortalClient.Tokens) throws(SignInError) -> IssuedSession {
        guard let sessionToken = tokens.clientSessionToken else { throw .callbackIncomplete }
        let now = clock()
        // Portal says nothing of the session's lifetime; the record leaves it unknown rather than guess. The person
        // is named by what the flow learned (the enrolment link's account), else by Portal's id.
        let account = learnedAccount.withLock { $0 }
        let email = account.flatMap { $0.contains("@") ? $0 : nil }
        let name = account.flatMap { $0.contains("@") ? nil : $0 }
        let record = SessionRecord(
            key: request.sessionKey
                ?? SessionKeyName.generated(provider: request.provider, user: account ?? tokens.endUserID),
            backend: request.backendName, provider: request.provider.name, subject: tokens.endUserID, email: email,
            displayName: name, issuer: client.baseURL, createdAt: now, expiresAt: nil, refreshable: false)
        var secrets = SessionSecrets(sessionJwt: sessionToken)
        secrets.portalClient = PortalClientInfo(
            clientID: tokens.clientID,
            isAccountAbstracted: tokens.isAccountAbstracted)
        return IssuedSession(session: Session(record: record, secrets: secrets), kind: .login)
    }
}
