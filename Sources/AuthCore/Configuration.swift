import Foundation

/// The kinds of backend that issue sessions (SPEC section 3).
public enum BackendType: String, Equatable, Sendable, Codable {
    /// The provider's own tokens.
    case direct
    /// A Turnkey-compatible auth proxy session bound to a P-256 key.
    case turnkey
    /// A Portal-style client session token.
    case portal
    /// The built-in sandbox: social providers through its OIDC profiles, codes through its proxy.
    case sandbox
}

/// One configured backend.
public struct BackendConfiguration: Equatable, Sendable, Codable {
    public var type: BackendType
    public var baseURL: String?
    /// The proxy's `X-Auth-Proxy-Config-ID` (turnkey).
    public var configID: String?
    /// Portal's `x-portal-auth-environment-id`.
    public var environmentID: String?
    /// The sandbox's own auth proxy (its `/turnkey`), which sends its email and SMS codes.
    public var proxyBaseURL: String?
    /// The sandbox's own Portal routes (its `/portal`).
    public var portalBaseURL: String?
    /// Provider settings that apply only through this backend (the sandbox's own issuers and client ids).
    public var providers: [String: ProviderConfiguration]?
    /// True for a turnkey, portal or direct backend meant to run against authdeck's sandbox (the config
    /// `sandbox --config-out` writes); any other real backend that reaches the sandbox fails instead.
    public var usesSandbox: Bool?
    /// turnkey: accept the sandbox's TOTP step, an extension the Auth Proxy contract does not have (default off).
    public var totpExtension: Bool?
    /// turnkey: the key that signs `otp_init_v2`'s encryption target (hex, uncompressed P-256); Turnkey's
    /// production signer when absent. The sandbox writes its own.
    public var otpSignerPublicKey: String?
    /// turnkey, Google and Apple: `code` (authdeck exchanges the code with its own client, the default) or
    /// `hosted` (the proxy's hosted redirect returns an `id_token` carrying the session-key nonce; no client
    /// secret of one's own is needed).
    public var oauthFlow: String?
    /// turnkey, `hosted`: the page that starts the provider leg (Turnkey's is https://oauth-origin.turnkey.com).
    public var oauthOriginURL: String?
    /// portal: the redirect URL the environment allow-lists, matched there byte for byte: `authdeck://callback`
    /// or a loopback URL with a fixed port (`http://127.0.0.1:PORT/callback`, with `--listen 127.0.0.1:PORT`).
    public var redirectURL: String?
    /// portal, `login email-link`: the sender and the email template of the magic link (PortalSwift's
    /// `MagicLinkConfig`), which the environment must have: a sender of an enabled domain, an existing template.
    public var magicLinkFromEmail: String?
    public var magicLinkTemplateID: String?
    /// A PEM file of the certificate authorities trusted for `baseURL`'s HTTPS (a private CA).
    public var caFile: String?
    /// The sandbox's backends: the file its one-time codes and links are appended to (`sandbox --outbox`), which the
    /// TUI's code screen names. Written by `sandbox --config-out`.
    public var outbox: String?

    public init(
        type: BackendType, baseURL: String? = nil, configID: String? = nil, environmentID: String? = nil,
        proxyBaseURL: String? = nil, portalBaseURL: String? = nil,
        providers: [String: ProviderConfiguration]? = nil, usesSandbox: Bool? = nil
    ) {
        self.usesSandbox = usesSandbox
        self.type = type
        self.baseURL = baseURL
        self.configID = configID
        self.environmentID = environmentID
        self.proxyBaseURL = proxyBaseURL
        self.portalBaseURL = portalBaseURL
        self.providers = providers
    }
}

