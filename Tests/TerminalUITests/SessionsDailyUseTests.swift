import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The Sessions screen for daily use: Enter opens details, `u` changes the default (and `z` undoes it), the key
/// table drives help and hints, columns fit their content, filters by field, marks, the folder's session.
@Suite struct SessionsDailyUseTests {
    let start = AppFixtures.state()

    @Test func enterOpensDetailsAndActionsAndChangesNothing() {
        let (opened, effects) = AppFixtures.run(start, AppFixtures.keys("j") + [.key(.enter)])
        #expect(effects == [.readBinding("ops-oidc")])  // a read of how its token is bound, nothing more
        #expect(opened.mode == .details("ops-oidc"))
        let screen = AppScreen.frame(opened).textDump()
        #expect(screen.contains("Session ops-oidc"))
        #expect(screen.contains("Actions"))
        #expect(screen.contains("u  default for scripts"))
        #expect(screen.contains("not the default (u makes it)"))
        let (back, _) = AppFixtures.run(opened, [.key(.escape)])
        #expect(back.mode == .sessions)
        #expect(back.sessions.current?.key == "ops-oidc")
    }

    @Test func uMakesTheDefaultSaysSoAndZUndoesIt() {
        let (asked, effects) = AppFixtures.run(start, AppFixtures.keys("u"))
        #expect(effects == [.select("lab-discord")])
        let (changed, _) = AppFixtures.run(asked, [.sessionSelected("lab-discord")])
        #expect(changed.message?.text == "Scripts now use lab-discord by default (was work-google) · z undoes.")
        #expect(changed.sessions.items.filter(\.isSelected).map(\.key) == ["lab-discord"])
        let (undoing, undo) = AppFixtures.run(changed, AppFixtures.keys("z"))
        #expect(undo == [.select("work-google")])
        let (undone, _) = AppFixtures.run(undoing, [.sessionSelected("work-google")])
        #expect(undone.message?.text == "Undone: scripts use work-google by default again.")
        #expect(AppFixtures.run(undone, AppFixtures.keys("z")).1.isEmpty)
    }

    @Test func undoWhenThereWasNoDefaultClearsIt() {
        let none = AppFixtures.state(
            sessions: AppFixtures.sessions.map {
                SessionItem(record: $0.record, isSelected: false)
            })
        let (asked, _) = AppFixtures.run(none, AppFixtures.keys("u") + [.sessionSelected("lab-discord")])
        #expect(asked.message?.text == "Scripts now use lab-discord by default (there was none) · z undoes.")
        let (undoing, effects) = AppFixtures.run(asked, AppFixtures.keys("z"))
        #expect(effects == [.clearDefault])
        let (cleared, _) = AppFixtures.run(undoing, [.defaultCleared])
        #expect(cleared.sessions.items.allSatisfy { !$0.isSelected })
        #expect(cleared.message?.text == "Undone: no session is the default for scripts.")
    }

    @Test func theKeyTableDrivesTheReducerHelpAndHints() {
        // Every binding that has a key shows in help, and each key does what its command says.
        let help = HelpOverlay.lines(for: .sessions, width: 100, height: 40).joined(separator: "\n")
        for binding in KeyBinding.sessions {
            #expect(help.contains(binding.label + "  ") && help.contains(binding.help), "\(binding.label)")
        }
        #expect(help.contains("u       default for scripts"))
        #expect(KeyBinding.command(for: .character("u"), in: KeyBinding.sessions) == .makeDefault)
        #expect(KeyBinding.command(for: .enter, in: KeyBinding.sessions) == .open)
        let (pinned, _) = (KeyBinding.hints(KeyBinding.sessions).pinned, 0)
        #expect(pinned.map(\.key) == ["?", "q"])
        // Help at 80×24 is aligned in columns, not run-on text.
        let frame = AppScreen.frame(AppFixtures.run(start, AppFixtures.keys("?")).0).textLines()
        let keyLines = frame.filter { $0.contains("│ ↑/k     move up") || $0.contains("│ n       new sign-in") }
        #expect(keyLines.count == 2)
    }

    @Test func theStatusBarKeepsHelpAndQuitAtEveryWidth() {
        for cols in [60, 80, 100, 120] {
            var state = AppFixtures.state(
                rows: 24, cols: cols,
                store: .unlocked(until: AppFixtures.now, source: "secret-service"))
            state.message = nil
            let bar = AppScreen.frame(state).textLines().last ?? ""
            #expect(bar.contains("? help") && bar.contains("q quit"), "\(cols): \(bar)")
            for mode in [AppFixtures.keys("j") + [.key(.enter)]] {
                let details = AppScreen.frame(AppFixtures.run(state, mode).0).textLines().last ?? ""
                #expect(details.contains("? help") && details.contains("q quit"), "\(cols): \(details)")
            }
        }
    }

