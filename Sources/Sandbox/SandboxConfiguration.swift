import LoopbackHTTP

/// How a sandbox runs: who its users are, where codes go, how long things live, and what it accepts.
/// The defaults are what `authdeck sandbox` uses; tests shorten lifetimes and freeze the clock.
public struct SandboxConfiguration: Sendable {
    /// 0 picks a free port.
    public var port: UInt16 = 0
    /// The port `authdeck sandbox` listens on without `--port`, the same every run, so the config.json it wrote
    /// yesterday still points at it.
    public static let defaultPort: UInt16 = 8750
    /// Where keys, tokens and accounts are kept across restarts; nil keeps everything in memory (tests).
    public var dataFolder: SandboxDataFolder?
    public var users: [SandboxUser] = SandboxUsers.builtIn
    /// The JSON-lines outbox; nil keeps codes off disk (tests read them from `announce`).
    public var outboxPath: String?
    /// Receives each outbox line as it is written (the command prints it on stdout).
    public var announce: (@Sendable (String) -> Void)?
    public var clock = SandboxClock()
    /// Signing keys; nil makes fresh ones.
    public var keys: SandboxKeys?

    /// Access-token lifetime in seconds (ID tokens and userinfo follow it).
    public var tokenLifetime = 3600
    /// Authorization codes are single-use and live this long.
    public var codeLifetime = 60
    /// Device codes live this long; clients poll no faster than `deviceInterval`.
    public var deviceCodeLifetime = 600
    public var deviceInterval = 5

    /// Client ids the OIDC profiles accept; nil accepts any non-empty id (a public client of any name), and
    /// the profile's `defaultClientID` is what config.json names either way.
    public var clientIDs: [OIDCProfile: String]?
    /// Redirect URIs accepted exactly, beyond loopback (`http://127.0.0.1:PORT/…`) and `authdeck://…`.
    public var extraRedirectURIs: [String] = []
    /// The `post_logout_redirect_uris` every client has registered (RP-Initiated Logout), matched exactly; config.json
    /// names the first as `postLogoutRedirectURI`.
    public var postLogoutRedirectURIs: [String] = []
    /// Each client's registered public keys (a JWKS document) that its request objects must be signed with
    /// (RFC 9101); a client without one has its request objects refused.
    public var requestObjectKeys: [String: String] = [:]
    /// Clients that authenticate with a signed JWT (`private_key_jwt`, `client_secret_jwt`), by client id; every
    /// other client is a public one.
    public var assertionClients: [String: SandboxAssertionClient] = [:]
    /// The JWT client whose key file config.json names (`register`), so `authdeck sandbox` can show it.
    public var jwtClient: SandboxJWTClient?

    /// OpenID Connect issuers besides the sandbox's profiles whose ID tokens the auth proxy takes (Turnkey takes any
    /// OIDC provider's), each with its JWKS document (`authdeck sandbox --trust-issuer ISSUER=FILE`).
    public var trustedIssuers: [String: String] = [:]

    /// The auth proxy's `X-Auth-Proxy-Config-ID`; nil is `sandbox-config`. Any other id is refused, as the real proxy
    /// refuses a config id it does not know.
    public var proxyConfigID: String?
    public var otpLength = 6
    public var otpAlphanumeric = false
    /// One-time codes expire after this long; a code gets `otpMaximumAttempts` tries.
    public var otpLifetime = 300
    public var otpMaximumAttempts = 5
    /// How long a proxy session JWT lives (wallet_kit_config's `sessionExpirationSeconds`).
    public var sessionLifetime = 900
    /// The proxy's TOTP step for users with a TOTP seed (`totpRequired`, `/v1/totp_verify`): an extension the
    /// Auth Proxy contract does not have, so off unless asked for; config.json then says `totpExtension`.
    public var turnkeyTOTPExtension = false

    /// The portal's `x-portal-auth-environment-id`, the only one accepted (another is refused with 401, as Portal
    /// refuses an unknown auth environment); nil is `sandbox-environment`, which config.json names.
    public var portalEnvironmentID: String?
    /// The OAuth methods the portal's environment enables.
    public var portalMethods: [OIDCProfile] = [.google, .apple]
    /// The portal environment's redirect allow-list, matched byte for byte as Portal matches it (so a loopback
    /// redirect needs its fixed port here or in `extraRedirectURIs`).
    public var portalRedirectURLs = ["authdeck://callback"]
    /// Whether the environment enables email magic links (`EMAIL_MAGIC_LINK`), the sender and template a send must
    /// name (config.json writes them), and how many links one address may be sent in a minute.
    public var portalMagicLinks = true
    public var portalMagicLinkSender = "login@sandbox.example"
    public var portalMagicLinkTemplate = "sandbox-magic-link"
    public var portalMagicLinksPerMinute = 3

    /// The faults switched on at start (`--fault`); the admin route changes them while the sandbox runs.
    public var faults = SandboxFaults.Selection()

    /// Whether a request to the admin route (`/sandbox/faults`) comes from a process of the user running the
    /// sandbox. Sandbox cannot tell (it holds to no client code), so the program wires its loopback receiver's
    /// peer check here; nil turns the admin route off (every request refused).
    public var adminPeerCheck: (@Sendable (HTTPRequest) -> Bool)?

    /// Requests whose body is larger are answered 413 before any route sees them.
    public var maximumRequestBytes = 16 * 1024

    public init() {}

    /// The ids config.json writes and, when `clientIDs` is set, the only ones accepted.
    func clientID(for profile: OIDCProfile) -> String {
        clientIDs?[profile] ?? profile.defaultClientID
    }

    /// The config id the proxy answers to, and config.json writes.
    var writtenProxyConfigID: String { proxyConfigID ?? "sandbox-config" }
    var writtenPortalEnvironmentID: String { portalEnvironmentID ?? "sandbox-environment" }
    /// The client id the portal uses for its own leg at the OIDC profiles.
    static let portalClientID = "sandbox-portal"
}
