import AuthCore
import Testing

@testable import TerminalUI

/// New sign-in's buttons and their keys, the help's provider keys and the Sessions table's letters come from the
/// one table of providers (`Provider.standard`, pinned to SPEC section 6 by ProviderTests; `login`'s operands,
/// usage and completions are checked against the same list by CommandSurfaceTests): every provider in it has a
/// button showing its key and title, that key starts a sign-in with it, the help names the key, and a session
/// of it shows the key's capital.
@Suite struct ProviderRowTests {
    @Test func everyProviderOfTheTableHasItsButtonKeyHelpLineAndLetter() throws {
        let (opened, _) = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("n"))
        guard case .newSignIn(let form) = opened.mode else {
            Issue.record("n opens New sign-in")
            return
        }
        #expect(form.providers == Provider.standard)
        let screen = AppScreen.frame(opened).textDump()
        let helpKeys = HelpCoverageTests.named(in: HelpOverlay.entries(for: opened.mode))
        for provider in Provider.standard {
            let key = try #require(provider.mnemonic, "\(provider) has no key")
            // Every button shows the title messages use, OIDC's without an ellipsis.
            #expect(screen.contains("[\(key)] \(provider.title)"), "\(provider): \(screen)")
            #expect(!screen.contains("OIDC…"), "\(screen)")
            #expect(helpKeys.contains(String(key)), "\(provider): the help does not name \(key)")

            // The key starts this provider: a browser sign-in at once, a code or link one at its contact step.
            let (pressed, effects) = AppFixtures.run(opened, AppFixtures.keys(String(key)))
            switch pressed.mode {
            case .contact(let contact):
                #expect(provider.needsContact && contact.choice.provider == provider, "\(provider)")
            default:
                #expect(!provider.needsContact, "\(provider)")
                var choice = SignInChoice(provider: provider, backend: "sandbox")
                // OIDC carries its protocol choices, config.json's (none here) unless changed on the form.
                if provider == .oidc { choice.options = SignInOptions() }
                #expect(effects == [.startSignIn(flow: 1, choice)])
            }

            let session = SessionItem(
                record: AppFixtures.record("one-\(provider.name)", provider: provider.name), isSelected: false)
            let sessions = AppScreen.frame(AppFixtures.state(sessions: [session])).textDump()
            let row = try #require(sessions.split(separator: "\n").first { $0.contains("one-\(provider.name)") })
            #expect(row.contains(" \(key.uppercased()) "), "\(provider): \(row)")
        }
    }
}
