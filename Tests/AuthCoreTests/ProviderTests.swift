import AuthCore
import Testing

/// What kind of sign-in each provider is, as SPEC sections 3 and 6 name them; the expected answers are written out
/// by hand, not derived from `Provider`.
@Suite struct ProviderTests {
    @Test func emailAndSMSSendCodesEverythingElseIsSocial() {
        let sendsCode = [
            "google": false, "apple": false, "discord": false, "x": false, "oidc": false,
            "email": true, "sms": true, "github": false,
        ]
        for (name, expected) in sendsCode {
            #expect(Provider(name).sendsCode == expected, "\(name)")
        }
        #expect(Provider("sms").contactIsPhone && !Provider("email").contactIsPhone)
        #expect(Provider("email").codeTitle == "Email code" && Provider("sms").codeTitle == "SMS code")
        #expect(Provider("google").codeTitle == nil)
    }

    @Test func loginKnowsEightProvidersAndTheAuthProxySevenOfThem() {
        let login = ["google", "apple", "discord", "x", "oidc", "email", "sms", "email-link"]
        #expect(Provider.standard.map(\.name) == login)
        #expect(!Provider("github").isStandard && !Provider("Google").isStandard)
        // Turnkey takes any OIDC provider's ID token: the generic issuer too, besides Google, Apple, Discord and X.
        let proxy = [
            "google": true, "apple": true, "discord": true, "x": true, "oidc": true, "email": true,
            "sms": true, "email-link": false, "github": false,
        ]
        for (name, expected) in proxy {
            #expect(Provider(name).isOfferedByAuthProxy == expected, "\(name)")
        }
    }

    /// The one table: name, title, the New sign-in key and kind of each provider, as SPEC section 6 lists the
    /// buttons (the button's `…` on OIDC is the screen's, not the title's).
    @Test func theTableGivesEachProviderATitleAndItsOwnKey() {
        let expected: [(name: String, title: String, key: Character, code: Bool)] = [
            ("google", "Google", "g", false), ("apple", "Apple", "a", false), ("discord", "Discord", "d", false),
            ("x", "X", "x", false), ("oidc", "OIDC", "o", false), ("email", "Email code", "e", true),
            ("sms", "SMS code", "s", true),
            ("email-link", "Email link", "l", false),
        ]
        #expect(Provider.standard.count == expected.count)
        for (provider, row) in zip(Provider.standard, expected) {
            #expect(provider.name == row.name && provider.title == row.title, "\(provider)")
            #expect(provider.mnemonic == row.key && provider.sendsCode == row.code, "\(provider)")
            #expect(Provider(row.name) == provider && provider.isStandard, "\(provider)")
            // The Sessions table's letter is the key's capital.
            #expect(provider.letter == row.key.uppercased(), "\(provider)")
        }
        #expect(Set(Provider.standard.compactMap(\.mnemonic)).count == expected.count, "a key picks two providers")
        #expect(Provider.standardNames == "google, apple, discord, x, oidc, email, sms or email-link")
        // Portal's magic link: the address first, then a redirect as a social login's.
        #expect(Provider.emailLink.needsContact && !Provider.emailLink.sendsCode)
        #expect(Provider.emailLink.accepts(.email("ada@example.com")))
        #expect(!Provider.emailLink.accepts(.phone("+15550100001")))
        // A stored session's provider that authdeck does not know: titled by its name, no key, letter O.
        let other = Provider("github")
        #expect(other.title == "github" && other.mnemonic == nil && other.letter == "O" && !other.isStandard)
        #expect(other.kind == .social && !other.isOfferedByAuthProxy)
    }

    @Test func aCodeGoesOnlyToTheContactItsProviderNames() {
        #expect(Provider.email.accepts(.email("ada@example.com")))
        #expect(!Provider.email.accepts(.phone("+15550100001")))
        #expect(Provider.sms.accepts(.phone("+15550100001")))
        #expect(!Provider.sms.accepts(.email("ada@example.com")))
        #expect(!Provider.google.accepts(.email("ada@example.com")))
    }
}
