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

    @Test func loginKnowsSevenProvidersAndTheAuthProxySixOfThem() {
        let login = ["google", "apple", "discord", "x", "oidc", "email", "sms"]
        #expect(Provider.standard.map(\.name) == login)
        #expect(!Provider("github").isStandard && !Provider("Google").isStandard)
        // The auth proxy has no generic OIDC issuer: its social logins are Google, Apple, Discord and X.
        let proxy = [
            "google": true, "apple": true, "discord": true, "x": true, "oidc": false, "email": true,
            "sms": true, "github": false,
        ]
        for (name, expected) in proxy {
            #expect(Provider(name).isOfferedByAuthProxy == expected, "\(name)")
        }
    }

    @Test func aCodeGoesOnlyToTheContactItsProviderNames() {
        #expect(Provider.email.accepts(.email("ada@example.com")))
        #expect(!Provider.email.accepts(.phone("+15550100001")))
        #expect(Provider.sms.accepts(.phone("+15550100001")))
        #expect(!Provider.sms.accepts(.email("ada@example.com")))
        #expect(!Provider.google.accepts(.email("ada@example.com")))
    }
}
