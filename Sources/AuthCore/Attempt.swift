import Foundation

/// Identifies one sign-in attempt for its whole life, so late events of an old attempt can be told apart.
public struct AttemptID: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    public var description: String { "#\(value)" }
}

/// How an attempt waits for the outside world.
public enum SignInMethod: Equatable, Sendable {
    /// A browser redirect (loopback, custom scheme or pasted URL) to `redirectURI`.
    case browser(redirectURI: String)
    /// The device authorization grant: the user approves elsewhere while the caller polls.
    case device
    /// A one-time code sent to `contact`; `otpID` is known once the backend confirmed sending it.
    case oneTimeCode(contact: Contact, format: OTPCodeFormat, otpID: String?)
}

/// Everything one sign-in attempt is made of, fixed when it starts; only the OTP id, the next resend time and
/// whether a stateless redirect was taken change while it runs.
public struct Attempt: Equatable, Sendable {
    public let id: AttemptID
    public let backend: String
    public let provider: Provider
    public var method: SignInMethod
    /// The OAuth `state`: 128 random bits, base64url, single-use.
    public let state: String
    /// The PKCE code verifier (32 random bytes, base64url).
    public let codeVerifier: String
    /// The OIDC nonce; for the turnkey backend, bound to the session public key.
    public let nonce: String?
    /// Compressed P-256 session public key (66 hex), for backends that bind sessions to a key.
    public let sessionPublicKeyHex: String?
    public let deadline: Date
    /// When a resend of the one-time code is allowed next.
    public var resendAvailableAt: Date?
    /// The backend's redirect carries no app-side `state` (Portal; the Auth Proxy's hosted redirect), so one
    /// redirect without it is taken while the attempt waits, once. The grant is still checked by the backend
    /// (a single-use token, or an ID token whose nonce is bound to this attempt's session key).
    public var acceptsStatelessRedirect = false
    /// Nothing binds this backend's stateless grant to the attempt (Portal's one-time token): any web page the user
    /// has open, or another program, could deliver one for an account of its own (login CSRF). A session from such
    /// a redirect without `state` is stored only once the user has seen whom it signs in and kept it.
    public var confirmsStatelessSession = false
    /// Set by the machine when it took a redirect without `state` for an attempt that `confirmsStatelessSession`.
    public internal(set) var awaitsIdentityConfirmation = false
    /// The SHA-256 of the Portal token the attempt exchanged, set by the machine: a re-delivery of that redirect
    /// replays the step or result it led to (as PortalSwift's `handleRedirect` keys its memory on the token), never
    /// a second exchange. The digest, not the token, so the spent credential is not kept.
    public internal(set) var exchangedTokenDigest: [UInt8]?
    /// The issuer the authorization request went to: a redirect's `iss` must be exactly this (RFC 9207 2.4).
    /// Nil for backends whose redirect does not come from an OAuth authorization server.
    public var expectedIssuer: String?
    /// The issuer's discovery says `authorization_response_iss_parameter_supported`: a redirect without `iss`
    /// is then refused as coming from another issuer (RFC 9207 2.4).
    public var requiresIssuer = false

    public init(
        id: AttemptID, backend: String, provider: Provider, method: SignInMethod, state: String,
        codeVerifier: String, nonce: String?, sessionPublicKeyHex: String? = nil, deadline: Date,
        resendAvailableAt: Date? = nil
    ) {
        self.id = id
        self.backend = backend
        self.provider = provider
        self.method = method
        self.state = state
        self.codeVerifier = codeVerifier
        self.nonce = nonce
        self.sessionPublicKeyHex = sessionPublicKeyHex
        self.deadline = deadline
        self.resendAvailableAt = resendAvailableAt
    }
}

/// What a backend answers when identity is proven but a TOTP code is still needed.
public struct TOTPChallenge: Equatable, Sendable {
    /// The backend's handle for the pending sign-in (Portal's userJwt, the proxy's userJwt).
    public let userJwt: String
    /// An `otpauth://` link when the user has not enrolled yet.
    public let enrolmentLink: String?
    /// The user the backend named, to offer a stored test-account code.
    public let user: String?
    public var attemptsLeft: Int

    public init(userJwt: String, enrolmentLink: String? = nil, user: String? = nil, attemptsLeft: Int = 5) {
        self.userJwt = userJwt
        self.enrolmentLink = enrolmentLink
        self.user = user
        self.attemptsLeft = attemptsLeft
    }

    /// Who the prompt names: the enrolment link's account (an email) where the backend gives only an id (Portal's
    /// UUID), else the backend's name for the user. The TUI and `login` name the person the same way.
    public var shownUser: String? {
        OTPAuthAccount.account(in: enrolmentLink) ?? user
    }
}

/// Whether the backend logged an existing account in or created one (the Para new-versus-existing flow).
public enum SignInKind: String, Equatable, Sendable, Codable {
    case login, signup
    /// `login --oidc-token-only` (Turnkey's `onOAuthSuccess`): the sign-in stopped at the provider's OIDC token; the
    /// "session" carries only that token and its session key, which the store keeps pending, not as a session.
    case oidcTokenOnly
}

/// The result of a sign-in that reached the store.
public struct SignInOutcome: Equatable, Sendable {
    public let record: SessionRecord
    public let kind: SignInKind

    public init(record: SessionRecord, kind: SignInKind) {
        self.record = record
        self.kind = kind
    }
}

/// A session a backend issued, not yet persisted.
public struct IssuedSession: Equatable, Sendable {
    public let session: Session
    public let kind: SignInKind

    public init(session: Session, kind: SignInKind) {
        self.session = session
        self.kind = kind
    }
}

/// The parameters a redirect brought back, from a query string or a form body.
public struct Callback: Equatable, Sendable {
    public var code: String?
    public var state: String?
    public var error: String?
    public var errorDescription: String?
    public var idToken: String?
    /// Portal's one-time `token` parameter.
    public var token: String?
    /// Portal's `login_type` (`GOOGLE`, `APPLE`): the sign-in method a `token` is for, without which PortalSwift
    /// exchanges nothing.
    public var loginType: String?
    /// The authorization server's issuer identifier (RFC 9207 `iss`), on success and error responses alike.
    public var issuer: String?
    /// A JWT-secured authorization response (JARM's `response`): its parameters count only once verified.
    public var response: String?
    /// Portal's marker of a magic link's redirect (`authMethod=EMAIL_MAGIC_LINK`): its token is exchanged at
    /// `/magic-links/validations`, not `/oauth/tokens`.
    public var authMethod: String?

    public init(
        code: String? = nil, state: String? = nil, error: String? = nil, errorDescription: String? = nil,
        idToken: String? = nil, token: String? = nil, issuer: String? = nil, response: String? = nil,
        loginType: String? = nil
    ) {
        self.code = code
        self.state = state
        self.error = error
        self.errorDescription = errorDescription
        self.idToken = idToken
        self.token = token
        self.issuer = issuer
        self.response = response
        self.loginType = loginType
    }
}

/// What a valid callback lets the caller exchange for a session.
public enum Grant: Equatable, Sendable {
    case authorizationCode(String)
    /// An ID token delivered straight in the redirect (implicit-style `id_token`).
    case idToken(String)
    /// Portal's one-time token.
    case portalToken(String)
    /// Portal's one-time token from a magic link's redirect (marked `authMethod=EMAIL_MAGIC_LINK`).
    case portalMagicLinkToken(String)
}
