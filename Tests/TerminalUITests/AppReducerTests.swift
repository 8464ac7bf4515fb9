import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Key scripts in, state and effects out: the reducer without a terminal.
@Suite struct AppReducerTests {
    let start = AppFixtures.state()

    @Test func movingAndSelectingASessionAsksTheStoreOnce() {
        // Enter opens the details and changes nothing (it reads how the token is bound); `u` makes it the default.
        let (opened, read) = AppFixtures.run(start, AppFixtures.keys("jjj") + [.key(.enter)])
        #expect(read == [.readBinding("東京-x")])
        #expect(opened.mode == .details("東京-x"))
        let (state, effects) = AppFixtures.run(opened, AppFixtures.keys("u"))
        #expect(state.sessions.current?.key == "東京-x")
        #expect(effects == [.select("東京-x")])
        let (selected, _) = AppFixtures.run(state, [.sessionSelected("東京-x")])
        #expect(selected.sessions.items.filter(\.isSelected).map(\.key) == ["東京-x"])
    }

    @Test func signOutHappensOnlyAfterYes() {
        let (asked, question) = AppFixtures.run(start, AppFixtures.keys("d"))
        #expect(asked.overlay == .confirmSignOut(key: "lab-discord", revoke: false))
        // Only the question whether the provider can end the session too; nothing is signed out yet.
        #expect(question == [.askEndSession("lab-discord")])
        #expect(AppFixtures.run(asked, AppFixtures.keys("n")).1.isEmpty)
        #expect(AppFixtures.run(asked, [.key(.escape)]).1.isEmpty)
        #expect(AppFixtures.run(asked, AppFixtures.keys("y")).1 == [.signOut("lab-discord", revoke: false)])
        let (revoking, _) = AppFixtures.run(start, AppFixtures.keys("R"))
        // No has the focus: a stray Enter keeps the session.
        #expect(AppFixtures.run(revoking, [.key(.enter)]).1.isEmpty)
        #expect(AppFixtures.run(revoking, AppFixtures.keys("y")).1 == [.signOut("lab-discord", revoke: true)])
        let (gone, _) = AppFixtures.run(asked, AppFixtures.keys("y") + [.sessionRemoved("lab-discord")])
        #expect(gone.sessions.count == 3)
        #expect(gone.sessions.current?.key == "ops-oidc")
    }

