import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The `:` command line: actions by name with a session key, filter and sort arguments, Tab completion, history,
/// the text-field keys, the same confirm dialog as the keys, and one line for a name it does not know.
@Suite struct CommandPromptTests {
    let start = AppFixtures.state()

    /// `:` then `line` typed, then `last` (Enter unless given).
    func command(_ line: String, in state: AppState? = nil, last: KeyRequest = .enter) -> (AppState, [AppEffect]) {
        AppFixtures.run(state ?? start, AppFixtures.keys(":" + line) + [.key(last)])
    }

    @Test func aCommandNamingASessionMovesToItAndActsAsItsKeyDoes() {
        let (refreshing, effects) = command("refresh work-google")
        #expect(effects == [.refresh("work-google")])
        #expect(refreshing.sessions.current?.key == "work-google")
        #expect(refreshing.commandPrompt == nil)
        #expect(refreshing.message?.text == "Refreshing work-google…")
        #expect(command("use lab-discord").1 == [.select("lab-discord")])
        #expect(command("copy-key ops-oidc").1 == [.copy("ops-oidc", what: "the key ops-oidc")])
        // Without a key, the session under the cursor, as the key.
        #expect(command("use").1 == [.select("lab-discord")])
    }

    @Test func aDestructiveCommandAsksTheSameQuestionAsItsKey() {
        let (asking, effects) = command("logout ops-oidc")
        #expect(asking.overlay == .confirmSignOut(key: "ops-oidc", revoke: false))
        #expect(effects == [.askEndSession("ops-oidc")])
        let (kept, none) = AppFixtures.run(asking, [.key(.character("n"))])
        #expect(none.isEmpty)
        #expect(kept.message?.text == "Nothing was signed out.")
        #expect(command("revoke 東京-x").0.overlay == .confirmSignOut(key: "東京-x", revoke: true))
        // A key named acts on that session alone even with rows marked; the marks stay.
        let marked = AppFixtures.run(start, AppFixtures.keys("  ")).0
        let (one, _) = command("logout ops-oidc", in: marked)
        #expect(one.overlay == .confirmSignOut(key: "ops-oidc", revoke: false))
        #expect(one.marked == ["lab-discord", "ops-oidc"])
        // Without a key, the marked ones, as d.
        #expect(command("logout", in: marked).0.overlay == .confirmSignOutMarked(keys: ["lab-discord", "ops-oidc"]))
    }

