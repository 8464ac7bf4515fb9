/// A sign-in provider: its name (`google`, `email`), what it is called, the key that picks it and the kind of
/// sign-in it is. `standard` is the one table of the providers authdeck knows: `login`'s operands, usage messages
/// and completions, the New sign-in buttons and their keys, the Sessions table's letter and the titles in messages
/// all come from it, so a provider is added here (and, for a social login, its endpoints in providers.json).
/// Modules ask it which names send a one-time code, which are social logins and which the Turnkey auth proxy
/// offers, instead of comparing names.
public struct Provider: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// How the user proves who they are.
    public enum Kind: Equatable, Sendable {
        /// The provider's own sign-in page in a browser (or its device grant): a preset in providers.json.
        case social
        /// A one-time code sent to an email address or a phone number; no browser.
        case code
        /// A sign-in link sent to an email address (Portal's magic link): the redirect it leads to, opened in a
        /// browser or pasted, completes the sign-in as a social login's redirect does.
        case link
    }

    public let name: String
    /// What buttons and messages call it: `Google`, `OIDC`, `Email code`.
    public let title: String
    /// The key that picks it on the New sign-in screen; nil for a name authdeck does not know.
    public let mnemonic: Character?
    public let kind: Kind
    /// Whether the Turnkey auth proxy signs in with it (email, SMS, its `OAUTH2_PROVIDER_*` and OIDC social logins,
    /// and a generic OIDC issuer, whose ID token `oauth_login` takes as Turnkey takes any OIDC provider's).
    public let isOfferedByAuthProxy: Bool

    private init(_ name: String, _ title: String, _ mnemonic: Character, _ kind: Kind, authProxy: Bool) {
        self.name = name
        self.title = title
        self.mnemonic = mnemonic
        self.kind = kind
        self.isOfferedByAuthProxy = authProxy
    }

    /// The provider of that name in `standard`, or one authdeck does not know (a stored session's, an imported
    /// one's): titled by its name, with no key, a social login the auth proxy does not offer.
    public init(_ name: String) {
        if let known = Self.standard.first(where: { $0.name == name }) {
            self = known
        } else {
            self.name = name
            title = name
            mnemonic = nil
            kind = .social
            isOfferedByAuthProxy = false
        }
    }

    public init(stringLiteral name: String) {
        self.init(name)
    }

    public static let google = Provider("google", "Google", "g", .social, authProxy: true)
    public static let apple = Provider("apple", "Apple", "a", .social, authProxy: true)
    public static let discord = Provider("discord", "Discord", "d", .social, authProxy: true)
    public static let x = Provider("x", "X", "x", .social, authProxy: true)
    /// A generic OpenID Connect issuer (`--issuer`).
    public static let oidc = Provider("oidc", "OIDC", "o", .social, authProxy: true)
    public static let email = Provider("email", "Email code", "e", .code, authProxy: true)
    public static let sms = Provider("sms", "SMS code", "s", .code, authProxy: true)
    /// Portal's email magic link (`EMAIL_MAGIC_LINK`).
    public static let emailLink = Provider("email-link", "Email link", "l", .link, authProxy: false)

    /// The providers `authdeck login` takes and the New sign-in screen shows, in the order SPEC section 6 lists them.
    public static let standard: [Provider] = [.google, .apple, .discord, .x, .oidc, .email, .sms, .emailLink]

    /// `google, apple, discord, x, oidc, email, sms or email-link`: the standard names as a sentence lists them.
    public static var standardNames: String {
        let names = standard.map(\.name)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }

    /// Email or SMS: the sign-in is a code typed back, and it needs a contact.
    public var sendsCode: Bool { kind == .code }

    /// Whether `authdeck login` knows this provider.
    public var isStandard: Bool { Self.standard.contains(self) }

    /// Email and SMS codes and the email link: the sign-in starts from an address (`--contact`).
    public var needsContact: Bool { kind != .social }

    /// The code goes to a phone number (SMS) rather than an email address.
    public var contactIsPhone: Bool { self == .sms }

    /// Whether `contact` is where this provider's code goes: an address for email, a number for SMS.
    public func accepts(_ contact: Contact) -> Bool {
        switch contact {
        case .email: return self == .email || self == .emailLink
        case .phone: return self == .sms
        }
    }

    /// What a code sign-in is called ("Email code", "SMS code"); nil for social logins.
    public var codeTitle: String? { sendsCode ? title : nil }

    /// The Sessions table's one-letter column: the key's capital, `O` (other) for a name authdeck does not know.
    public var letter: String { mnemonic.map { String($0).uppercased() } ?? "O" }

    public var description: String { name }
}
