import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The New sign-in screen's key field follows the store's key rule, and a taken key is refused before any browser
/// opens, with replacing it one deliberate Enter away.
@Suite struct SessionKeyFieldTests {
    /// `n`, Tab to the key field, the key typed, then Enter (which starts the provider the buttons are on).
    func typed(_ key: String) -> [AppEvent] {
        [.key(.character("n")), .key(.tab), .key(.tab)] + key.map { .key(.character($0)) } + [.key(.enter)]
    }

    func form(_ state: AppState) -> NewSignInForm? {
        if case .newSignIn(let form) = state.mode { return form }
        return nil
    }

    @Test func aKeyThatBreaksTheRuleStartsNothing() throws {
        for key in ["has space", "-rf", "zero\u{200B}width"] {
            let (state, effects) = AppFixtures.run(AppFixtures.state(), typed(key))
            #expect(effects.isEmpty, "\(key)")
            let shown = try #require(form(state)?.error)
            #expect(shown.hasPrefix("The session key"), "\(shown)")
        }
    }

    @Test func aTakenKeyIsRefusedAndTheSameEnterAgainReplacesIt() throws {
        let (warned, none) = AppFixtures.run(AppFixtures.state(), typed("work-google"))
        #expect(none.isEmpty)
        #expect(
            form(warned)?.error == "A session 'work-google' exists: change the key, or press Enter again to "
                + "replace it.")
        let (_, effects) = AppFixtures.run(warned, [.key(.enter)])
        guard case .startSignIn(_, let choice)? = effects.first else {
            Issue.record("no sign-in started: \(effects)")
            return
        }
        #expect(choice.sessionKey == "work-google")
        #expect(choice.replace)
        // A changed key is a new question: no replace carried over.
        let (_, more) = AppFixtures.run(warned, [.key(.backspace), .key(.character("x")), .key(.enter)])
        guard case .startSignIn(_, let other)? = more.first else {
            Issue.record("no sign-in started: \(more)")
            return
        }
        #expect(other.sessionKey == "work-googlx" && !other.replace)
    }

    @Test func aFreeKeyStartsWithoutReplace() throws {
        let (_, effects) = AppFixtures.run(AppFixtures.state(), typed("new-key"))
        guard case .startSignIn(_, let choice)? = effects.first else {
            Issue.record("no sign-in started: \(effects)")
            return
        }
        #expect(choice.sessionKey == "new-key" && !choice.replace)
    }
}
