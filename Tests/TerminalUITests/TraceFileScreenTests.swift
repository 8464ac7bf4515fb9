import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// A trace file on the Trace screen: opened by `trace show FILE` (one screen, leaving quits) or by `o` in the TUI,
/// moved over and expanded with the screen's usual keys, damaged files told in one line.
@Suite struct TraceFileScreenTests {
    static let start = Date(timeIntervalSinceReferenceDate: 0)

    /// A customer's trace as `TraceDocument.screenFile` makes it: the code refused at the token endpoint.
    static func customerFile(path: String = "/srv/support/customer.jsonl") -> TraceFile {
        func line(
            _ ms: Double, _ kind: String, _ text: String, error: Bool = false,
            _ details: [String: JSONValue] = [:]
        ) -> TraceLine {
            TraceLine(
                time: start.addingTimeInterval(ms / 1000), kind: .step(kind), text: text, isError: error,
                details: TraceLine.detailLines(details))
        }
        return TraceFile(
            path: path, ending: "Authentication failed: invalid_grant: Bad Request. (exit 4)",
            endedInError: true, startedAt: start,
            lines: [
                line(
                    3, "transition", "idle → awaitingCallback(waiting)",
                    ["from": .string("idle"), "to": .string("awaitingCallback(waiting)")]),
                line(
                    10, "authorize", "authorize at https://accounts.google.com/o/oauth2/v2/auth",
                    ["url": .string("https://accounts.google.com/o/oauth2/v2/auth")]),
                line(4000, "receiver", "loopback: accepted", ["accepted": .bool(true), "source": .string("loopback")]),
                line(
                    4001, "request", "POST https://oauth2.googleapis.com/token",
                    ["method": .string("POST"), "url": .string("https://oauth2.googleapis.com/token")]),
                line(
                    4090, "response", "400 from https://oauth2.googleapis.com/token in 89 ms", error: true,
                    [
                        "status": .number(400),
                        "body": .object([
                            "error": .string("invalid_grant"),
                            "error_description": .string("Bad Request"),
                        ]),
                    ]),
                line(
                    4091, "result", "Authentication failed: invalid_grant: Bad Request.", error: true,
                    ["error": .string("Authentication failed: invalid_grant: Bad Request.")]),
                line(4092, "exit", "exit code 4", error: true, ["code": .number(4)]),
            ])
    }

    /// What `trace show FILE` starts from: one screen, the store not opened.
    static func shown(rows: Int = 24, cols: Int = 80) -> AppState {
        var state = AppState(rows: rows, cols: cols, now: AppFixtures.now, providers: [], backends: [])
        state.singleScreen = true
        state.showTraceFile(customerFile())
        return state
    }

    /// `/` finds a step by its words, `n` the next one, `!` the first that failed; an answer of 400 or more fails
    /// even when its step was not drawn as an error.
    @Test func slashFindsNFindsAgainAndBangJumpsToTheFirstFailure() {
        var state = AppFixtures.run(
            Self.shown(), [.key(.character("/"))] + AppFixtures.keys("OAUTH2.googleapis") + [.key(.enter)]
        ).0
        #expect(state.traceSelected == 3, "the token request")
        #expect(AppScreen.frame(state).textDump().contains("POST https://oauth2.googleapis.com/token"))
        state = AppFixtures.run(state, [.key(.character("n"))]).0
        #expect(state.traceSelected == 4, "its 400 answer")
        state = AppFixtures.run(state, [.key(.character("g")), .key(.character("!"))]).0
        #expect(state.traceSelected == 4)
        let missing = AppFixtures.run(state, [.key(.character("/"))] + AppFixtures.keys("zzz") + [.key(.enter)]).0
        #expect(missing.message?.text == "No step mentions “zzz”.")
        #expect(missing.traceSelected == 4, "the selection stays")
        // Details are searched too: only the 400 answer's body names error_description.
        let inDetails = AppFixtures.run(
            Self.shown(), [.key(.character("/"))] + AppFixtures.keys("error_description") + [.key(.enter)]
        ).0
        #expect(inDetails.traceSelected == 4)
        let quiet = TraceLine(
            time: Self.start, kind: .step("response"), text: "503 from the token endpoint",
            details: TraceLine.detailLines(["status": .number(503)]))
        #expect(AppState.failed(quiet))
        let fine = TraceLine(
            time: Self.start, kind: .step("response"), text: "200",
            details: TraceLine.detailLines(["status": .number(200)]))
        #expect(!AppState.failed(fine))
    }

