import AuthCore
import AuthCrypto
import Foundation

/// The `portal` backend: Portal runs the provider leg itself. authdeck asks for the provider URL with its loopback
/// redirect and its own `state`, the browser comes back with a one-time `token`, which is exchanged for a client
/// session token, or for a TOTP challenge first when the user has a second factor.
public final class PortalSignIn: SignInBackend, @unchecked Sendable {
    public let request: SignInRequest
    public let client: PortalClient
    private let clock: @Sendable () -> Date

    public init(request: SignInRequest, client: PortalClient, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.request = request
        self.client = client
        self.clock = clock
    }

    public var waitsForRedirect: Bool { true }

    private var title: String {
        request.provider.prefix(1).uppercased() + request.provider.dropFirst()
    }

    public func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod {
        if request.useDevice { throw .authMethodUnavailable(method: "\(title) device") }
        let offered = try client.methods()
        guard offered.contains(where: { $0.caseInsensitiveCompare(request.provider) == .orderedSame }) else {
            throw .authMethodUnavailable(method: title)
        }
        guard let loopbackRedirectURI else {
            throw .unavailable(reason: "no redirect URI: the loopback receiver is not running")
        }
        return .browser(redirectURI: loopbackRedirectURI)
    }

    public func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt {
        do {
            // Portal keeps the provider's PKCE verifier itself; the attempt's is drawn only because every attempt
            // has one, and never leaves this process.
            let pkce = PKCE(randomBytes: try SecureRandom.bytes(32))
            let state = AttemptSecrets.state(randomBytes: try SecureRandom.bytes(16))
            return Attempt(id: id, backend: request.backendName, provider: request.provider, method: method,
                           state: state, codeVerifier: pkce.verifier, nonce: nil, deadline: deadline)
        } catch {
            throw .unavailable(reason: error.description)
        }
    }

    public func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt {
        guard case .browser(let redirectURI) = attempt.method else {
            throw .authMethodUnavailable(method: "\(title) without a browser")
        }
        let urls = try client.oauthURLs(redirectURL: redirectURI, state: attempt.state)
        guard let url = urls.first(where: { $0.key.caseInsensitiveCompare(request.provider) == .orderedSame })?.value
        else {
            throw .authMethodUnavailable(method: title)
        }
        return .browser(url: url)
    }

    public func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer {
        guard case .portalToken(let token) = grant else {
            // Portal's redirect brings a one-time token; a code or ID token is not its answer.
            throw .callbackIncomplete
        }
        let tokens = try client.exchange(token: token)
        if tokens.clientSessionToken != nil { return .issued(try session(tokens)) }
        guard let userJwt = tokens.userJwt else { throw .callbackIncomplete }
        return .totpRequired(TOTPChallenge(userJwt: userJwt, enrolmentLink: tokens.totpLink, user: tokens.endUserID))
    }

    public func verifyTOTP(_ attempt: Attempt, userJwt: String, code: String) throws(SignInError) -> BackendAnswer {
        .issued(try session(try client.validateTOTP(userJwt: userJwt, code: code)))
    }

    func session(_ tokens: PortalClient.Tokens) throws(SignInError) -> IssuedSession {
        guard let sessionToken = tokens.clientSessionToken else { throw .callbackIncomplete }
        let now = clock()
        // Portal says nothing of the session's lifetime; the record leaves it unknown rather than guess.
        let record = SessionRecord(
            key: request.sessionKey ?? SessionKeyName.generated(provider: request.provider, user: tokens.endUserID),
            backend: request.backendName, provider: request.provider, subject: tokens.endUserID,
            issuer: client.baseURL, createdAt: now, expiresAt: nil, refreshable: false)
        return IssuedSession(session: Session(record: record, secrets: SessionSecrets(sessionJwt: sessionToken)),
                             kind: .login)
    }
}