/// What the operator sets for one provider; anything left out comes from the preset.
public struct ProviderConfiguration: Equatable, Sendable, Codable {
    public var clientID: String?
    public var clientSecretFile: String?
    public var issuer: String?
    public var scopes: [String]?
    /// The redirect URI the provider has registered, when it is not the loopback one (Apple's https relay).
    public var redirectURI: String?
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var userEndpoint: String?
    public var revocationEndpoint: String?
    public var deviceAuthorizationEndpoint: String?
    public var jwksURI: String?
    /// Apple: the team id, key id and .p8 key file the client-secret JWT is built from.
    public var teamID: String?
    public var keyID: String?
    public var privateKeyFile: String?
    /// How the client authenticates at the token and revocation endpoints: `client_secret_basic`,
    /// `client_secret_post`, `client_secret_jwt`, `private_key_jwt`, `tls_client_auth`,
    /// `self_signed_tls_client_auth` or `none`; unset, discovery and the presence of a secret, key or certificate
    /// decide. (`keyID` and `privateKeyFile` sign `private_key_jwt`'s assertions.)
    public var tokenEndpointAuthMethod: String?
    /// DPoP (RFC 9449): tokens bound to a key made for each session, a proof on every request made with them.
    public var dpop: Bool?
    /// Para's passkey step after a social sign-in on a sandbox backend (`login --passkey`): `software` or
    /// `hardware`; unset, none.
    public var passkey: PasskeyCredential.Kind?
    /// Push the authorization request to discovery's `pushed_authorization_request_endpoint` first (RFC 9126).
    public var pushedAuthorizationRequests: Bool?
    /// `signed`: the authorization parameters go in a request object signed with `privateKeyFile` (RFC 9101).
    public var requestObject: String?
    /// How the provider returns the authorization response: `query` (the default), `form_post` or `jwt` (JARM).
    public var responseMode: String?
    /// The JWS algorithm `privateKeyFile` signs with when the key allows several: `RS256` (the default for an RSA
    /// key) or `PS256`.
    public var signingAlg: String?
    /// A client assertion's `aud`: `endpoint` (the default: the URL it is sent to) or `issuer`.
    public var assertionAudience: String?
    /// A PEM file of the certificate authorities trusted for this provider's HTTPS (a private CA).
    public var caFile: String?
    /// Mutual TLS (`tls_client_auth`, `self_signed_tls_client_auth`, RFC 8705): the PEM certificate the client
    /// presents and its private key (an owner-only file, unencrypted PEM).
    public var clientCertificateFile: String?
    public var clientCertificateKeyFile: String?
    /// Where the provider sends the browser after `logout --end-session` (RP-Initiated Logout 1.0): a loopback URL
    /// with a fixed port, registered with the provider as a `post_logout_redirect_uri`; unset,
    /// `http://127.0.0.1:PORT/logout` on `listen`'s port.
    public var postLogoutRedirectURI: String?
    /// What every authorization request to this provider carries (`AuthorizationOptions`), as `login`'s
    /// `--prompt`, `--login-hint`, `--max-age`, `--acr-values`, `--claims` (a JSON object), `--resource` and
    /// `--authorization-details` (a JSON array) set it for one sign-in.
    public var prompt: String?
    public var loginHint: String?
    public var maxAge: Int?
    public var acrValues: [String]?
    public var claims: JSONValue?
    public var resources: [String]?
    public var authorizationDetails: JSONValue?
    /// Extra parameters of the authorization and token requests, and headers for every request to the provider.
    public var authorizeParameters: [String: String]?
    public var tokenParameters: [String: String]?
    public var requestHeaders: [String: String]?
    /// The browser command sign-ins with this provider open their page in: words split without a shell, `{url}`
    /// the page and `{profile}` a folder of the session's own under the data folder (`login --browser` per session).
    public var browser: String?
    /// turnkey: more client ids of this provider (a web or mobile app's), registered with the primary one as OIDC
    /// audiences of the sub-organization a sign-up creates, so the user can later sign in through those clients too.
    public var secondaryClientIDs: [String]?
    /// turnkey: key-value pairs appended to the OAuth request's `state` (`&key=value`, as the Turnkey SDKs build
    /// it) and checked on the redirect: one that comes back without them, or with other values, is refused.
    public var additionalState: [String: String]?

