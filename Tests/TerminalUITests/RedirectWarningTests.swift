import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The waiting screen says at once when the redirect URI reaches no receiver, and the trace keeps it.
@Suite struct RedirectWarningTests {
    @Test func theWarningIsOnTheWaitingScreenAtOnce() {
        let reason = "the redirect URI https://wrong.example/callback reaches none of authdeck's receivers"
        let state = AppFixtures.flowState(
            rows: 40, cols: 120,
            reports: AppFixtures.browserReports()
                + [.redirectUnreachable(reason)])
        #expect(state.flow?.redirectWarning == reason)
        #expect(state.flow?.trace.contains { $0.text.contains("redirect unreachable") && $0.isError } == true)
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains("⚠ The redirect URI https://wrong.example/callback reaches none"))
        #expect(screen.contains("D on the list runs doctor"))
        // Without the report the screen says nothing of the kind.
        let plain = AppScreen.frame(
            AppFixtures.flowState(
                rows: 40, cols: 120,
                reports: AppFixtures.browserReports())
        ).textDump()
        #expect(!plain.contains("⚠"))
    }

    /// A backend's notes (which Turnkey flow runs, the redirect URI X must have registered) are lines of the waiting
    /// screen from the start, and steps of the trace, but no error.
    @Test func theBackendsNotesAreOnTheWaitingScreen() {
        let notes = [
            "Google signs in through the auth proxy's hosted pages at https://oauth-origin.turnkey.com, oauthFlow "
                + "hosted (no client secret is configured)",
            "this sign-in sends the redirect URI http://127.0.0.1:41234/callback; X refuses it unless exactly that URI "
                + "is registered",
        ]
        let state = AppFixtures.flowState(
            rows: 40, cols: 120, reports: AppFixtures.browserReports() + notes.map { .note($0) })
        #expect(state.flow?.notes == notes)
        #expect(state.flow?.trace.contains { $0.text == notes[0] && !$0.isError } == true)
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains("Google signs in through the auth proxy's hosted pages"))
        #expect(screen.contains("sends the redirect URI http://127.0.0.1:41234/callback"))
    }
}
