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
}
