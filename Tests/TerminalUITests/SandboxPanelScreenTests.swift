import Foundation
import Testing

@testable import TerminalUI

/// The Sandbox panel inside the TUI: `S` opens it for the configured sandbox, keys become requests to the admin
/// route, and the boxes follow only what the sandbox answered.
@Suite struct SandboxPanelScreenTests {
    static let url = "http://127.0.0.1:4000"

    static let report = SandboxPanel.Report(
        available: [
            .init(name: "token-5xx-html", summary: "token endpoint answers 502 with an HTML page"),
            .init(name: "slow-provider", summary: "every answer comes late"),
            .init(name: "code-reused", summary: "invalid_grant: the code was used already"),
        ], on: ["code-reused"], delayMs: 8000)

    static func withSandbox(rows: Int = 24, cols: Int = 80) -> AppState {
        var state = AppFixtures.state(rows: rows, cols: cols)
        state.sandboxURL = url
        return state
    }

    /// The panel opened with `S` and answered once.
    static func answered(rows: Int = 24, cols: Int = 80) -> AppState {
        AppFixtures.run(
            withSandbox(rows: rows, cols: cols),
            AppFixtures.keys("S") + [.sandboxAnswered(report, switched: false)]
        ).0
    }

    static func panel(_ state: AppState) -> SandboxPanel? {
        if case .sandbox(let panel) = state.mode { return panel }
        return nil
    }

