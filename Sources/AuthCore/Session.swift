import Foundation

/// What the store keeps in clear text about one session: enough to list, choose and describe it
/// without the master key. Secrets live in `SessionSecrets`, encrypted.
public struct SessionRecord: Sendable, Equatable, Codable {
    /// Unique, user-chosen or generated; the Turnkey `sessionKey`.
    public var key: String
    /// Who issued the session: `direct`, `turnkey`, `portal`, `sandbox` or a configured backend's name.
    public var backend: String
    /// How the user proved who they are: `google`, `apple`, `discord`, `x`, `oidc`, `email`, `sms`.
    public var provider: String
    public var subject: String
    public var email: String?
    public var phone: String?
    public var displayName: String?
    public var issuer: String
    public var createdAt: Date
    /// When the access token (or session JWT) stops working; nil when unknown.
    public var expiresAt: Date?
    /// Whether a refresh token is held.
    public var refreshable: Bool
    public var scopes: [String]
    /// Refresh this session in the background while the TUI runs.
    public var autoRefresh: Bool
    /// When the store last wrote this session's tokens (sign-in, refresh); nil before it is stored, and for an
    /// imported session until its first refresh (its tokens' issue time is unknown). The token's lifetime, and so
    /// its refresh window, counts from here. Storing a record whose `storedAt` is `issueTimeUnknown` keeps it unknown.
    public var storedAt: Date?

    /// The `storedAt` that `store import` writes: the tokens came from elsewhere, so the window is the full minute.
    public static let issueTimeUnknown = Date(timeIntervalSince1970: 0)

    public init(
        key: String, backend: String, provider: String, subject: String, email: String? = nil,
        phone: String? = nil, displayName: String? = nil, issuer: String, createdAt: Date,
        expiresAt: Date?, refreshable: Bool, scopes: [String] = [], autoRefresh: Bool = false, storedAt: Date? = nil
    ) {
        self.key = key
        self.backend = backend
        self.provider = provider
        self.subject = subject
        self.email = email
        self.phone = phone
        self.displayName = displayName
        self.issuer = issuer
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.refreshable = refreshable
        self.scopes = scopes
        self.autoRefresh = autoRefresh
        self.storedAt = storedAt
    }

    /// Equal when everything but `storedAt` is: that is the store's bookkeeping, not part of what the session is (a
    /// record read back equals the one stored).
    public static func == (lhs: SessionRecord, rhs: SessionRecord) -> Bool {
        lhs.key == rhs.key && lhs.backend == rhs.backend && lhs.provider == rhs.provider && lhs.subject == rhs.subject
            && lhs.email == rhs.email && lhs.phone == rhs.phone && lhs.displayName == rhs.displayName
            && lhs.issuer == rhs.issuer && lhs.createdAt == rhs.createdAt && lhs.expiresAt == rhs.expiresAt
            && lhs.refreshable == rhs.refreshable && lhs.scopes == rhs.scopes && lhs.autoRefresh == rhs.autoRefresh
    }

    /// The name to show for the user: display name, else email, else phone, else subject.
    public var userLabel: String {
        displayName ?? email ?? phone ?? subject
    }

    /// What a machine session (client credentials: no user, the client is the subject) shows as its user, in the
    /// clear metadata `list` reads without the master key.
    public static func machineLabel(clientID: String) -> String { "machine session (client \(clientID))" }

    public func status(at now: Date) -> SessionStatus {
        SessionStatus(expiresAt: expiresAt, now: now)
    }

    /// The most seconds before expiry at which `token` refreshes first.
    public static let refreshWindow: TimeInterval = RefreshRule.window

    /// The seconds before expiry at which this token is refreshed: the smaller of `refreshWindow` and half its
    /// lifetime, or `minValidSeconds` when that is longer (`token --min-valid`). The rule is AuthBase's `RefreshRule`.
    public func refreshWindow(minValidSeconds: Int? = nil) -> TimeInterval {
        RefreshRule.window(
            expiresAt: expiresAt?.timeIntervalSince1970, storedAt: storedAt?.timeIntervalSince1970,
            minValidSeconds: minValidSeconds)
    }

    /// Whether the token should be refreshed before it is handed out: it expires within `window` seconds
    /// (its own `refreshWindow()` unless the caller asks for a longer validity).
    public func needsRefresh(at now: Date, within window: TimeInterval? = nil) -> Bool {
        RefreshRule.needsRefresh(
            expiresAt: expiresAt?.timeIntervalSince1970, now: now.timeIntervalSince1970,
            within: window ?? refreshWindow())
    }
}

/// `SessionStatus` (AuthBase) for the store's `Date`s.
extension SessionStatus {
    public init(expiresAt: Date?, now: Date) {
        self.init(expiresAt: expiresAt?.timeIntervalSince1970, now: now.timeIntervalSince1970)
    }
}

