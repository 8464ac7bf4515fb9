import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// A session from Portal's stateless redirect is stored only once the user keeps it. The sign-in
/// screen shows whom it signs in over the flow while the machine asks (`confirming`); y keeps, n or Enter (Discard
/// has the focus) throws away, Esc cancels as anywhere in a sign-in.
@Suite struct KeepSessionDialogTests {
    static let issued = IssuedSession(
        session: Session(record: AppFixtures.outcome.record, secrets: SessionSecrets(sessionJwt: "jwt")),
        kind: .login)

    func asking(_ attempt: Attempt = AppFixtures.attempt()) -> AppState {
        AppFixtures.flowState(
            reports: AppFixtures.browserReports() + [
                .callbackArrived(source: "loopback", refusal: nil),
                .stateChanged(.awaitingCallback(attempt, .verifying)),
                .stateChanged(.awaitingCallback(attempt, .confirming(Self.issued))),
            ])
    }

    @Test func theDialogNamesTheAccountAndOnlyAYesKeepsIt() {
        let state = asking()
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains("Keep this session?"))
        #expect(screen.contains("signed in as Ada (google via sandbox)"))
        #expect(screen.contains("Keep") && screen.contains("Discard"))
        #expect(screen.contains("y keep  n discard  Esc cancel"))  // the status bar names the answers, not paste
        #expect(AppFixtures.run(state, [.key(.character("y"))]).1 == [.answerIdentity(flow: 1, keep: true)])
        #expect(AppFixtures.run(state, [.key(.character("n"))]).1 == [.answerIdentity(flow: 1, keep: false)])
        #expect(AppFixtures.run(state, [.key(.enter)]).1 == [.answerIdentity(flow: 1, keep: false)])
        #expect(AppFixtures.run(state, [.key(.escape)]).1 == [.cancelSignIn(flow: 1)])
        // Other keys (a paste, a stray letter) answer nothing.
        #expect(AppFixtures.run(state, [.key(.character("p")), .key(.paste("x"))]).1.isEmpty)
    }

    @Test func theDialogGoesOnceTheMachineMovesOn() {
        let (saving, _) = AppFixtures.run(
            asking(),
            [.signIn(flow: 1, .stateChanged(.awaitingCallback(AppFixtures.attempt(), .persisting(Self.issued))))])
        let screen = AppScreen.frame(saving).textDump()
        #expect(!screen.contains("Keep this session?"))
        #expect(screen.contains("Saving the session"))
    }
}
