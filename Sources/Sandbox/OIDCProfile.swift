/// One imitation identity provider under `/oidc/<profile>`, with the quirks of the real one that matter to a
/// client: who issues ID tokens and signs them how, who answers with `form_post`, who offers the device grant,
/// and where the user endpoint lives.
public enum OIDCProfile: String, CaseIterable, Sendable {
    case google, apple, discord, x, generic

    /// Discord and X are plain OAuth 2.0: identity comes from their user endpoint.
    var issuesIDToken: Bool {
        switch self {
        case .google, .apple, .generic: return true
        case .discord, .x: return false
        }
    }

    /// RS256 like Google for google and generic, ES256 like Apple for apple, so clients meet both.
    var signingAlgorithm: String {
        switch self {
        case .apple: return "ES256"
        case .google, .generic, .discord, .x: return "RS256"
        }
    }

    var supportsDeviceGrant: Bool {
        switch self {
        case .google, .generic: return true
        case .apple, .discord, .x: return false
        }
    }

    /// Apple posts the authorization response back as a form; the others redirect with a query.
    var defaultResponseMode: String {
        switch self {
        case .apple: return "form_post"
        case .google, .discord, .x, .generic: return "query"
        }
    }

    /// The provider's name in authdeck's presets and config (`oidc` is the generic issuer).
    public var providerName: String {
        switch self {
        case .generic: return "oidc"
        case .google, .apple, .discord, .x: return rawValue
        }
    }

    /// The client id the written config.json uses.
    public var defaultClientID: String { "sandbox-\(providerName)" }

    /// The user endpoint, relative to the profile's base: OIDC userinfo, or the Discord and X API paths.
    var userEndpointPath: String {
        switch self {
        case .google, .apple, .generic: return "/userinfo"
        case .discord: return "/api/users/@me"
        case .x: return "/2/users/me"
        }
    }

    /// The scopes the presets ask for.
    var defaultScopes: [String] {
        switch self {
        case .google: return ["openid", "email", "profile"]
        case .apple: return ["name", "email"]
        case .discord: return ["identify", "email"]
        case .x: return ["tweet.read", "users.read", "offline.access"]
        case .generic: return ["openid", "email", "profile", "offline_access"]
        }
    }
}