    /// The path field after `o`: Tab asks the event loop to complete what was typed, Ctrl-U clears it.
    @Test func thePathFieldCompletesWithTabAndClearsWithCtrlU() throws {
        #expect(KeyMap.standard.request(for: Unicode.Scalar(0x15)) == .clearToStart)
        let typed = AppFixtures.run(Self.shown(), [.key(.character("o"))] + AppFixtures.keys("cust")).0
        #expect(typed.tracePathField?.text == "/srv/support/cust")
        let (_, effects) = AppFixtures.run(typed, [.key(.tab)])
        #expect(effects == [.completeTracePath("/srv/support/cust")])
        let completed = AppFixtures.run(
            typed, [.tracePathCompleted("/srv/support/customer-", choices: ["customer-a.jsonl", "customer-b.jsonl"])]
        ).0
        #expect(completed.tracePathField?.text == "/srv/support/customer-")
        #expect(completed.message?.text == "customer-a.jsonl  customer-b.jsonl")
        let cleared = AppFixtures.run(completed, [.key(.clearToStart)]).0
        #expect(cleared.tracePathField?.text == "")
    }

    /// `iat`, `exp` and `auth_time` get their moment beside them (the dates as GNU date -u -d @N prints them).
    @Test func timeClaimsShowTheirMoment() {
        let lines = TraceLine.detailLines([
            "claims": .object(["exp": .number(1_764_660_000), "auth_time": .number(1_700_000_000), "aud": .string("x")])
        ])
        #expect(lines.contains { $0.hasSuffix(#""exp" : 1764660000  (2025-12-02 07:20 UTC)"#) }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(#""auth_time" : 1700000000,  (2023-11-14 22:13 UTC)"#) }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(#""aud" : "x","#) })
    }

    @Test func theFileOpensOnItsFirstStepWithHowItEnded() {
        let state = Self.shown()
        #expect(state.overlay == .trace && state.traceSelected == 0)
        let frame = AppScreen.frame(state)
        let lines = frame.textLines()
        #expect(lines[0].hasPrefix(" authdeck · Trace") && lines[0].hasSuffix("steps 1–7 of 7"))
        #expect(lines[1] == "  File /srv/support/customer.jsonl")
        #expect(lines[2] == "  ended: Authentication failed: invalid_grant: Bad Request. (exit 4)")
        #expect(frame[2, 4].foreground == .error)
        #expect(lines[3] == " ▸   +0.003s transition idle → awaitingCallback(waiting)")
        #expect(lines[7] == " ▸   +4.090s response   400 from https://oauth2.googleapis.com/token in 89 ms")
        #expect(frame[3, 1].isReversed && !frame[4, 1].isReversed)
        #expect(frame[7, 30].foreground == .error)
        #expect(lines[21].contains("Secrets were redacted when the file was written"))
        // Nothing was opened but the file, and leaving quits: the bar says both.
        #expect(lines[23].hasPrefix(" store not opened") && lines[23].contains("Esc quit"))
        #expect(lines[23].contains("o open file") && !lines[23].contains("export"))
        #expect(!frame.textDump().contains("error_description"))
    }

