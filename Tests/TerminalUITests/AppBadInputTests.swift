import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Bad input on every screen, and the pointed checks: no crash, no garbled screen, no second flow.
@Suite struct AppBadInputTests {
    let start = AppFixtures.state()

    @Test func aTinyTerminalShowsOnlyTheMessageAndActsOnNothingButLeaving() {
        let (tiny, effects) = AppFixtures.run(start, [.key(.resize(rows: 10, cols: 40))] + AppFixtures.keys("jdy"))
        #expect(effects.isEmpty)
        #expect(tiny.overlay == .none)
        let text = AppScreen.frame(tiny).textDump()
        #expect(text.contains("Terminal too small") && text.contains("40×10"))
        #expect(!text.contains("lab-discord"))
        for size in [(1, 1), (0, 0), (15, 59), (16, 60)] {
            let frame = AppScreen.frame(AppFixtures.run(start, [.key(.resize(rows: size.0, cols: size.1))]).0)
            #expect(frame.rows == size.0 && frame.cols == size.1)
        }
    }

    @Test func aResizeStormDuringAFlowKeepsTheFlowAndLaysOutAgain() {
        var state = AppFixtures.flowState(
            reports: AppFixtures.browserReports(),
            details: [.promptCode(AppFixtures.modules)])
        for step in 0..<60 {
            let rows = [5, 16, 24, 40, 100][step % 5]
            let cols = [20, 60, 80, 120, 300][(step * 3) % 5]
            state = AppFixtures.run(state, [.key(.resize(rows: rows, cols: cols))]).0
            _ = AppScreen.frame(state)
        }
        state = AppFixtures.run(state, [.key(.resize(rows: 24, cols: 80))]).0
        #expect(state.flow?.id == 1)
        #expect(
            AppScreen.frame(state)
                == AppScreen.frame(
                    AppFixtures.flowState(
                        reports: AppFixtures.browserReports(), details: [.promptCode(AppFixtures.modules)])))
    }

    @Test func wideAndNonASCIINamesStayInTheirColumns() {
        let wide = SessionItem(
            record: AppFixtures.record(
                "会議室-アカウント-とても長い名前", provider: "x",
                user: "👩‍💻 Zoë Ångström 李小龍 e\u{301}"), isSelected: true)
        let frame = AppScreen.frame(AppFixtures.state(sessions: [wide]))
        let line = frame.textLines()[2]
        #expect(line.contains("会議室"))
        // The BACKEND column starts at the same place as in the header, whatever the names before it.
        let header = frame.textLines()[1]
        let backendColumn = DisplayText.width(of: String(header[..<header.range(of: "BACKEND")!.lowerBound]))
        #expect(frame[2, backendColumn].text == "d")
        for row in 0..<frame.rows {
            for col in 0..<frame.cols where frame[row, col].width == 2 {
                #expect(col + 1 < frame.cols && frame[row, col + 1].isContinuation)
            }
        }
    }

    @Test func pastedControlCharactersNeverReachTheScreenOrTheController() {
        let state = AppFixtures.flowState(reports: AppFixtures.browserReports())
        let junk = "\u{1B}[2J\u{1B}]0;pwned\u{07}http://127.0.0.1:40123/callback?code=c\u{0}&state=st4te\u{9B}31m"
        let (typed, _) = AppFixtures.run(state, [.key(.paste(junk))])
        #expect(typed.flow?.pasteField.text == "http://127.0.0.1:40123/callback?code=c&state=st4te")
        let (_, effects) = AppFixtures.run(typed, [.key(.enter)])
        #expect(effects == [.pasteRedirect(flow: 1, "http://127.0.0.1:40123/callback?code=c&state=st4te")])
        let text = AppScreen.frame(typed).textDump()
        #expect(!text.contains("\u{1B}") && !text.contains("pwned"))
        let (filtered, _) = AppFixtures.run(
            AppFixtures.state(), AppFixtures.keys("/") + [.key(.paste("\u{1B}[31mada"))])
        #expect(filtered.sessions.filter == "ada")
    }

    @Test func aDoubleKeyPressStartsOneAttempt() {
        for script in ["ngg", "ngggg", "nggn", "n\rg"] {
            let events: [AppEvent] = script.map { $0 == "\r" ? .key(.enter) : .key(.character($0)) }
            let (state, effects) = AppFixtures.run(start, events + [.key(.enter), .key(.enter)])
            let starts = effects.filter { if case .startSignIn = $0 { return true } else { return false } }
            #expect(starts.count == 1, "script \(script)")
            #expect(state.flow?.pasteField.text == "", "script \(script)")
        }
        // A late report of a cancelled flow does not leak into the next one.
        let (again, effects) = AppFixtures.run(
            start,
            AppFixtures.keys("ng") + [.key(.escape)] + AppFixtures.keys("ng")
                + [.signIn(flow: 1, .finished(.failure(.closed)))])
        #expect(effects.filter { if case .startSignIn = $0 { return true } else { return false } }.count == 2)
        #expect(again.flow?.id == 2 && again.flow?.phase == .starting)
        #expect(again.lastFlow?.phase == .finished(.failure(.closed)))
    }

    @Test func escInEveryStateDoesTheSensibleThing() {
        let esc: [AppEvent] = [.key(.escape)]
        // Sessions: clears a filter, else nothing.
        #expect(
            AppFixtures.run(AppFixtures.run(start, AppFixtures.keys("/x") + [.key(.enter)]).0, esc).0.sessions.filter
                == "")
        #expect(AppFixtures.run(start, esc).1.isEmpty && !AppFixtures.run(start, esc).0.isQuitting)
        // Overlays close.
        for keys in ["?", "t", "d"] {
            #expect(AppFixtures.run(start, AppFixtures.keys(keys) + esc).0.overlay == .none, "overlay \(keys)")
        }
        // New sign-in and contact go back a step.
        #expect(AppFixtures.run(start, AppFixtures.keys("n") + esc).0.mode == .sessions)
        guard case .newSignIn = AppFixtures.run(start, AppFixtures.keys("ne") + esc).0.mode else {
            Issue.record("Esc on the contact step goes back to the providers")
            return
        }
        // A running flow is cancelled, whatever its screen, and the list comes back.
        let attempt = AppFixtures.attempt()
        let running: [AppState] = [
            AppFixtures.flowState(),
            AppFixtures.flowState(reports: AppFixtures.browserReports()),
            AppFixtures.flowState(
                reports: AppFixtures.browserReports() + [.stateChanged(.awaitingCallback(attempt, .verifying))]),
            AppFixtures.flowState(
                reports: AppFixtures.browserReports()
                    + [.stateChanged(.totpRequired(attempt, TOTPChallenge(userJwt: "j"), .waiting))]),
            AppScreenSnapshotTests.codeState(24, 80, typed: "12"),
        ]
        for state in running {
            let (after, effects) = AppFixtures.run(state, esc)
            #expect(effects == [.cancelSignIn(flow: 1)])
            #expect(after.mode == .sessions)
            #expect(after.sessions.count == 4)
        }
        // The result screen is dismissed.
        let finished = AppFixtures.flowState(reports: [.finished(.failure(.timedOut))])
        #expect(AppFixtures.run(finished, esc).1 == [.dismissSignIn(flow: 1)])
        // The unlock prompt lets the list show, locked.
        let locked = AppFixtures.state(store: .locked("locked"))
        #expect(AppFixtures.run(locked, esc).0.mode == .sessions)
    }

    // MARK: - Pointed checks

    @Test func theRowUnderTheCursorIsReversedAndOnlyIt() {
        let frame = AppScreen.frame(AppFixtures.run(start, AppFixtures.keys("j")).0)
        #expect(frame[3, 5].isReversed)  // ops-oidc, the second row in key order
        #expect(!frame[2, 5].isReversed)
        #expect(!frame[4, 5].isReversed)
        #expect(frame.textLines()[3].hasPrefix("    ops-oidc"))
        #expect(frame.textLines()[4].hasPrefix("  * work-google"))  // the store's selected session is marked
    }

    @Test func statusesAndErrorsHaveTheirColours() {
        let frame = AppScreen.frame(start)
        let lines = frame.textLines()
        func cell(_ row: Int, _ text: String) -> Cell {
            let prefix = String(lines[row][..<lines[row].range(of: text)!.lowerBound])
            return frame[row, DisplayText.width(of: prefix)]
        }
        #expect(cell(2, "expiring").foreground == .expiring)
        #expect(cell(3, "active").foreground == .active)
        #expect(cell(5, "expired").foreground == .expired)
        let failed = AppFixtures.flowState(reports: [.finished(.failure(.timedOut))])
        let errorFrame = AppScreen.frame(failed)
        guard let row = errorFrame.textLines().firstIndex(where: { $0.contains("The sign-in timed out.") }) else {
            Issue.record("no error line:\n\(errorFrame.textDump())")
            return
        }
        let col = DisplayText.width(of: String(errorFrame.textLines()[row].prefix { $0 != "T" }))
        #expect(errorFrame[row, col].foreground == .error)
        let locked = AppScreen.frame(AppFixtures.state(store: .locked("x")))
        #expect(locked[23, 1].foreground == .error)  // "locked" in the status bar
    }

    @Test func thePassphraseIsNeverDrawn() {
        let locked = AppFixtures.state(store: .locked("wrapped by a passphrase"))
        let (typed, _) = AppFixtures.run(locked, AppFixtures.keys("hunter2"))
        let text = AppScreen.frame(typed).textDump()
        #expect(!text.contains("hunter2"))
        #expect(text.contains("•••••••"))
    }
}