    @Test func columnsFitTheirContentAndLongKeysAreCutInTheMiddle() {
        let long = "sandbox-portal-customer-support-reproduction-google-3e479fbd"
        var items = AppFixtures.sessions
        items.append(SessionItem(record: AppFixtures.record(long, backend: "sandbox-portal"), isSelected: false))
        items.append(SessionItem(record: AppFixtures.record("b2", backend: "sandbox-turnkey"), isSelected: false))
        let lines = AppScreen.frame(AppFixtures.state(sessions: items)).textLines()
        // The two sandbox backends are told apart, and the key keeps both ends.
        #expect(lines.contains { $0.contains("sandbox-portal ") })
        #expect(lines.contains { $0.contains("sandbox-turnkey") })
        let keyLine = lines.first { $0.contains("…") && $0.contains("3e479fbd") }
        #expect(keyLine?.contains("sandbox-po") == true, "\(lines.joined(separator: "\n"))")
        #expect(DisplayText.truncatedMiddle("abcdefghij", toWidth: 7) == "abc…hij")
        #expect(DisplayText.truncatedMiddle("short", toWidth: 7) == "short")
    }

    @Test func rowPositionAndSignedExpiry() {
        let (moved, _) = AppFixtures.run(start, AppFixtures.keys("jj"))
        let screen = AppScreen.frame(moved).textDump()
        #expect(screen.contains("3/4"))
        #expect(screen.contains("-1m 00s"))  // 東京-x expired a minute ago
        #expect(TimeText.signed(-7800) == "-2h 10m")
        #expect(TimeText.signed(245) == "4m 05s")
    }

    @Test func theFilterMatchesStatusBackendAndProviderAndJumpsToTheFirstMatch() {
        let (end, _) = AppFixtures.run(start, [.key(.end)])
        #expect(end.sessions.current?.key == "東京-x")
        let keys = { (state: AppState) in state.sessions.visible.map { state.sessions.items[$0].key } }
        let (sandbox, _) = AppFixtures.run(end, AppFixtures.keys("/backend:sand"))
        #expect(keys(sandbox) == ["lab-discord", "ops-oidc"])
        #expect(sandbox.sessions.current?.key == "lab-discord")
        let (expired, _) = AppFixtures.run(start, AppFixtures.keys("/status:expired"))
        #expect(keys(expired) == ["東京-x"])
        let (both, _) = AppFixtures.run(start, AppFixtures.keys("/status:exp provider:d"))
        #expect(keys(both) == ["lab-discord"])
        let (text, _) = AppFixtures.run(start, AppFixtures.keys("/corp"))
        #expect(keys(text) == ["ops-oidc"])
    }

    @Test func spaceMarksRowsAndRAndDActOnTheMarked() {
        let refreshable = AppFixtures.sessions.map {
            SessionItem(record: AppFixtures.record($0.key, expiresIn: 600, refreshable: true), isSelected: false)
        }
        let state = AppFixtures.state(sessions: refreshable)
        let (marked, _) = AppFixtures.run(state, AppFixtures.keys(" j "))
        #expect(marked.marked == ["lab-discord", "work-google"])
        #expect(AppScreen.frame(marked).textDump().contains(" +  lab-discord"))
        let (_, refreshes) = AppFixtures.run(marked, AppFixtures.keys("r"))
        #expect(refreshes == [.refresh("lab-discord"), .refresh("work-google")])
        let (asked, none) = AppFixtures.run(marked, AppFixtures.keys("d"))
        #expect(none.isEmpty)
        #expect(asked.overlay == .confirmSignOutMarked(keys: ["lab-discord", "work-google"]))
        #expect(AppFixtures.run(asked, [.key(.enter)]).1.isEmpty)
        let (done, signOuts) = AppFixtures.run(asked, AppFixtures.keys("y"))
        #expect(signOuts == [.signOut("lab-discord", revoke: false), .signOut("work-google", revoke: false)])
        #expect(done.marked.isEmpty)
        let (unmarked, _) = AppFixtures.run(marked, [.key(.escape)])
        #expect(unmarked.marked.isEmpty)
    }

    @Test func theFoldersSessionIsMarkedAndNamed() {
        var state = start
        state.directorySession = "ops-oidc"
        let lines = AppScreen.frame(state).textLines()
        #expect(lines.contains { $0.hasPrefix("  @ ops-oidc") })
        #expect(lines.contains { $0.hasPrefix("  * work-google") })
        let (opened, _) = AppFixtures.run(state, AppFixtures.keys("j") + [.key(.enter)])
        #expect(AppScreen.frame(opened).textDump().contains("used in this folder (.authdeck-session)"))
    }