    @Test func jkPagingAndEnterExpandAStepsRedactedBody() {
        let (down, _) = AppFixtures.run(Self.shown(), AppFixtures.keys("jjjj"))
        #expect(down.traceSelected == 4)
        let (expanded, effects) = AppFixtures.run(down, [.key(.enter)])
        #expect(effects.isEmpty && expanded.traceExpanded == [4])
        let lines = AppScreen.frame(expanded).textLines()
        #expect(lines[7].hasPrefix(" ▾   +4.090s response"))
        // Under the step, 25 columns in: the body's members sorted, as the file holds them (redacted already).
        let indent = String(repeating: " ", count: 25)
        #expect(
            Array(lines[8...14]) == [
                indent + "{", indent + "  \"body\" : {", indent + "    \"error\" : \"invalid_grant\",",
                indent + "    \"error_description\" : \"Bad Request\"", indent + "  },", indent + "  \"status\" : 400",
                indent + "}",
            ])
        #expect(lines[15].contains("result"))
        let (up, _) = AppFixtures.run(expanded, AppFixtures.keys("k"))
        #expect(up.traceSelected == 3)
        let (end, _) = AppFixtures.run(up, [.key(.end)])
        // The last step: row 3, six steps and the seven detail lines below it.
        let endFrame = AppScreen.frame(end)
        #expect(endFrame.textLines()[16].contains("exit code 4") && endFrame[16, 1].isReversed)
        let (home, _) = AppFixtures.run(end, [.key(.home)])
        #expect(home.traceSelected == 0)
        let (page, _) = AppFixtures.run(home, [.key(.pageDown)])
        #expect(page.traceSelected == 6)
        let (pageUp, _) = AppFixtures.run(page, [.key(.pageUp)])
        #expect(pageUp.traceSelected == 0)
        // A click selects the step on that row (row 3 is the first step).
        let (clicked, _) = AppFixtures.run(home, [.key(.mouseClick(row: 5, col: 20))])
        #expect(clicked.traceSelected == 2 && clicked.overlay == .trace)
    }

    @Test func aExpandsEveryStepAndFoldsThemAgain() {
        let (all, effects) = AppFixtures.run(Self.shown(), AppFixtures.keys("jja"))
        #expect(effects.isEmpty && all.traceExpanded == Set(0...6))
        // The selected step's line is the first in view; the claims of every step are on screen below it.
        let lines = AppScreen.frame(all).textLines()
        #expect(lines[3].hasPrefix(" ▾   +4.000s receiver") && AppScreen.frame(all)[3, 1].isReversed)
        #expect(lines.contains { $0.hasSuffix("\"source\" : \"loopback\"") })
        let (none, _) = AppFixtures.run(all, AppFixtures.keys("a"))
        #expect(none.traceExpanded.isEmpty)
        // Some expanded: a expands the rest.
        let (some, _) = AppFixtures.run(Self.shown(), [.key(.enter)] + AppFixtures.keys("a"))
        #expect(some.traceExpanded == Set(0...6))
        // A run with nothing to expand changes nothing.
        let (trace, _) = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("ta"))
        #expect(trace.traceExpanded.isEmpty)
    }

    @Test func leavingTheOneScreenTraceShowOpenedQuits() {
        for key in [KeyRequest.escape, .character("q"), .character("t"), .interrupt] {
            let (left, effects) = AppFixtures.run(Self.shown(), [.key(key)])
            #expect(left.isQuitting && effects == [.quit], "\(key)")
        }
        // Export and other attempts mean nothing for a file.
        let (exported, effects) = AppFixtures.run(Self.shown(), AppFixtures.keys("e[]"))
        #expect(effects.isEmpty && exported.traceFile != nil)
        #expect(exported.message?.text == "This trace is a file already: e exports the attempts that ran here.")
    }

    @Test func oAsksForAPathAndEnterAsksTheLoopToReadIt() {
        let (asked, none) = AppFixtures.run(Self.shown(), AppFixtures.keys("o"))
        #expect(none.isEmpty)
        // The field starts in the open file's folder.
        #expect(asked.tracePathField?.text == "/srv/support/")
        var lines = AppScreen.frame(asked).textLines()
        #expect(lines[21].hasPrefix("  Trace file (Tab completes, Enter opens, Esc cancels): /srv/support/"))
        // While the field is open, q and j are typed, not acted on.
        let (typed, typedEffects) = AppFixtures.run(asked, AppFixtures.keys("good-run.jsonq"))
        #expect(typedEffects.isEmpty && !typed.isQuitting)
        let (fixed, _) = AppFixtures.run(typed, [.key(.backspace)] + AppFixtures.keys("l"))
        let (sent, effects) = AppFixtures.run(fixed, [.key(.enter)])
        #expect(effects == [.openTraceFile("/srv/support/good-run.jsonl")])
        #expect(sent.tracePathField == nil && sent.message?.text == "Reading /srv/support/good-run.jsonl…")
        // Esc in the field only closes the field.
        let (cancelled, cancelEffects) = AppFixtures.run(asked, [.key(.escape)])
        #expect(cancelEffects.isEmpty && cancelled.tracePathField == nil && cancelled.overlay == .trace)
        #expect(!cancelled.isQuitting)
        // An empty path sends nothing.
        var empty = asked
        empty.tracePathField = TextField(isFocused: true)
        #expect(AppFixtures.run(empty, [.key(.enter)]).1.isEmpty)
        lines = AppScreen.frame(cancelled).textLines()
        #expect(!lines[21].contains("Trace file to open"))
    }

    @Test func aDamagedFileIsOneLineAndTheScreenKeepsWhatItShowed() {
        let (moved, _) = AppFixtures.run(Self.shown(), AppFixtures.keys("jj"))
        let reason =
            "/tmp/broken.jsonl line 2 is not a trace step (a JSON object with kind, at, elapsedMs, "
            + "summary and details)"
        let (failed, effects) = AppFixtures.run(moved, [.traceFileFailed(reason)])
        #expect(effects.isEmpty)
        #expect(failed.traceFile == moved.traceFile && failed.traceSelected == 2)
        #expect(failed.message == AppState.Message(reason, isError: true))
        let frame = AppScreen.frame(failed)
        #expect(frame.textLines()[22].hasPrefix(" /tmp/broken.jsonl line 2 is not a trace step"))
        #expect(frame[22, 2].foreground == .error)
    }

    @Test func anotherFileReplacesTheFirstFromItsTop() {
        let (moved, _) = AppFixtures.run(Self.shown(), AppFixtures.keys("jjj") + [.key(.enter)])
        var other = Self.customerFile(path: "/srv/support/good-run.jsonl")
        other.ending = "signed in (exit 0)"
        other.endedInError = false
        let (opened, _) = AppFixtures.run(moved, [.traceFileOpened(other)])
        #expect(opened.traceFile == other && opened.traceSelected == 0 && opened.traceExpanded.isEmpty)
        let frame = AppScreen.frame(opened)
        #expect(frame.textLines()[2] == "  ended: signed in (exit 0)")
        #expect(frame[2, 4].foreground == .active)
    }

    @Test func inTheTUIoOpensAFileOverTheAttemptsAndEscGoesBack() {
        let base = AppFixtures.state()
        let (trace, _) = AppFixtures.run(base, AppFixtures.keys("t"))
        #expect(AppScreen.frame(trace).textDump().contains("o opens a trace file"))
        let (asked, _) = AppFixtures.run(trace, AppFixtures.keys("o"))
        #expect(asked.tracePathField?.text == "")
        let (opened, _) = AppFixtures.run(
            asked,
            AppFixtures.keys("/srv/c.jsonl") + [
                .key(.enter),
                .traceFileOpened(Self.customerFile()),
            ])
        #expect(opened.traceFile != nil && opened.overlay == .trace)
        let lines = AppScreen.frame(opened).textLines()
        #expect(lines[23].hasPrefix(" unlocked") && lines[23].contains("Esc back"))
        let (back, effects) = AppFixtures.run(opened, [.key(.escape)])
        #expect(effects.isEmpty && !back.isQuitting)
        #expect(back.overlay == .none && back.traceFile == nil && back.mode == .sessions)
        // `t` again shows this run's attempts, not the file.
        let (again, _) = AppFixtures.run(back, AppFixtures.keys("t"))
        #expect(AppScreen.frame(again).textDump().contains("No sign-in has run"))
        // A file that arrives after the Trace screen was left is not forced on screen.
        let (late, _) = AppFixtures.run(back, [.traceFileOpened(Self.customerFile())])
        #expect(late.overlay == .none && late.traceFile == nil)
    }
}
