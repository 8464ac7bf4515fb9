import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// New sign-in offers OIDC's issuer and client id, checked on the form and carried to the start as
/// `login oidc --issuer --client-id` carries them.
@Suite struct IssuerFieldsTests {
    /// New sign-in with OIDC highlighted (the fifth provider) and the issuer field focused.
    static func onIssuer() -> AppState {
        AppFixtures.run(
            AppFixtures.state(),
            AppFixtures.keys("n")
                + Array(repeating: .key(.right), count: 4) + Array(repeating: .key(.tab), count: 3)
        ).0
    }

    static func form(_ state: AppState) -> NewSignInForm? {
        if case .newSignIn(let form) = state.mode { return form }
        return nil
    }

    @Test func tabReachesTheFieldsOnlyWhileOIDCIsHighlighted() throws {
        let state = Self.onIssuer()
        #expect(Self.form(state)?.provider.name == "oidc")
        #expect(Self.form(state)?.focus == .issuer)
        let google = AppFixtures.run(
            AppFixtures.state(),
            AppFixtures.keys("n")
                + Array(repeating: .key(.tab), count: 3)
        ).0
        #expect(Self.form(google)?.focus == .providers)
    }

    @Test(arguments: [
        ("http://id.example.com", "my-cli", "The issuer must be an https URL (http only on 127.0.0.1 or localhost)."),
        ("id.example.com", "my-cli", "The issuer must be an https URL (http only on 127.0.0.1 or localhost)."),
        (
            "https://id.example.com", "",
            "Type the client id registered with that issuer (or clear the issuer)."
        ),
        ("", "my cli", "A client id has no spaces."),
    ])
    func aBadIssuerOrClientIDIsToldOnTheFormInOneLine(_ issuer: String, _ client: String, _ message: String) {
        var events = AppFixtures.keys(issuer) + [.key(.tab)] + AppFixtures.keys(client)
        events.append(.key(.enter))
        let (state, effects) = AppFixtures.run(Self.onIssuer(), events)
        #expect(effects.isEmpty)
        #expect(Self.form(state)?.error == message)
        #expect(!message.contains("\n"))
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains(message))
    }

    @Test(arguments: [
        ("https://id.example.com", "my-cli"), ("http://127.0.0.1:9000/realms/dev", "dev-cli"),
        ("http://localhost:8080", "local"),
    ])
    func aGoodIssuerAndClientIDGoToTheStart(_ issuer: String, _ client: String) throws {
        let (state, effects) = AppFixtures.run(
            Self.onIssuer(),
            AppFixtures.keys(issuer) + [.key(.tab)]
                + AppFixtures.keys(client) + [.key(.enter)])
        guard case .startSignIn(_, let choice)? = effects.first else {
            Issue.record("no start: \(effects)")
            return
        }
        #expect(choice.provider == "oidc" && choice.issuer == issuer && choice.clientID == client)
        // R on the result starts the same sign-in again, issuer and client id included.
        let ended = AppFixtures.run(state, [.signIn(flow: 1, .finished(.failure(.timedOut)))]).0
        let (_, again) = AppState.update(ended, .key(.character("R")))
        guard case .startSignIn(_, let retried)? = again.last else {
            Issue.record("R did not start again: \(again)")
            return
        }
        #expect(retried.issuer == issuer && retried.clientID == client)
    }

    @Test func emptyFieldsKeepConfigJSONsAndOtherProvidersCarryNone() throws {
        let (_, effects) = AppFixtures.run(Self.onIssuer(), [.key(.enter)])
        guard case .startSignIn(_, let choice)? = effects.first else {
            Issue.record("no start: \(effects)")
            return
        }
        #expect(choice.provider == "oidc" && choice.issuer == nil && choice.clientID == nil)
        // Typed for OIDC, then Google chosen: Google's sign-in does not take OIDC's issuer.
        let typed = AppFixtures.run(
            Self.onIssuer(),
            AppFixtures.keys("https://id.example.com")
                + Array(repeating: .key(.tab), count: 13) + Array(repeating: .key(.left), count: 4)
        ).0
        #expect(Self.form(typed)?.provider.name == "google")
        let (_, google) = AppState.update(typed, .key(.enter))
        guard case .startSignIn(_, let googleChoice)? = google.first else {
            Issue.record("no start: \(google)")
            return
        }
        #expect(googleChoice.issuer == nil && googleChoice.clientID == nil)
    }
}