    @Test func anUnknownNameIsOneLineNamingTheNearestCommand() {
        let (refused, effects) = command("refrsh work-google")
        #expect(effects.isEmpty)
        #expect(
            refused.message
                == AppState.Message(
                    "Unknown command :refrsh: did you mean :refresh? (Tab lists the commands, ? the keys)",
                    isError: true))
        #expect(command("zzzzzz").0.message?.text == "Unknown command :zzzzzz (Tab lists the commands, ? the keys)")
        #expect(command("refresh nobody").0.message?.text == "No session nobody is stored (Tab completes the keys).")
        #expect(command("quit now").0.message?.text == ":quit takes nothing after it (:quit alone).")
        #expect(!command("quit now").0.isQuitting)
    }

    @Test func filterAndSortTakeTheirArguments() {
        let (filtered, _) = command("filter status:expired")
        #expect(filtered.sessions.filter == "status:expired")
        #expect(filtered.sessions.count == 1)
        #expect(filtered.sessions.current?.key == "東京-x")
        // No argument opens the `/` field, as the key does.
        #expect(command("filter").0.filterField != nil)
        #expect(command("sort expiry").0.sessions.sort == .expiry)
        #expect(command("sort").0.sessions.sort == .expiry)  // the next order, as `s`
        let (refused, _) = command("sort age")
        #expect(
            refused.message?.text == "No sort field “age”: :sort takes key, expiry, provider, user, backend "
                + "(-FIELD reverses).")
        #expect(refused.sessions.sort == .key)
    }

    @Test func namesRunWhatTheirKeysRun() {
        #expect(command("quit").1 == [.quit])
        #expect(command("q").1 == [.quit])
        #expect(command("help").0.overlay == .help)
        #expect(command("trace").0.overlay == .trace)
        #expect(command("doctor").1 == [.runDoctor])
        #expect(command("lock").1 == [.lockStore])
        #expect(command("bottom").0.sessions.cursor == 3)
        if case .newSignIn = command("new").0.mode {} else { Issue.record("`:new` did not open New sign-in") }
        // Details' own action from the list opens the session's details first.
        let (inspecting, effects) = command("inspect ops-oidc")
        #expect(inspecting.mode == .details("ops-oidc"))
        #expect(effects == [.readBinding("ops-oidc"), .inspect("ops-oidc")])
        // The list's own from Details goes back to the list.
        let details = AppFixtures.run(start, [.key(.enter)]).0
        let (filtered, _) = command("filter status:expired", in: details)
        #expect(filtered.mode == .sessions)
        #expect(filtered.sessions.filter == "status:expired")
    }

    @Test func tabCompletesNamesKeysSortFieldsAndFilterFields() {
        func tabbed(_ typed: String) -> CommandPrompt? { command(typed, last: .tab).0.commandPrompt }
        #expect(tabbed("ref")?.field.text == "refresh ")
        let both = tabbed("lo")
        #expect(both?.field.text == "lo")
        #expect(both?.choices == ["logout", "lock"])
        #expect(tabbed("logout w")?.field.text == "logout work-google ")
        #expect(tabbed("sort -ex")?.field.text == "sort -expiry ")
        #expect(tabbed("sort e")?.field.text == "sort expiry ")
        #expect(tabbed("filter st")?.field.text == "filter status:")
        let statuses = tabbed("filter status:exp")
        #expect(statuses?.field.text == "filter status:expir")
        #expect(statuses?.choices == ["status:expiring", "status:expired"])
        #expect(tabbed("filter provider:dis")?.field.text == "filter provider:discord ")
        #expect(tabbed("xyz")?.note == "nothing starts with “xyz”")
        #expect(tabbed("quit ")?.note == ":quit takes nothing after it")
    }

    @Test func escCancelsAndTheTextFieldKeysEdit() {
        let (cancelled, effects) = command("logout ops-oidc", last: .escape)
        #expect(cancelled.commandPrompt == nil)
        #expect(effects.isEmpty)
        #expect(cancelled.overlay == .none)
        let typed = AppFixtures.run(start, AppFixtures.keys(":refresh work-google")).0
        let word = AppFixtures.run(typed, [.key(.deleteWordBackward)]).0
        #expect(word.commandPrompt?.field.text == "refresh ")
        let line = AppFixtures.run(typed, [.key(.home), .key(.character("x")), .key(.end), .key(.clearToStart)]).0
        #expect(line.commandPrompt?.field.text == "")
        let startOfLine = AppFixtures.run(typed, [.key(.home), .key(.character("x"))]).0
        #expect(startOfLine.commandPrompt?.field.text == "xrefresh work-google")
    }

    @Test func upAndDownWalkThisRunsCommands() {
        var state = command("sort expiry").0
        state = command("filter status:active", in: state).0
        let opened = AppFixtures.run(state, AppFixtures.keys(":draft")).0
        let up = AppFixtures.run(opened, [.key(.up)]).0
        #expect(up.commandPrompt?.field.text == "filter status:active")
        let upTwice = AppFixtures.run(up, [.key(.up), .key(.up)]).0
        #expect(upTwice.commandPrompt?.field.text == "sort expiry")
        let down = AppFixtures.run(upTwice, [.key(.down)]).0
        #expect(down.commandPrompt?.field.text == "filter status:active")
        let back = AppFixtures.run(down, [.key(.down)]).0
        #expect(back.commandPrompt?.field.text == "draft")
    }

    @Test func aKeyTheListHasNotReadIsLookedUpAndTheCommandRunsThen() {
        let source = PagedSessionsTests.KeySource(count: 1000)
        let state = AppFixtures.paged(SessionList(selected: nil), answering: source)
        let (used, effects) = AppFixtures.run(
            state, AppFixtures.keys(":use s00900") + [.key(.enter)], answering: source)
        #expect(effects == [.select("s00900")])
        #expect(used.sessions.current?.key == "s00900")
        #expect(used.commandPending == nil)
        let (asked, _) = AppFixtures.run(
            state, AppFixtures.keys(":logout s00950") + [.key(.enter)], answering: source)
        #expect(asked.overlay == .confirmSignOut(key: "s00950", revoke: false))
        let (missing, _) = AppFixtures.run(
            state, AppFixtures.keys(":refresh s99999") + [.key(.enter)], answering: source)
        #expect(missing.message?.text == "No session s99999 is stored (Tab completes the keys).")
        // Paged, Tab asks the store for the keys; its answer completes the line.
        let (tabbed, completing) = AppFixtures.run(
            state, AppFixtures.keys(":use s0095") + [.key(.tab)], answering: source)
        #expect(completing == [.completeSessionKeys("s0095")])
        let answered = AppFixtures.run(
            tabbed, [.sessionKeysCompleted(prefix: "s0095", keys: ["s00950", "s00951"])]
        ).0
        #expect(answered.commandPrompt?.field.text == "use s0095")
        #expect(answered.commandPrompt?.choices == ["s00950", "s00951"])
    }

    @Test func theLineAndWhatTabFoundDrawOverTheBottomRows() {
        let state = command("lo", last: .tab).0
        let screen = AppScreen.frame(state).textDump()
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[22].hasPrefix(" :lo"), "\(screen)")
        #expect(lines[23].contains("2 fit:  logout   lock"), "\(screen)")
        let open = AppScreen.frame(AppFixtures.run(start, AppFixtures.keys(":")).0).textDump()
        #expect(open.contains("Tab complete  Enter run  ↑/↓ history"), "\(open)")
        #expect(open.contains("Esc cancel"))
    }
}