    @Test func theNextActionClearsTheMessage() {
        let (sorted, _) = AppFixtures.run(start, AppFixtures.keys("s"))
        #expect(sorted.message != nil)
        let (moved, _) = AppFixtures.run(sorted, AppFixtures.keys("j"))
        #expect(moved.message == nil)
    }
}

/// Copies (OSC 52) and long messages.
@Suite struct CopyAndMessageTests {
    let start = AppFixtures.state()

    @Test func copyingATokenAboutToExpireRefreshesItFirstAndCopiesOnlyWhenThatWorked() {
        let due = SessionItem(record: AppFixtures.record("due", expiresIn: 30, refreshable: true), isSelected: false)
        let state = AppFixtures.state(sessions: [due])
        let (asked, refresh) = AppFixtures.run(state, AppFixtures.keys("c"))
        #expect(refresh == [.refresh("due")])
        #expect(asked.message?.text == "Refreshing due before copying its token…")
        #expect(AppFixtures.run(asked, [.refreshFinished(key: "due", error: nil)]).1 == [.copyToken("due")])
        let (failed, none) = AppFixtures.run(asked, [.refreshFinished(key: "due", error: "invalid_grant")])
        #expect(none.isEmpty)
        #expect(failed.message?.text == "Refresh of due failed, nothing was copied: invalid_grant")
        // A later refresh of the same session (r) copies nothing.
        #expect(AppFixtures.run(failed, [.refreshFinished(key: "due", error: nil)]).1.isEmpty)
    }

    @Test func copyKeysAskForTheKeyTheExportLineAndTheToken() {
        #expect(AppFixtures.run(start, AppFixtures.keys("y")).1 == [.copy("lab-discord", what: "the key lab-discord")])
        #expect(
            AppFixtures.run(start, AppFixtures.keys("e")).1
                == [.copy("export AUTHDECK_SESSION=lab-discord", what: "an export line")])
        #expect(AppFixtures.run(start, AppFixtures.keys("c")).1 == [.copyToken("lab-discord")])
        #expect(ShellWord.posixTyped("東京 'x'") == "'東京 '\\''x'\\'")
        let locked = AppFixtures.state(store: .locked("wrapped by a passphrase"))
        let (asked, none) = AppFixtures.run(locked, [.key(.escape)] + AppFixtures.keys("c"))
        #expect(none.isEmpty)
        guard case .unlock = asked.mode else {
            Issue.record("a token copy needs the unlock")
            return
        }
    }

    @Test func cOnTheWaitingScreenCopiesTheAuthorizeURL() {
        let state = AppFixtures.flowState(reports: AppFixtures.browserReports())
        #expect(
            AppFixtures.run(state, AppFixtures.keys("c")).1
                == [.copy(AppFixtures.authorizeURL, what: "the sign-in URL")])
        #expect(Clipboard.sequence(for: "hi") == "\u{1B}]52;c;aGk=\u{1B}\\")
        #expect(Clipboard.sequence(for: String(repeating: "x", count: 80_000)) == nil)
    }

    @Test func aLongMessageSaysHowToReadItAllAndMOpensIt() {
        let long =
            "Refresh of work-google failed: invalid_grant: the refresh token was revoked by the provider "
            + "at 06:27 because the user changed their password"
        let (failed, _) = AppFixtures.run(start, [.storeFailed(long)])
        let line = AppScreen.frame(failed).textLines()[22]
        #expect(line.hasSuffix("(m: all)"), "\(line)")
        let (open, _) = AppFixtures.run(failed, AppFixtures.keys("m"))
        #expect(open.overlay == .message)
        #expect(AppScreen.frame(open).textDump().contains("changed their password"))
        let (closed, _) = AppFixtures.run(open, AppFixtures.keys("x"))
        #expect(closed.overlay == .none)
    }

    @Test func capitalDRunsTheDoctorAndShowsItsLines() {
        let (asked, effects) = AppFixtures.run(start, AppFixtures.keys("D"))
        #expect(effects == [.runDoctor])
        let (shown, _) = AppFixtures.run(
            asked,
            [
                .doctorReport([
                    "OK    store            4 sessions",
                    "FAIL  provider google  redirect URI refused",
                ])
            ])
        #expect(
            shown.overlay
                == .doctor([
                    "OK    store            4 sessions",
                    "FAIL  provider google  redirect URI refused",
                ]))
        #expect(AppScreen.frame(shown).textDump().contains("redirect URI refused"))
        #expect(AppFixtures.run(shown, AppFixtures.keys("j")).0.overlay == .none)
    }
}