/// The secret half of a session, stored only encrypted (AES-256-GCM under the master key, the session key as
/// associated data). Never printed, logged or traced; `description` is redacted for that reason.
public struct SessionSecrets: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    public var accessToken: String?
    public var refreshToken: String?
    public var idToken: String?
    /// The auth proxy's session JWT (turnkey) or client session token (portal).
    public var sessionJwt: String?
    /// The P-256 session private key as 64 hex characters (turnkey).
    public var privateKeyHex: String?
    /// When the refresh token stops working, when the provider says.
    public var refreshExpiresAt: Date?
    /// Where this session is refreshed, revoked and checked, as the sign-in found it; kept with the secrets so a
    /// session signed in with `--client-id` on the command line can still be refreshed later.
    public var endpoints: SessionEndpoints?
    /// portal: the client's id and account abstraction, as the sign-in answered them.
    public var portalClient: PortalClientInfo?
    /// DPoP (RFC 9449): the session's P-256 private key as 64 hex characters, made at sign-in; its tokens are bound
    /// to it. Nil for a session signed in without DPoP.
    public var dpopKeyHex: String?
    /// The last `DPoP-Nonce` the session's server asked for, put in the next proof (RFC 9449 section 8).
    public var dpopNonce: String?
    /// The access token's type as the token endpoint named it (`DPoP`, `Bearer`); nil means Bearer.
    public var tokenType: String?
    /// The browser command this session was signed in with (`login --browser`), for its later sign-ins; no secret,
    /// but kept here with the rest of what the session's sign-in chose.
    public var browser: String?
    /// The passkey this session's sign-in made or used at its relying party (Para's flow on the sandbox).
    public var passkey: PasskeyCredential?

    public init(
        accessToken: String? = nil, refreshToken: String? = nil, idToken: String? = nil,
        sessionJwt: String? = nil, privateKeyHex: String? = nil, refreshExpiresAt: Date? = nil,
        endpoints: SessionEndpoints? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.sessionJwt = sessionJwt
        self.privateKeyHex = privateKeyHex
        self.refreshExpiresAt = refreshExpiresAt
        self.endpoints = endpoints
    }

    /// The bearer credential `authdeck token` prints: the access token, else the session JWT.
    public var bearer: String? { accessToken ?? sessionJwt }

    /// Whether the access token is DPoP-bound: every request with it needs a proof from `dpopKeyHex`.
    public var isDPoPBound: Bool { tokenType?.caseInsensitiveCompare("DPoP") == .orderedSame && dpopKeyHex != nil }

    public var description: String { "SessionSecrets(redacted)" }
    public var debugDescription: String { description }
}

/// The provider endpoints and client a direct session is refreshed, revoked and checked with. No secret: a client
/// secret stays in its file and is read again when needed.
public struct SessionEndpoints: Sendable, Equatable, Codable {
    public var clientID: String
    public var token: String
    public var revocation: String?
    /// The userinfo (OIDC) or user endpoint (Discord, X) that `status` asks.
    public var user: String?
    public var clientSecretFile: String?
    /// True when this session's own sign-in read `clientSecretFile` here; only then is the file followed. A session
    /// stored before the mark (some imported, when imports still kept a path a line named) refreshes with today's
    /// config.json client for its issuer instead, at that client's endpoints.
    public var clientSecretFileFromSignIn: Bool?
    /// How the client authenticated at the token endpoint (`client_secret_basic`, `client_secret_post`, `none`);
    /// nil in sessions stored before authdeck chose by discovery, which sent the secret in the body.
    public var tokenAuthMethod: String?
    /// The same for the revocation endpoint; nil means as at the token endpoint.
    public var revocationAuthMethod: String?
    /// `private_key_jwt`: the key file the sign-in signed with (followed, as `clientSecretFile` is, only when
    /// `clientSecretFileFromSignIn`), its `kid` and JWS algorithm.
    public var privateKeyFile: String?
    public var keyID: String?
    public var signingAlg: String?
    /// The `aud` of client assertions when it is the issuer identifier; nil means the endpoint's URL.
    public var assertionAudience: String?
    /// Mutual TLS (`tls_client_auth`, `self_signed_tls_client_auth`): the certificate and key files the sign-in
    /// presented (followed, as `clientSecretFile` is, only when `clientSecretFileFromSignIn`; the key is never
    /// stored), so refresh, revocation and UserInfo present the certificate the tokens are bound to.
    public var clientCertificateFile: String?
    public var clientCertificateKeyFile: String?
    /// The grant the session's tokens came from, when not a user's sign-in (`client_credentials`, CIBA's and token
    /// exchange's URNs); a `client_credentials` session is renewed by asking again, having no refresh token.
    public var grant: String?
    /// Token exchange (RFC 8693): the key of the session whose access token was exchanged for this one's.
    public var parentSession: String?

    /// A session without a user: its tokens were issued to the client itself.
    public var isMachineSession: Bool { grant == Self.clientCredentialsGrant }

    public static let clientCredentialsGrant = "client_credentials"
    public static let cibaGrant = "urn:openid:params:grant-type:ciba"
    public static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"

    public init(
        clientID: String, token: String, revocation: String? = nil, user: String? = nil,
        clientSecretFile: String? = nil, clientSecretFileFromSignIn: Bool? = nil, tokenAuthMethod: String? = nil,
        revocationAuthMethod: String? = nil
    ) {
        self.clientID = clientID
        self.token = token
        self.revocation = revocation
        self.user = user
        self.clientSecretFile = clientSecretFile
        self.clientSecretFileFromSignIn = clientSecretFileFromSignIn
        self.tokenAuthMethod = tokenAuthMethod
        self.revocationAuthMethod = revocationAuthMethod
    }
}

/// A whole session as a sign-in produces it and the store persists it.
public struct Session: Sendable, Equatable {
    public var record: SessionRecord
    public var secrets: SessionSecrets

    public init(record: SessionRecord, secrets: SessionSecrets) {
        self.record = record
        self.secrets = secrets
    }
}