    public init(
        clientID: String? = nil, clientSecretFile: String? = nil, issuer: String? = nil,
        scopes: [String]? = nil, redirectURI: String? = nil, authorizationEndpoint: String? = nil,
        tokenEndpoint: String? = nil, userEndpoint: String? = nil, revocationEndpoint: String? = nil,
        deviceAuthorizationEndpoint: String? = nil, jwksURI: String? = nil, teamID: String? = nil,
        keyID: String? = nil, privateKeyFile: String? = nil, tokenEndpointAuthMethod: String? = nil,
        signingAlg: String? = nil, assertionAudience: String? = nil, caFile: String? = nil
    ) {
        self.clientID = clientID
        self.clientSecretFile = clientSecretFile
        self.issuer = issuer
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userEndpoint = userEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.jwksURI = jwksURI
        self.teamID = teamID
        self.keyID = keyID
        self.privateKeyFile = privateKeyFile
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.signingAlg = signingAlg
        self.assertionAudience = assertionAudience
        self.caFile = caFile
    }

    /// This configuration with every field `other` sets taking precedence.
    public func overridden(by other: ProviderConfiguration?) -> ProviderConfiguration {
        guard let other else { return self }
        var merged = ProviderConfiguration(
            clientID: other.clientID ?? clientID, clientSecretFile: other.clientSecretFile ?? clientSecretFile,
            issuer: other.issuer ?? issuer, scopes: other.scopes ?? scopes,
            redirectURI: other.redirectURI ?? redirectURI,
            authorizationEndpoint: other.authorizationEndpoint ?? authorizationEndpoint,
            tokenEndpoint: other.tokenEndpoint ?? tokenEndpoint, userEndpoint: other.userEndpoint ?? userEndpoint,
            revocationEndpoint: other.revocationEndpoint ?? revocationEndpoint,
            deviceAuthorizationEndpoint: other.deviceAuthorizationEndpoint ?? deviceAuthorizationEndpoint,
            jwksURI: other.jwksURI ?? jwksURI, teamID: other.teamID ?? teamID, keyID: other.keyID ?? keyID,
            privateKeyFile: other.privateKeyFile ?? privateKeyFile,
            tokenEndpointAuthMethod: other.tokenEndpointAuthMethod ?? tokenEndpointAuthMethod,
            signingAlg: other.signingAlg ?? signingAlg, assertionAudience: other.assertionAudience ?? assertionAudience,
            caFile: other.caFile ?? caFile)
        merged.dpop = other.dpop ?? dpop
        merged.passkey = other.passkey ?? passkey
        merged.pushedAuthorizationRequests = other.pushedAuthorizationRequests ?? pushedAuthorizationRequests
        merged.requestObject = other.requestObject ?? requestObject
        merged.responseMode = other.responseMode ?? responseMode
        merged.clientCertificateFile = other.clientCertificateFile ?? clientCertificateFile
        merged.clientCertificateKeyFile = other.clientCertificateKeyFile ?? clientCertificateKeyFile
        merged.postLogoutRedirectURI = other.postLogoutRedirectURI ?? postLogoutRedirectURI
        merged.prompt = other.prompt ?? prompt
        merged.loginHint = other.loginHint ?? loginHint
        merged.maxAge = other.maxAge ?? maxAge
        merged.acrValues = other.acrValues ?? acrValues
        merged.claims = other.claims ?? claims
        merged.resources = other.resources ?? resources
        merged.authorizationDetails = other.authorizationDetails ?? authorizationDetails
        merged.authorizeParameters = other.authorizeParameters ?? authorizeParameters
        merged.tokenParameters = other.tokenParameters ?? tokenParameters
        merged.requestHeaders = other.requestHeaders ?? requestHeaders
        merged.browser = other.browser ?? browser
        merged.secondaryClientIDs = other.secondaryClientIDs ?? secondaryClientIDs
        merged.additionalState = other.additionalState ?? additionalState
        return merged
    }
}

