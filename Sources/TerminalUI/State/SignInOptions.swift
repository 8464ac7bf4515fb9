import AuthCore

/// OIDC's protocol choices for one sign-in: how the client authenticates, whether the authorization request is
/// pushed (PAR) or signed (JAR), how the answer comes back, and whether the tokens are DPoP-bound. New sign-in starts
/// from config.json's entry for the provider on the chosen backend (the event loop reads it) and may change each for
/// this sign-in only, as `login`'s `--auth-method`, `--private-key-file`, `--par`, `--request-object` and `--dpop` do.
public struct SignInOptions: Equatable, Sendable {
    /// `tokenEndpointAuthMethod`; nil leaves the choice to authdeck as `login` makes it (a key file: private_key_jwt,
    /// a secret: client_secret_basic, else none).
    public var authMethod: String?
    /// `privateKeyFile`: the path only (the key is read when the sign-in starts).
    public var privateKeyFile: String?
    /// `pushedAuthorizationRequests`.
    public var pushed: Bool
    /// `requestObject: "signed"`.
    public var signedRequest: Bool
    /// `responseMode`; nil is the provider's default (query).
    public var responseMode: String?
    /// `dpop`.
    public var dpop: Bool
    /// `prompt`, `loginHint`, `maxAge`, `acrValues` and `resources` as config.json sets them (`login`'s `--prompt`,
    /// `--login-hint`, `--max-age`, `--acr-values` and `--resource`); nil is the provider's default.
    public var prompt: String?
    public var loginHint: String?
    public var maxAge: Int?
    public var acrValues: [String]?
    public var resources: [String] = []

    public init(
        authMethod: String? = nil, privateKeyFile: String? = nil, pushed: Bool = false, signedRequest: Bool = false,
        responseMode: String? = nil, dpop: Bool = false
    ) {
        self.authMethod = authMethod
        self.privateKeyFile = privateKeyFile
        self.pushed = pushed
        self.signedRequest = signedRequest
        self.responseMode = responseMode
        self.dpop = dpop
    }

    /// The methods `tokenEndpointAuthMethod` takes, in the order ←/→ goes through them.
    public static let authMethods = [
        "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "tls_client_auth",
        "self_signed_tls_client_auth", "none",
    ]

    /// What the prompt chooser goes through: the provider's default first, then OpenID Connect's values.
    public static let prompts: [String?] = [nil] + AuthorizationOptions.prompts.map { $0 }

    /// The response modes `responseMode` takes.
    public static let responseModes = ["query", "form_post", "jwt"]

    /// What the auth-method chooser goes through: authdeck's own choice only when config.json names no method (a
    /// named one is what the sign-in would use anyway).
    public static func authMethodChoices(configured: String?) -> [String?] {
        let methods: [String?] = authMethods.map { $0 }
        guard let configured else { return [nil] + methods }
        return methods.contains(configured) ? methods : [configured] + methods
    }

    /// The next value in `choices` after `current`, `step` places on (wrapping).
    static func cycled<Value: Equatable>(_ current: Value, in choices: [Value], step: Int) -> Value {
        guard !choices.isEmpty else { return current }
        let index = choices.firstIndex(of: current) ?? 0
        return choices[(index + step + choices.count) % choices.count]
    }
}