    @Test func sOpensThePanelAndReadsTheSandbox() {
        let (opened, effects) = AppFixtures.run(Self.withSandbox(), AppFixtures.keys("S"))
        #expect(effects == [.sandboxFaults(url: Self.url, faults: nil, delayMs: 0)])
        #expect(Self.panel(opened)?.isWaiting == true)
        #expect(
            AppScreen.frame(opened).textLines()[1] == "  Reading the faults of the sandbox at http://127.0.0.1:4000…")
        let (answered, _) = AppFixtures.run(opened, [.sandboxAnswered(Self.report, switched: false)])
        #expect(answered.message == nil)
        let frame = AppScreen.frame(answered)
        let lines = frame.textLines()
        #expect(
            lines[0] == " authdeck · Sandbox · http://127.0.0.1:4000" + String(repeating: " ", count: 30)
                + "1/3 on")
        #expect(lines[1] == "  1 on: code-reused")
        #expect(lines[3] == "  [ ] token-5xx-html           token endpoint answers 502 with an HTML page")
        #expect(lines[4] == "  [ ] slow-provider            every answer comes late (now 8000 ms)")
        #expect(lines[5] == "  [x] code-reused              invalid_grant: the code was used already")
        #expect(frame[3, 1].isReversed && !frame[4, 1].isReversed)
        #expect(frame[5, 3].foreground == .expiring)
        #expect(lines[23].contains("Space switch"))
        // Where there is room the bar shows the way back too.
        let wide = AppScreen.frame(Self.answered(rows: 40, cols: 120)).textLines()[39]
        #expect(wide.contains("Space switch") && wide.contains("n none") && wide.contains("Esc back"))
    }

    @Test func spaceAsksToSwitchAndTheBoxesWaitForTheAnswer() {
        let (moved, _) = AppFixtures.run(Self.answered(), AppFixtures.keys("j"))
        let (asked, effects) = AppFixtures.run(moved, AppFixtures.keys(" "))
        // The sandbox's order, the selected fault added.
        #expect(effects == [.sandboxFaults(url: Self.url, faults: ["slow-provider", "code-reused"], delayMs: 8000)])
        #expect(AppScreen.frame(asked).textLines()[4].hasPrefix("  [ ] slow-provider"))
        // A second switch before the answer would start from a selection the sandbox has not confirmed.
        let (again, none) = AppFixtures.run(asked, [.key(.enter)])
        #expect(none.isEmpty && again.message?.text == "Waiting for the sandbox to answer…")
        let switched = SandboxPanel.Report(
            available: Self.report.available, on: ["slow-provider", "code-reused"],
            delayMs: 3000)
        let (done, _) = AppFixtures.run(again, [.sandboxAnswered(switched, switched: true)])
        let lines = AppScreen.frame(done).textLines()
        #expect(lines[1] == "  2 on: slow-provider, code-reused")
        #expect(lines[4] == "  [x] slow-provider            every answer comes late (now 3000 ms)")
        #expect(lines[22] == " Switched at the sandbox: slow-provider, code-reused.")
        // Enter switches the selected one off again; n asks for none.
        #expect(
            AppFixtures.run(done, [.key(.enter)]).1
                == [.sandboxFaults(url: Self.url, faults: ["code-reused"], delayMs: 3000)])
        #expect(
            AppFixtures.run(done, AppFixtures.keys("n")).1 == [
                .sandboxFaults(
                    url: Self.url, faults: [],
                    delayMs: 3000)
            ])
        #expect(
            AppFixtures.run(done, AppFixtures.keys("r")).1 == [
                .sandboxFaults(
                    url: Self.url, faults: nil,
                    delayMs: 3000)
            ])
    }

    @Test func aSandboxThatIsNotRunningIsOneLineAndChangesNothing() {
        let (asked, _) = AppFixtures.run(Self.answered(), AppFixtures.keys(" "))
        let reason = "cannot reach the sandbox: Network error: Could not connect to the server."
        let (failed, _) = AppFixtures.run(asked, [.sandboxFailed(reason)])
        #expect(Self.panel(failed)?.on == ["code-reused"] && Self.panel(failed)?.isWaiting == false)
        let frame = AppScreen.frame(failed)
        #expect(frame.textLines()[22] == " " + reason)
        #expect(frame[22, 1].foreground == .error)
        #expect(frame.textLines()[3].hasPrefix("  [ ] token-5xx-html"))
        // Before any answer: the panel says so and r tries again.
        let (first, _) = AppFixtures.run(Self.withSandbox(), AppFixtures.keys("S") + [.sandboxFailed(reason)])
        #expect(AppScreen.frame(first).textLines()[1] == "  The sandbox did not answer: r tries again.")
        #expect(
            AppFixtures.run(first, AppFixtures.keys("r")).1 == [
                .sandboxFaults(
                    url: Self.url, faults: nil,
                    delayMs: 0)
            ])
        // Nor does n or Space switch anything yet: without the sandbox's list and delay they read it first.
        for key in ["n", " "] {
            #expect(
                AppFixtures.run(first, AppFixtures.keys(key)).1 == [
                    .sandboxFaults(
                        url: Self.url, faults: nil,
                        delayMs: 0)
                ])
        }
        // An answer after the panel was left is dropped.
        let (left, _) = AppFixtures.run(asked, [.key(.escape)])
        let (late, _) = AppFixtures.run(left, [.sandboxFailed(reason)])
        #expect(late.mode == .sessions && late.message == nil)
    }

    @Test func withoutASandboxSIsAOneLineError() {
        let (state, effects) = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("S"))
        #expect(effects.isEmpty && state.mode == .sessions)
        #expect(state.message?.isError == true)
        #expect(state.message?.text.hasPrefix("No sandbox is configured: authdeck sandbox --config-out FILE") == true)
    }

    @Test func movingLeavingAndHelp() {
        let state = Self.answered()
        #expect(Self.panel(AppFixtures.run(state, [.key(.end)]).0)?.selected == 2)
        #expect(Self.panel(AppFixtures.run(state, AppFixtures.keys("G") + [.key(.down)]).0)?.selected == 2)
        #expect(Self.panel(AppFixtures.run(state, AppFixtures.keys("Gg")).0)?.selected == 0)
        #expect(Self.panel(AppFixtures.run(state, [.key(.up)]).0)?.selected == 0)
        #expect(Self.panel(AppFixtures.run(state, [.key(.mouseClick(row: 5, col: 10))]).0)?.selected == 2)
        #expect(Self.panel(AppFixtures.run(state, [.key(.mouseClick(row: 12, col: 10))]).0)?.selected == 0)
        let (back, backEffects) = AppFixtures.run(state, [.key(.escape)])
        #expect(back.mode == .sessions && backEffects.isEmpty)
        let (quit, quitEffects) = AppFixtures.run(state, AppFixtures.keys("q"))
        #expect(quit.isQuitting && quitEffects == [.quit])
        // Opened by `sandbox panel`, Esc has nothing to go back to.
        var alone = state
        alone.singleScreen = true
        let (gone, goneEffects) = AppFixtures.run(alone, [.key(.escape)])
        #expect(gone.isQuitting && goneEffects == [.quit])
        #expect(AppScreen.frame(alone).textLines()[23].contains("Esc quit"))
        // Help lists the panel's keys from the table; any key closes it and the panel is still there.
        let (help, _) = AppFixtures.run(state, AppFixtures.keys("?"))
        let screen = AppScreen.frame(help).textDump()
        #expect(screen.contains("Space   switch the fault on or off"))
        #expect(screen.contains("n       every fault off"))
        let (closed, _) = AppFixtures.run(help, AppFixtures.keys("x"))
        #expect(closed.overlay == .none && Self.panel(closed) != nil)
    }

    @Test func theKeysAreInTheTablesHelpReads() {
        let sessions = HelpOverlay.entries(for: .sessions)
        #expect(sessions.contains { $0.key == "S" && $0.action == "sandbox faults panel" })
        #expect(KeyBinding.command(for: .character("S"), in: KeyBinding.sessions) == .sandboxPanel)
        #expect(KeyBinding.command(for: .character("o"), in: KeyBinding.traceReading) == .openTraceFile)
        #expect(KeyBinding.command(for: .character("a"), in: KeyBinding.traceReading) == .expandAll)
        #expect(
            HelpOverlay.entries(for: .sandbox(SandboxPanel(url: Self.url))).map(\.key)
                == ["↑/k", "↓/j", "Home/g", "End/G", "Space", "n", "d", "+", "-", "r", "Esc", "?", "q"])
    }

    static func tick(_ seconds: TimeInterval) -> AppEvent { .tick(AppFixtures.now.addingTimeInterval(seconds)) }

    @Test func dTypesTheDelayAndPlusAndMinusStepIt() {
        let (typing, none) = AppFixtures.run(Self.answered(), AppFixtures.keys("d"))
        #expect(none.isEmpty && Self.panel(typing)?.delayField?.text == "8000")
        #expect(AppScreen.frame(typing).textLines()[21].hasPrefix("  slow-provider's delay in ms, 0 to 60000"))
        let cleared = AppFixtures.run(typing, [.key(.clearToStart)]).0
        let (sent, effects) = AppFixtures.run(cleared, AppFixtures.keys("2500") + [.key(.enter)])
        // The faults that are on stay on; only the delay changes.
        #expect(effects == [.sandboxFaults(url: Self.url, faults: ["code-reused"], delayMs: 2500)])
        #expect(Self.panel(sent)?.delayField == nil && Self.panel(sent)?.isWaiting == true)
        var slower = Self.report
        slower.delayMs = 2500
        let (done, _) = AppFixtures.run(sent, [.sandboxAnswered(slower, switched: true)])
        #expect(done.message?.text == "slow-provider now waits 2500 ms at the sandbox.")
        #expect(
            AppFixtures.run(done, AppFixtures.keys("+")).1
                == [.sandboxFaults(url: Self.url, faults: ["code-reused"], delayMs: 3500)])
        #expect(
            AppFixtures.run(done, AppFixtures.keys("-")).1
                == [.sandboxFaults(url: Self.url, faults: ["code-reused"], delayMs: 1500)])
        // Out of range or not a number: one line, nothing sent, the field stays for a fix; Esc forgets it.
        for typed in ["60001", "fast", ""] {
            let (refused, nothing) = AppFixtures.run(
                typing, [.key(.clearToStart)] + AppFixtures.keys(typed) + [.key(.enter)])
            #expect(nothing.isEmpty && refused.message?.isError == true)
            #expect(
                refused.message?.text.hasPrefix("The delay is a whole number of milliseconds from 0 to 60000") == true)
            #expect(Self.panel(refused)?.delayField != nil)
        }
        let (kept, _) = AppFixtures.run(typing, [.key(.escape)])
        #expect(Self.panel(kept)?.delayField == nil && kept.mode != .sessions)
    }

    @Test func theSelectedFaultsDescriptionStandsWholeUnderTheList() {
        var long = Self.report
        long.available[0].summary = String(repeating: "a long description ", count: 6) + "ends here"
        let state = AppFixtures.run(
            Self.withSandbox(), AppFixtures.keys("S") + [.sandboxAnswered(long, switched: false)]
        ).0
        let lines = AppScreen.frame(state).textLines()
        #expect(lines[3].hasPrefix("  [ ] token-5xx-html") && !lines[3].contains("ends here"))
        #expect(lines[18] == "  token-5xx-html: a long description a long description a long description a")
        #expect(lines[19] == "  long description a long description a long description ends here.")
        let slow = AppScreen.frame(AppFixtures.run(state, [.key(.down)]).0).textLines()
        #expect(slow[18] == "  slow-provider: every answer comes late. Now 8000 ms: d types it, + and -")
        #expect(slow[19] == "  change it by a second.")
    }

    @Test func theOpenPanelReadsTheSandboxAgainOnItsOwn() {
        let state = Self.answered()
        let (polled, effects) = AppFixtures.run(state, [Self.tick(1)])
        #expect(effects == [.pollSandbox(url: Self.url, request: 1)])
        // One poll at a time, and none sooner than pollSeconds after the last.
        #expect(AppFixtures.run(polled, [Self.tick(2)]).1.isEmpty)
        let (same, _) = AppFixtures.run(polled, [.sandboxPolled(request: 1, .success(Self.report))])
        #expect(same.message == nil)
        #expect(AppFixtures.run(same, [Self.tick(2)]).1.isEmpty)
        #expect(AppFixtures.run(same, [Self.tick(3)]).1 == [.pollSandbox(url: Self.url, request: 2)])
        // Switched elsewhere: the boxes follow and the message says so.
        let elsewhere = SandboxPanel.Report(available: Self.report.available, on: ["slow-provider"], delayMs: 1500)
        let (changed, _) = AppFixtures.run(polled, [.sandboxPolled(request: 1, .success(elsewhere))])
        #expect(changed.message?.text == "Changed elsewhere: slow-provider (1500 ms).")
        #expect(AppScreen.frame(changed).textLines()[4].hasPrefix("  [x] slow-provider"))
        // A switch sent after the poll: the poll's older answer never undoes it.
        let (switched, _) = AppFixtures.run(polled, AppFixtures.keys(" "))
        let (stale, _) = AppFixtures.run(switched, [.sandboxPolled(request: 1, .success(elsewhere))])
        #expect(Self.panel(stale)?.on == ["code-reused"] && Self.panel(stale)?.isWaiting == true)
        #expect(AppFixtures.run(stale, [Self.tick(5)]).1.isEmpty)  // nor is a poll sent while the switch is out
        // The sandbox stops: said once, not at every poll.
        let down = SandboxPanel.Unreachable("cannot reach the sandbox: Could not connect to the server.")
        let (failed, _) = AppFixtures.run(polled, [.sandboxPolled(request: 1, .failure(down))])
        #expect(failed.message?.text == down.reason && failed.message?.isError == true)
        var quiet = AppFixtures.run(failed, [Self.tick(4)]).0
        quiet.message = nil
        let (again, _) = AppFixtures.run(quiet, [.sandboxPolled(request: 2, .failure(down))])
        #expect(again.message == nil)
        let (back, _) = AppFixtures.run(again, [Self.tick(7), .sandboxPolled(request: 3, .success(Self.report))])
        #expect(back.message?.text == "The sandbox answers again.")
        // Not on other screens.
        #expect(AppFixtures.run(AppFixtures.state(), [Self.tick(5)]).1.isEmpty)
    }
}