/// `config.json` (SPEC section 5): backends by name, providers, defaults. Every field is optional so an empty
/// object is a valid configuration: direct sign-in with the presets.
public struct Configuration: Equatable, Sendable, Codable {
    public var defaultBackend: String?
    public var backends: [String: BackendConfiguration]?
    public var providers: [String: ProviderConfiguration]?
    /// Where the loopback receiver listens, `127.0.0.1:PORT`, as `login --listen` (for the TUI too).
    public var listen: String?
    /// Seconds after which the TUI clears a token it copied (`c`), as `pass` does; 0 never clears. Nil: 45.
    public var clipboardClearSeconds: Int?
    /// The TUI's theme: `dark` (nil), `light` or `monochrome`; `NO_COLOR` still means monochrome. The TUI checks the
    /// name, so a wrong one stops only the TUI.
    public var theme: String?

    /// The clipboard clearing time when config.json names none (`pass`'s).
    public static let defaultClipboardClearSeconds = 45

    public init(
        defaultBackend: String? = nil, backends: [String: BackendConfiguration]? = nil,
        providers: [String: ProviderConfiguration]? = nil, listen: String? = nil
    ) {
        self.defaultBackend = defaultBackend
        self.backends = backends
        self.providers = providers
        self.listen = listen
    }

    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    public init(json: Data) throws(Failure) {
        do {
            self = try JSONDecoder().decode(Configuration.self, from: json)
        } catch let error as DecodingError {
            throw Failure(description: Self.describe(error))
        } catch {
            throw Failure(description: "not valid JSON")
        }
        if let problem = Self.controlCharacterProblem(in: json) { throw Failure(description: problem) }
        if let defaultBackend, !Self.builtInBackends.contains(defaultBackend), backends?[defaultBackend] == nil {
            throw Failure(description: "defaultBackend '\(defaultBackend)' is not a configured backend")
        }
        if let seconds = clipboardClearSeconds, seconds < 0 {
            throw Failure(
                description: "clipboardClearSeconds is \(seconds): give the seconds a copied token stays, 0 for never")
        }
    }

    /// The first text in a config document (a value or a member name, at any depth, `gitCredentials` included)
    /// that holds a control character, as a one-line problem naming where (`gitCredentials.HOST.username`); nil
    /// when there is none or the document is no JSON. No setting needs a newline, tab or escape, and every one
    /// reaches a protocol (HTTP requests, git's credential lines) or a terminal, where such a character injects.
    public static func controlCharacterProblem(in json: Data) -> String? {
        func field(_ value: JSONValue, _ path: String) -> String? {
            switch value {
            case .null, .bool, .number: return nil
            case .string(let text): return hasControl(text) ? path : nil
            case .array(let items):
                for (index, item) in items.enumerated() {
                    if let found = field(item, path + "[\(index)]") { return found }
                }
                return nil
            case .object(let members):
                for name in members.keys.sorted() {
                    let inner = (path.isEmpty ? "" : path + ".") + SessionKeyRule.escaped(name)
                    if hasControl(name) { return inner }
                    if let member = members[name], let found = field(member, inner) { return found }
                }
                return nil
            }
        }
        guard let document = try? JSONValue.parse(Array(json)), let found = field(document, "") else { return nil }
        return "\(found.isEmpty ? "the top level" : found) contains a control character (a newline, tab or escape)"
    }

    /// Whether `text` holds a C0 or C1 control character or DEL.
    public static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Backend names that work without configuration.
    public static let builtInBackends: Set<String> = ["direct"]

    /// The backend called `name`: a configured one, or the built-in `direct`.
    public func backend(named name: String) -> BackendConfiguration? {
        if let configured = backends?[name] { return configured }
        return name == "direct" ? BackendConfiguration(type: .direct) : nil
    }

    /// The backend to use when none is named: the configured default, else `direct`.
    public var defaultBackendName: String { defaultBackend ?? "direct" }

    /// Provider settings as they apply through `backend`: the backend's own over the top-level ones.
    public func provider(_ name: String, backend: String) -> ProviderConfiguration {
        (providers?[name] ?? ProviderConfiguration()).overridden(by: backends?[backend]?.providers?[name])
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
            return parts.isEmpty ? "top level" : String(parts.joined().drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing '\(key.stringValue)' in \(path(context))"
        case .typeMismatch(_, let context): return "wrong type at \(path(context))"
        case .valueNotFound(_, let context): return "missing value at \(path(context))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value at \(path(context))"
        @unknown default: return "not valid"
        }
    }
}
