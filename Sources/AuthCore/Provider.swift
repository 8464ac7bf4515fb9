/// A sign-in provider by its name (`google`, `email`, a preset from providers.json) and the kind of sign-in it is.
/// The one place that knows which names send a one-time code, which are social logins, and which of those the
/// Turnkey auth proxy offers: modules ask it instead of comparing names.
public struct Provider: Hashable, Sendable, CustomStringConvertible {
    /// How the user proves who they are.
    public enum Kind: Equatable, Sendable {
        /// The provider's own sign-in page in a browser (or its device grant): a preset in providers.json.
        case social
        /// A one-time code sent to an email address or a phone number; no browser.
        case code
    }

    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public static let google = Provider("google")
    public static let apple = Provider("apple")
    public static let discord = Provider("discord")
    public static let x = Provider("x")
    /// A generic OpenID Connect issuer (`--issuer`).
    public static let oidc = Provider("oidc")
    public static let email = Provider("email")
    public static let sms = Provider("sms")

    /// The providers `authdeck login` takes, in the order SPEC section 6 lists them.
    public static let standard: [Provider] = [.google, .apple, .discord, .x, .oidc, .email, .sms]

    /// The social logins the Turnkey auth proxy offers (its `OAUTH2_PROVIDER_*` and OIDC providers); a generic
    /// issuer is not one of them.
    public static let authProxySocial: Set<Provider> = [.google, .apple, .discord, .x]

    public var kind: Kind {
        self == .email || self == .sms ? .code : .social
    }

    /// Email or SMS: the sign-in is a code typed back, and it needs a contact.
    public var sendsCode: Bool { kind == .code }

    /// Whether `authdeck login` knows this provider.
    public var isStandard: Bool { Self.standard.contains(self) }

    /// Whether the Turnkey auth proxy signs in with it (email, SMS and its social logins).
    public var isOfferedByAuthProxy: Bool { sendsCode || Self.authProxySocial.contains(self) }

    /// The code goes to a phone number (SMS) rather than an email address.
    public var contactIsPhone: Bool { self == .sms }

    /// Whether `contact` is where this provider's code goes: an address for email, a number for SMS.
    public func accepts(_ contact: Contact) -> Bool {
        switch contact {
        case .email: return self == .email
        case .phone: return self == .sms
        }
    }

    /// What a code sign-in is called ("Email code", "SMS code"); nil for social logins.
    public var codeTitle: String? {
        switch self {
        case .email: return "Email code"
        case .sms: return "SMS code"
        default: return nil
        }
    }

    public var description: String { name }
}
