import AuthClient
import AuthCore
import Foundation
import Testing

/// The New sign-in screen greys a provider a backend cannot do; what it greys must be exactly what
/// `SignInBackendFactory.make` refuses for the sandbox's own config.json (SMS on sandbox-portal).
@Suite struct ProviderSupportTests {
    static let providers: [Provider] = ["google", "apple", "discord", "x", "oidc", "email", "sms", "email-link"]

    @Test func theSandboxConfigGreysCodesOnPortalAndNothingOnTheSandbox() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = sandbox.configuration
        #expect(
            ProviderSupport.refusal(provider: "sms", backend: "sandbox-portal", in: configuration)
                == "Portal signs in with social providers and email links only, not SMS codes")
        #expect(ProviderSupport.refusal(provider: "email", backend: "sandbox-portal", in: configuration) != nil)
        #expect(ProviderSupport.refusal(provider: "google", backend: "sandbox-portal", in: configuration) == nil)
        for provider in Self.providers where provider != .emailLink {
            #expect(ProviderSupport.refusal(provider: provider, backend: "sandbox", in: configuration) == nil)
        }
        // Portal's magic link is the portal backend's alone.
        #expect(ProviderSupport.refusal(provider: .emailLink, backend: "sandbox-portal", in: configuration) == nil)
        #expect(ProviderSupport.refusal(provider: .emailLink, backend: "sandbox", in: configuration) != nil)
        #expect(ProviderSupport.refusal(provider: "sms", backend: "direct", in: configuration) != nil)
        #expect(
            ProviderSupport.refusal(provider: "google", backend: "nowhere", in: configuration)
                == "no backend named 'nowhere' in config.json")
    }

    @Test func everyGreyedChoiceIsOneTheBackendsRefuse() throws {
        let sandbox = try TurnkeySandbox()
        let names = ["direct"] + (sandbox.configuration.backends ?? [:]).keys.sorted()
        var greyed = 0
        for name in names {
            for provider in Self.providers {
                guard ProviderSupport.refusal(provider: provider, backend: name, in: sandbox.configuration) != nil
                else { continue }
                greyed += 1
                let contact: Contact? =
                    provider == "sms"
                    ? .phone("+15550100")
                    : (provider.needsContact ? .email("ada@example.com") : nil)
                do {
                    _ = try sandbox.backend(provider, backend: name, contact: contact)
                    Issue.record("\(provider) via \(name) is greyed but the backend was built")
                } catch let error as SignInError {
                    if case .unavailable(let reason) = error, reason.hasPrefix("no client id") { continue }
                    guard case .authMethodUnavailable = error else {
                        Issue.record("\(provider) via \(name): \(error.message)")
                        continue
                    }
                }
            }
        }
        #expect(greyed >= 4)
    }

    @Test func withoutConfigDirectGreysEveryPresetButOIDC() throws {
        let none = Configuration()
        for provider: Provider in ["google", "apple", "discord", "x"] {
            #expect(
                ProviderSupport.refusal(provider: provider, backend: "direct", in: none)
                    == "no client id in config.json (providers.\(provider.name).clientID)")
        }
        #expect(ProviderSupport.refusal(provider: "oidc", backend: "direct", in: none) == nil)
        let json = #"{"providers": {"google": {"clientID": "123.apps.example"}}}"#
        let configured = try Configuration(json: Data(json.utf8))
        #expect(ProviderSupport.refusal(provider: "google", backend: "direct", in: configured) == nil)
        #expect(ProviderSupport.refusal(provider: "apple", backend: "direct", in: configured) != nil)
    }

    /// Turnkey takes any OIDC provider's ID token, so a generic issuer is offered too; a name authdeck does not
    /// know is not.
    @Test func theAuthProxyOffersItsSocialProvidersAndAnyOIDCIssuer() throws {
        let json = #"{"backends": {"corp": {"type": "turnkey", "baseURL": "https://proxy.example", "configID": "c"}}}"#
        let configuration = try Configuration(json: Data(json.utf8))
        #expect(
            ProviderSupport.refusal(provider: "github", backend: "corp", in: configuration)
                == "the auth proxy signs in with email, SMS, Google, Apple, Discord, X and OIDC issuers only")
        for provider: Provider in ["google", "apple", "discord", "x", "oidc", "email", "sms"] {
            #expect(ProviderSupport.refusal(provider: provider, backend: "corp", in: configuration) == nil)
        }
    }
}
