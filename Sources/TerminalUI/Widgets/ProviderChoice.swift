/// One button of the New sign-in screen: a provider preset, or email or SMS codes.
public struct ProviderChoice: Equatable, Sendable {
    public var name: String
    public var title: String
    public var mnemonic: Character

    public init(name: String, title: String, mnemonic: Character) {
        self.name = name
        self.title = title
        self.mnemonic = mnemonic
    }

    /// The buttons SPEC section 6 names, for tests and for a catalog that cannot be read.
    public static let standard: [ProviderChoice] = [
        ProviderChoice(name: "google", title: "Google", mnemonic: "g"),
        ProviderChoice(name: "apple", title: "Apple", mnemonic: "a"),
        ProviderChoice(name: "discord", title: "Discord", mnemonic: "d"),
        ProviderChoice(name: "x", title: "X", mnemonic: "x"),
        ProviderChoice(name: "oidc", title: "OIDC…", mnemonic: "o"),
        ProviderChoice(name: "email", title: "Email code", mnemonic: "e"),
        ProviderChoice(name: "sms", title: "SMS code", mnemonic: "s"),
    ]

    /// The one-letter column of the Sessions table for a provider name.
    public static func letter(for provider: String) -> String {
        switch provider {
        case "google": return "G"
        case "apple": return "A"
        case "discord": return "D"
        case "x": return "X"
        case "email": return "E"
        case "sms": return "S"
        default: return "O"
        }
    }
}
