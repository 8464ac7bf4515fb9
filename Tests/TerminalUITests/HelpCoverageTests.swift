import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The help overlay lists every key a screen takes. Each key a terminal can send (but text pastes, mouse
/// events and resizes) is fed to the reducer on each screen; a key that changes the state or asks for an effect
/// must be in that screen's help: in its `KeyBinding` table where the screen has one (Sessions, Details, Trace),
/// among the keys its help entries name otherwise.
@Suite struct HelpCoverageTests {
    static let universe: [KeyRequest] =
        [
            .up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape, .tab, .backTab, .backspace,
            .delete, .scrollUp, .scrollDown, .interrupt,
        ] + (1...12).map { KeyRequest.function($0) }
        + (32...126).map { KeyRequest.character(Character(UnicodeScalar($0)!)) }

    /// The keys of `universe` that do something on `state`.
    static func acting(on state: AppState) -> [KeyRequest] {
        universe.filter { key in
            let (after, effects) = AppState.update(state, .key(key))
            return after != state || !effects.isEmpty
        }
    }

    /// How help writes a key.
    static func name(_ key: KeyRequest) -> String {
        switch key {
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .interrupt: return "Ctrl-C"
        case .character(" "): return "Space"
        case .character(let character): return String(character)
        case .function(let number): return "F\(number)"
        default: return "\(key)"
        }
    }

    /// The key names the entries mention ("Esc/t/q" names three, "g a d x o" five).
    static func named(in entries: [HelpOverlay.Entry]) -> Set<String> {
        Set(entries.flatMap { $0.key.split { $0 == "/" || $0 == " " }.map(String.init) })
    }

    static func traceState() -> AppState {
        // Two ended attempts with steps that have details, and the second attempt's trace shown, mid-list.
        let steps: [SignInDetail] = (0..<30).map { index in
            .protocolStep(
                kind: "request", summary: "POST /token \(index)", elapsedMilliseconds: Double(index),
                details: ["grant_type": .string("authorization_code")])
        }
        var state = AppFixtures.flowState(rows: 24, cols: 80, reports: AppFixtures.browserReports(), details: steps)
        state = AppFixtures.run(state, [.signIn(flow: 1, .finished(.failure(.timedOut)))]).0
        state = AppFixtures.run(state, [.key(.enter), .key(.character("n")), .key(.character("g"))]).0
        state =
            AppFixtures.run(
                state,
                AppFixtures.browserReports().map { .signIn(flow: 2, $0) }
                    + steps.map { .signInDetail(flow: 2, $0) } + [.signIn(flow: 2, .finished(.failure(.timedOut)))]
            ).0
        return AppFixtures.run(state, AppFixtures.keys("tkkkk")).0
    }

    @Test func everyKeyTheTraceScreenTakesIsInItsTable() {
        let newest = Self.traceState()
        #expect(newest.overlay == .trace)
        let older = AppFixtures.run(newest, AppFixtures.keys("[kk")).0
        #expect(older.traceBack == 1)
        let expanded = AppFixtures.run(newest, AppFixtures.keys("l")).0
        #expect(!expanded.traceExpanded.isEmpty)
        for state in [newest, older, expanded] {
            for key in Self.acting(on: state) {
                #expect(
                    KeyBinding.command(for: key, in: KeyBinding.trace + KeyBinding.traceReading) != nil,
                    "\(key) works on the Trace screen but is not in KeyBinding.trace or .traceReading")
            }
        }
        // And the other way: the table's keys all work here (one that did nothing would be a promise in help).
        let acting = Set(Self.acting(on: newest) + Self.acting(on: older) + Self.acting(on: expanded))
        for binding in KeyBinding.trace + KeyBinding.traceReading {
            for key in binding.keys where !acting.contains(key) {
                Issue.record("\(key) is in the Trace screen's tables but does nothing there")
            }
        }
    }

    @Test func questionMarkOnTheTraceScreenListsItsKeysAndAnyKeyGoesBack() {
        let (help, _) = AppState.update(Self.traceState(), .key(.character("?")))
        #expect(help.overlay == .traceHelp)
        let screen = AppScreen.frame(help).textDump()
        for text in [
            "previous step", "PgUp", "Home/g", "expand or fold", "older attempt", "newer attempt",
            "export trace-", "close the trace", "open a trace file", "every step",
        ] {
            #expect(screen.contains(text), "help over the trace lacks \(text)")
        }
        let (back, effects) = AppState.update(help, .key(.character("e")))
        #expect(back.overlay == .trace && effects.isEmpty)
    }

    @Test func everyKeyTheSessionsAndDetailsScreensTakeIsInTheirTables() {
        let sessions = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("j")).0
        for key in Self.acting(on: sessions) {
            #expect(KeyBinding.command(for: key, in: KeyBinding.sessions) != nil, "\(key) on Sessions")
        }
        let details = AppFixtures.run(sessions, [.key(.enter)]).0
        guard case .details = details.mode else {
            Issue.record("Enter did not open the details")
            return
        }
        for key in Self.acting(on: details) {
            #expect(KeyBinding.command(for: key, in: KeyBinding.details) != nil, "\(key) on Details")
        }
    }

    @Test func everyKeyTheSignInScreensTakeIsInTheirHelp() {
        let newSignIn = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("n")).0
        let waiting = AppFixtures.flowState(reports: AppFixtures.browserReports())
        let result = AppFixtures.flowState(reports: AppFixtures.browserReports() + [.finished(.failure(.timedOut))])
        for (name, state) in [("New sign-in", newSignIn), ("waiting", waiting), ("result", result)] {
            let named = Self.named(in: HelpOverlay.entries(for: state.mode))
            for key in Self.acting(on: state) where !named.contains(Self.name(key)) {
                Issue.record("\(Self.name(key)) works on the \(name) screen but its help does not name it")
            }
        }
    }
}