    @Test func filterJumpsToTheFirstMatchAndSortKeepsTheCursor() {
        let (filtered, _) = AppFixtures.run(start, AppFixtures.keys("/GOOGLE"))
        #expect(filtered.sessions.visible.count == 1)
        #expect(filtered.sessions.current?.key == "work-google")
        let (kept, _) = AppFixtures.run(filtered, [.key(.enter)])
        #expect(kept.filterField == nil && kept.sessions.filter == "GOOGLE")
        let (cleared, _) = AppFixtures.run(kept, [.key(.escape)])
        #expect(cleared.sessions.count == 4 && cleared.sessions.current?.key == "lab-discord")
        let (sorted, _) = AppFixtures.run(cleared, AppFixtures.keys("jjs"))
        #expect(sorted.sessions.sort == .expiry)
        #expect(
            sorted.sessions.visible.map { sorted.sessions.items[$0].key }
                == ["東京-x", "lab-discord", "work-google", "ops-oidc"])
        #expect(sorted.sessions.current?.key == "work-google")
    }

    @Test func refreshNeedsARefreshTokenAndStartsOnce() {
        let (refused, none) = AppFixtures.run(start, AppFixtures.keys("r"))
        #expect(none.isEmpty)
        #expect(refused.message?.isError == true)
        let (_, effects) = AppFixtures.run(start, AppFixtures.keys("jjrr"))
        #expect(effects == [.refresh("work-google")])
    }

    @Test func autoRefreshFiresOnceNearExpiry() {
        let later = AppFixtures.now.addingTimeInterval(3000 - 30)
        let (state, effects) = AppFixtures.run(start, [.tick(later), .tick(later.addingTimeInterval(1))])
        #expect(effects == [.autoRefresh("work-google")])
        let (failed, more) = AppFixtures.run(
            state,
            [
                .refreshFinished(key: "work-google", error: "invalid_grant"),
                .tick(later.addingTimeInterval(2)),
            ])
        #expect(more.isEmpty)  // a failed refresh waits for the user
        #expect(failed.message == AppState.Message("Refresh of work-google failed: invalid_grant", isError: true))
    }

    @Test func aBrowserSignInFollowsTheControllerToTheResult() {
        let (waiting, effects) = AppFixtures.run(start, AppFixtures.keys("ng"))
        let choice = SignInChoice(provider: .google, backend: "sandbox")
        #expect(effects == [.startSignIn(flow: 1, choice)])
        let reported = AppFixtures.run(waiting, AppFixtures.browserReports().map { .signIn(flow: 1, $0) }).0
        #expect(reported.flow?.prompt == .browser(url: AppFixtures.authorizeURL) && reported.flow?.promptQR == nil)
        let (done, _) = AppFixtures.run(reported, [.signIn(flow: 1, .finished(.success(AppFixtures.outcome)))])
        #expect(done.sessions.items.contains { $0.key == "google-ada" })
        let (back, leave) = AppFixtures.run(done, [.key(.enter)])
        #expect(leave == [.dismissSignIn(flow: 1)])
        #expect(back.mode == .sessions)
        #expect(back.sessions.current?.key == "google-ada")
    }

    @Test func pasteGoesToTheControllerOnlyWhenSent() {
        let state = AppFixtures.flowState(reports: AppFixtures.browserReports())
        let url = "http://127.0.0.1:40123/callback?code=c&state=st4te"
        let (typed, none) = AppFixtures.run(state, [.key(.paste(url))])
        #expect(none.isEmpty)
        #expect(typed.flow?.pasteField.text == url)
        #expect(AppFixtures.run(typed, [.key(.enter)]).1 == [.pasteRedirect(flow: 1, url)])
    }

    @Test func anEmailSignInAsksForTheContactThenTheCode() {
        let (contact, none) = AppFixtures.run(
            start, AppFixtures.keys("ne") + AppFixtures.keys("nobody") + [.key(.enter)])
        #expect(none.isEmpty)
        guard case .contact(let form) = contact.mode else {
            Issue.record("not on the contact step")
            return
        }
        #expect(form.error == SignInError.invalidContact.message)
        let (_, effects) = AppFixtures.run(contact, AppFixtures.keys("@example.com") + [.key(.enter)])
        var choice = SignInChoice(provider: .email, backend: "sandbox")
        choice.contact = .email("nobody@example.com")
        #expect(effects == [.startSignIn(flow: 1, choice)])
        let coded = AppScreenSnapshotTests.codeState(24, 80, typed: "12x3456")
        #expect(coded.flow?.codeField.code == "123456")
        #expect(AppFixtures.run(coded, [.key(.enter), .key(.enter)]).1 == [.enterCode(flow: 1, "123456")])
    }

    @Test func resendWaitsForItsCountdown() {
        let coded = AppScreenSnapshotTests.codeState(24, 80, typed: "")
        let (early, none) = AppFixtures.run(coded, [.key(.tab), .key(.enter)])
        #expect(none.isEmpty)
        #expect(early.flow?.notice == "You can ask for a new code in 25 s.")
        let (_, effects) = AppFixtures.run(early, [.tick(AppFixtures.now.addingTimeInterval(26)), .key(.enter)])
        #expect(effects == [.resendCode(flow: 1)])
    }

    @Test func aWrongTOTPCodeKeepsTheScreenAndCountsDown() {
        let attempt = AppFixtures.attempt()
        var challenge = TOTPChallenge(userJwt: "jwt", attemptsLeft: 5)
        let state = AppFixtures.flowState(
            reports: AppFixtures.browserReports()
                + [.stateChanged(.totpRequired(attempt, challenge, .waiting))])
        let (sent, effects) = AppFixtures.run(state, AppFixtures.keys("000000") + [.key(.enter)])
        #expect(effects == [.enterCode(flow: 1, "000000")])
        challenge.attemptsLeft = 4
        let (again, _) = AppFixtures.run(
            sent,
            [
                .signIn(flow: 1, .stateChanged(.totpRequired(attempt, challenge, .verifying))),
                .signIn(flow: 1, .stateChanged(.totpRequired(attempt, challenge, .waiting))),
                .signIn(flow: 1, .notice(.invalidCode)),
            ])
        #expect(again.flow?.codeField.code == "")
        #expect(again.flow?.notice == SignInError.invalidCode.message)
        guard case .running(.totpRequired(_, let shown, .waiting))? = again.flow?.phase else {
            Issue.record("left the TOTP screen")
            return
        }
        #expect(shown.attemptsLeft == 4)
    }

    @Test func aStoredTestAccountCodeIsUsedOnlyWhenAskedFor() {
        let attempt = AppFixtures.attempt()
        let challenge = TOTPChallenge(userJwt: "jwt", user: "dora@example.com", attemptsLeft: 5)
        let prompt = AppFixtures.flowState(
            reports: AppFixtures.browserReports()
                + [.stateChanged(.totpRequired(attempt, challenge, .waiting))])
        // Without an offer, `u` is just a key the digit field refuses.
        #expect(AppFixtures.run(prompt, AppFixtures.keys("u")).1.isEmpty)
        let (offered, none) = AppFixtures.run(prompt, [.signInDetail(flow: 1, .testAccountCodeOffered)])
        #expect(none.isEmpty)
        var sized = offered
        sized.rows = 24
        sized.cols = 80
        #expect(AppScreen.frame(sized).textDump().contains("press u to use its current code"))
        let (sent, effects) = AppFixtures.run(offered, AppFixtures.keys("uu"))
        #expect(effects == [.useTestAccountCode(flow: 1)])
        guard case .running(.totpRequired(_, _, .verifying))? = sent.flow?.phase else {
            Issue.record("the code is not shown as sent")
            return
        }
    }

    @Test func theTraceScreenExportsItsFlow() {
        let state = AppFixtures.flowState(reports: AppFixtures.browserReports())
        let (tracing, _) = AppFixtures.run(state, AppFixtures.keys("t"))
        #expect(tracing.overlay == .trace)
        let (_, effects) = AppFixtures.run(tracing, AppFixtures.keys("e"))
        #expect(effects == [.exportTrace(flow: 1)])
        var (noted, _) = AppFixtures.run(
            tracing,
            [.signInDetail(flow: 1, .traceExported("Trace written to /tmp/t.jsonl"))])
        noted.rows = 24
        noted.cols = 80
        #expect(AppScreen.frame(noted).textDump().contains("Trace written to /tmp/t.jsonl"))
    }

    @Test func unlockSendsThePassphraseOnceAndReturnsToTheList() {
        let locked = AppFixtures.state(store: .locked("wrapped by a passphrase"))
        let (asked, effects) = AppFixtures.run(locked, AppFixtures.keys("pw") + [.key(.enter), .key(.enter)])
        #expect(effects == [.unlock(passphrase: "pw")])
        let (open, _) = AppFixtures.run(asked, [.storeChanged(.unlocked(until: nil, source: "passphrase"))])
        #expect(open.mode == .sessions)
        let (again, none) = AppFixtures.run(locked, [.key(.escape)] + AppFixtures.keys("n"))
        #expect(none.isEmpty)
        guard case .unlock = again.mode else {
            Issue.record("a locked store must be unlocked to sign in")
            return
        }
    }

    @Test func quitAndRepaint() {
        #expect(AppFixtures.run(start, AppFixtures.keys("q")).1 == [.quit])
        #expect(AppFixtures.run(start, [.key(.interrupt)]).0.isQuitting)
        #expect(AppFixtures.run(start, [.key(.redraw)]).1 == [.repaint])
    }

    @Test func theViewScrollsWithTheCursorAtTenThousandSessions() {
        let many = (0..<10_000).map {
            SessionItem(
                record: AppFixtures.record(String(format: "s%05d", $0)),
                isSelected: false)
        }
        let state = AppFixtures.state(sessions: many)
        let (moved, _) = AppFixtures.run(state, [.key(.end)])
        #expect(moved.sessions.cursor == 9_999)
        #expect(AppScreen.frame(moved).textDump().contains("s09999"))
        let (paged, _) = AppFixtures.run(moved, [.key(.pageUp)])
        #expect(paged.sessions.cursor < 9_999)
    }
}
