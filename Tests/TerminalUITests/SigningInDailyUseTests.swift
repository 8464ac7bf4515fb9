import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Signing in again and reading traces: `R` repeats a sign-in, the backend is remembered, the Trace screen
/// scrolls over every step and keeps the last 20 attempts for `[` and `]`.
@Suite struct SigningInDailyUseTests {
    @Test func rOnTheResultRepeatsTheSameSignIn() {
        let base = AppFixtures.state()
        let (typed, _) = AppFixtures.run(
            base,
            AppFixtures.keys("n") + [.key(.tab), .key(.right), .key(.tab)]
                + AppFixtures.keys("repro") + [.key(.enter)])
        guard case .signIn(let first) = typed.mode else {
            Issue.record("the sign-in starts")
            return
        }
        #expect(first.choice.backend == "direct" && first.choice.sessionKey == "repro")
        let (ended, _) = AppFixtures.run(typed, [.signIn(flow: 1, .finished(.failure(.timedOut)))])
        let (again, effects) = AppFixtures.run(ended, AppFixtures.keys("R"))
        var expected = first.choice
        expected.replace = true
        #expect(effects == [.dismissSignIn(flow: 1), .startSignIn(flow: 2, expected)])
        guard case .signIn(let second) = again.mode else {
            Issue.record("the retry shows its screen")
            return
        }
        #expect(second.id == 2)
        // The New sign-in screen now opens on the backend last used.
        let (cancelled, _) = AppFixtures.run(again, [.key(.escape)] + AppFixtures.keys("n"))
        guard case .newSignIn(let form) = cancelled.mode else {
            Issue.record("n opens New sign-in")
            return
        }
        #expect(form.backend == "direct")
    }

    static func flowWithSteps(_ count: Int) -> AppState {
        let steps: [SignInDetail] = (1...count).map {
            .protocolStep(kind: "http", summary: "step \($0)", elapsedMilliseconds: Double($0))
        }
        return AppFixtures.flowState(reports: AppFixtures.browserReports(), details: steps)
    }

    @Test func theTraceScrollsOverEveryStep() {
        let (open, _) = AppFixtures.run(Self.flowWithSteps(40), AppFixtures.keys("t"))
        var screen = AppScreen.frame(open).textDump()
        #expect(screen.contains("step 40") && !screen.contains("step 1\n"))
        #expect(screen.contains("of 40"))
        let (top, _) = AppFixtures.run(open, [.key(.home)])
        screen = AppScreen.frame(top).textDump()
        #expect(screen.contains("step 1 ") || screen.contains("step 1\n"))
        #expect(!screen.contains("step 40"))
        let (down, _) = AppFixtures.run(top, AppFixtures.keys("j") + [.key(.pageDown)])
        // The bar moved one step and a page less one (18 lines fit at 80×24), the list scrolled under it.
        #expect(down.traceSelected == 18)
        #expect(down.traceScroll == 1)
        #expect(AppScreen.frame(down).textDump().contains("step 19"))
        let (end, _) = AppFixtures.run(down, [.key(.end)])
        #expect(end.traceScroll == nil)
        #expect(AppScreen.frame(end).textDump().contains("step 40"))
    }

    /// Protocol steps as the flow trace records them: a token request whose code was redacted by field, an ID
    /// token's decoded claims, and a step without details.
    static let detailedSteps: [SignInDetail] = [
        .protocolStep(
            kind: "request", summary: "POST http://127.0.0.1:41909/oidc/google/token",
            elapsedMilliseconds: 12,
            details: [
                "form": .object([
                    "grant_type": .string("authorization_code"),
                    "code": .string("[redacted 43 chars]"),
                ])
            ]),
        .protocolStep(
            kind: "id_token", summary: "ID token received", elapsedMilliseconds: 20,
            details: [
                "claims": .object(["email": .string("ada@example.com"), "aud": .string("sandbox-google")])
            ]),
        .protocolStep(kind: "result", summary: "stored session google-ada", elapsedMilliseconds: 25),
    ]

    @Test func enterExpandsTheSelectedStepsRedactedDetails() {
        let state = AppFixtures.flowState(reports: AppFixtures.browserReports(), details: Self.detailedSteps)
        let (open, _) = AppFixtures.run(state, AppFixtures.keys("t"))
        // The bar starts on the newest step, which has no details: Enter changes nothing.
        let (nothing, _) = AppFixtures.run(open, [.key(.enter)])
        #expect(nothing.traceExpanded.isEmpty)
        let (claims, _) = AppFixtures.run(open, AppFixtures.keys("k") + [.key(.enter)])
        #expect(claims.traceSelected == 1 && claims.traceExpanded == [1])
        var screen = AppScreen.frame(claims).textDump()
        #expect(screen.contains("▾") && screen.contains("\"email\" : \"ada@example.com\""))
        #expect(screen.contains("\"aud\" : \"sandbox-google\""))
        #expect(!screen.contains("[redacted 43 chars]"))
        let (both, _) = AppFixtures.run(claims, AppFixtures.keys("k") + [.key(.enter)])
        screen = AppScreen.frame(both).textDump()
        #expect(screen.contains("\"code\" : \"[redacted 43 chars]\""))
        #expect(screen.contains("\"grant_type\" : \"authorization_code\""))
        // Enter again folds it, h folds the other; `]`/`[` and Esc start the next view fresh.
        let (folded, _) = AppFixtures.run(both, [.key(.enter)] + AppFixtures.keys("jh"))
        #expect(folded.traceExpanded.isEmpty)
        #expect(!AppScreen.frame(folded).textDump().contains("ada@example.com"))
        let (closed, _) = AppFixtures.run(both, [.key(.escape)])
        #expect(closed.traceExpanded.isEmpty && closed.traceSelected == nil && closed.traceScroll == nil)
    }

    @Test func detailLinesAreSortedIndentedJSONWithControlCharactersEscaped() {
        let lines = TraceLine.detailLines(["b": .string("x\u{1B}[2Jy"), "a": .number(1)])
        #expect(lines == ["{", "  \"a\" : 1,", "  \"b\" : \"x\\u001b[2Jy\"", "}"])
        #expect(TraceLine.detailLines([:]).isEmpty)
    }

    /// What the controller reports for a wrong one-time code: the traced 401 whose body names the tries left
    /// (the sandbox's Auth Proxy words), the machine back to waiting, the notice.
    static func wrongCodeReports(left: Int) -> [AppEvent] {
        let attempt = AppScreenSnapshotTests.codeAttempt()
        return [
            .signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .verifying))),
            .signInDetail(
                flow: 1,
                .protocolStep(
                    kind: "response", summary: "401 from http://127.0.0.1:41909/v1/otp/verify", elapsedMilliseconds: 40,
                    details: [
                        "status": .number(401),
                        "body": .object([
                            "code": .number(16), "message": .string("invalid code (\(left) attempts left)"),
                        ]),
                    ])),
            .signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .waiting))),
            .signIn(flow: 1, .notice(.invalidCode)),
        ]
    }

    @Test func theCodeScreenCountsTheTriesTheBackendNamed() {
        let typed = AppScreenSnapshotTests.codeState(24, 80, typed: "123456")
        let (wrong, _) = AppFixtures.run(typed, [.key(.enter)] + Self.wrongCodeReports(left: 4))
        #expect(wrong.flow?.codeAttemptsLeft == 4)
        #expect(AppScreen.frame(wrong).textDump().contains("4 attempts left"))
        let (last, _) = AppFixtures.run(wrong, Self.wrongCodeReports(left: 1))
        #expect(AppScreen.frame(last).textDump().contains("1 attempt left"))
        let (none, _) = AppFixtures.run(wrong, Self.wrongCodeReports(left: 0))
        let used = AppScreen.frame(none).textDump()
        #expect(used.contains("no tries left for this code") && used.contains("Tab sends a new one, or Esc and R"))
        // A refusal that names no number leaves the count unknown, never guessed.
        let (plain, _) = AppFixtures.run(typed, [.key(.enter), .signIn(flow: 1, .notice(.invalidCode))])
        #expect(plain.flow?.codeAttemptsLeft == nil)
        #expect(!AppScreen.frame(plain).textDump().contains("attempts left"))
        // A new code has its own tries.
        var resent = AppScreenSnapshotTests.codeAttempt()
        let format = try! OTPCodeFormat(length: 6, alphanumeric: false)
        resent.method = .oneTimeCode(contact: .email("ada@example.com"), format: format, otpID: "otp-2")
        let (fresh, _) = AppFixtures.run(
            wrong,
            [
                .signIn(flow: 1, .stateChanged(.awaitingCallback(resent, .waiting)))
            ])
        #expect(fresh.flow?.codeAttemptsLeft == nil && fresh.flow?.codeResentAt != nil)
    }

    /// A refusal with the backend's own reason (a Turnkey proxy's rpcStatus message) is a wrong code too: the field
    /// is cleared for the next one, the reason is shown, and the tries the answer named are counted.
    @Test func aRefusalWithTheBackendsReasonClearsTheFieldForAnotherCode() {
        let typed = AppScreenSnapshotTests.codeState(24, 80, typed: "123456")
        let refusal = SignInError.codeRefused(reason: "invalid code (4 attempts left)")
        let reports = Self.wrongCodeReports(left: 4).dropLast() + [.signIn(flow: 1, .notice(refusal))]
        let (refused, _) = AppFixtures.run(typed, [.key(.enter)] + reports)
        #expect(refused.flow?.codeAttemptsLeft == 4)
        #expect(refused.flow?.notice == refusal.message)
        let (_, sent) = AppFixtures.run(refused, AppFixtures.keys("654321") + [.key(.enter)])
        #expect(sent == [.enterCode(flow: 1, "654321")])
    }

    @Test func aSentCodeShowsAsCheckedUntilTheMachineSaysOtherwise() {
        let typed = AppScreenSnapshotTests.codeState(24, 80, typed: "123456")
        let (sent, effects) = AppFixtures.run(typed, [.key(.enter)])
        #expect(effects == [.enterCode(flow: 1, "123456")])
        guard case .running(.awaitingCallback(_, .verifying))? = sent.flow?.phase else {
            Issue.record("the code is not shown as being checked")
            return
        }
        // A second Enter sends nothing; the controller's report of the same state changes nothing.
        let attempt = AppScreenSnapshotTests.codeAttempt()
        let checking = AppEvent.signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .verifying)))
        let (again, none) = AppFixtures.run(sent, [.key(.enter), checking])
        #expect(none.isEmpty)
        #expect(again.flow?.trace.filter { $0.text == "awaitingCallback (verifying)" }.count == 1)
        // Refused without being sent: the machine is told waiting again, and the next code goes out.
        let waiting = AppEvent.signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .waiting)))
        let (refused, _) = AppFixtures.run(again, [waiting, .signIn(flow: 1, .notice(.invalidCode))])
        let (retried, resent) = AppFixtures.run(refused, AppFixtures.keys("654321") + [.key(.enter)])
        #expect(resent == [.enterCode(flow: 1, "654321")])
        #expect(retried.flow?.notice == nil)
    }

    @Test func aUsedUpCodeSaysANewSignInIsTheWayOn() {
        let typed = AppScreenSnapshotTests.codeState(24, 80, typed: "")
        let endings: [SignInError] = [.rateLimited, .timedOut, .authenticationFailed(providerError: "code expired")]
        for error in endings {
            let (ended, _) = AppFixtures.run(typed, [.signIn(flow: 1, .finished(.failure(error)))])
            #expect(AppScreen.frame(ended).textDump().contains("This code cannot be used any more: R starts a new"))
        }
        // A browser sign-in keeps the general advice.
        let browser = AppFixtures.flowState(
            reports: AppFixtures.browserReports()
                + [.finished(.failure(.rateLimited))])
        #expect(AppScreen.frame(browser).textDump().contains("Wait a minute before trying again."))
    }

    @Test func theSandboxOutboxIsNamedOnlyForSandboxBackends() {
        var state = AppScreenSnapshotTests.codeState(24, 80, typed: "")
        state.sandboxOutbox = "/data/sandbox-outbox.jsonl"
        #expect(AppScreen.frame(state).textDump().contains("Sandbox: the code is in /data/sandbox-outbox.jsonl"))
        state.sandboxOutbox = nil
        #expect(!AppScreen.frame(state).textDump().contains("Sandbox:"))
    }

    /// A state whose `direct` backend cannot do Email and SMS codes (as ProviderSupport says of a direct backend).
    static func refusingState(rows: Int = 24, cols: Int = 80) -> AppState {
        var state = AppFixtures.state(rows: rows, cols: cols)
        state.providerRefusals = [
            "direct": [
                "email": "Email codes need a turnkey or sandbox backend",
                "sms": "SMS codes need a turnkey or sandbox backend",
            ]
        ]
        return state
    }

    @Test func providersABackendCannotDoAreGreyedWithTheReason() {
        let (onDirect, _) = AppFixtures.run(Self.refusingState(), AppFixtures.keys("nb"))
        guard case .newSignIn(let form) = onDirect.mode, form.backend == "direct" else {
            Issue.record("b moves to the direct backend")
            return
        }
        let buffer = AppScreen.frame(onDirect)
        let frames = NewSignInScreen.buttonFrames(form, rows: 24, cols: 80)
        let sms = frames[form.providers.firstIndex { $0.name == "sms" }!]
        let google = frames[form.providers.firstIndex { $0.name == "google" }!]
        #expect(buffer[sms.row, sms.col + 4].style.foreground == .dim)
        #expect(buffer[sms.row, sms.col + 1].style.foreground == .dim)  // the mnemonic too
        #expect(buffer[google.row, google.col + 4].style.foreground != .dim)
        #expect(buffer.textDump().contains("Greyed on direct: Email code, SMS code."))
        // Pressing a greyed provider starts nothing and says why.
        let (pressed, effects) = AppFixtures.run(onDirect, AppFixtures.keys("s"))
        #expect(effects.isEmpty)
        guard case .newSignIn(let after) = pressed.mode else {
            Issue.record("stays on New sign-in")
            return
        }
        #expect(after.error == "SMS code via direct: SMS codes need a turnkey or sandbox backend.")
        // On the sandbox backend the same key asks for the phone number.
        let (sandbox, _) = AppFixtures.run(Self.refusingState(), AppFixtures.keys("ns"))
        guard case .contact = sandbox.mode else {
            Issue.record("s on sandbox asks for the number")
            return
        }
    }

    @Test func aPortalUserIsNamedByTheEnrolmentLinksAccountNotItsUUID() {
        let uuid = "3e479fbd-5c0e-4f8e-9a51-0c6f1d2b7a90"
        let link = "otpauth://totp/authdeck%20sandbox:dora%40example.com?secret=JBSWY3DPEHPK3PXP"
        let challenge = TOTPChallenge(userJwt: "jwt", enrolmentLink: link, user: uuid, attemptsLeft: 5)
        let state = AppFixtures.flowState(
            reports: AppFixtures.browserReports() + [
                .stateChanged(.totpRequired(AppFixtures.attempt(), challenge, .waiting))
            ])
        let screen = AppScreen.frame(state).textDump()
        #expect(screen.contains("for dora@example.com"))
        #expect(!screen.contains(uuid))
        #expect(!screen.contains("JBSWY3DPEHPK3PXP"))
    }

    @Test func theLastTwentyAttemptsAreKeptForBrackets() {
        var state = AppFixtures.state()
        for attempt in 1...22 {
            state =
                AppFixtures.run(
                    state,
                    AppFixtures.keys("ng") + [
                        .signInDetail(
                            flow: attempt,
                            .protocolStep(
                                kind: "http", summary: "attempt \(attempt)",
                                elapsedMilliseconds: 1)),
                        .signIn(flow: attempt, .finished(.failure(.timedOut))), .key(.enter),
                    ]
                ).0
        }
        #expect(state.pastFlows.count == 20)
        #expect(state.pastFlows.first?.id == 3)
        let (open, _) = AppFixtures.run(state, AppFixtures.keys("t"))
        #expect(AppScreen.frame(open).textDump().contains("attempt 22"))
        let (older, _) = AppFixtures.run(open, AppFixtures.keys("[["))
        #expect(older.tracedFlow?.id == 20)
        #expect(AppScreen.frame(older).textDump().contains("attempt 18 of 20"))
        let (oldest, _) = AppFixtures.run(older, Array(repeating: .key(.character("[")), count: 30))
        #expect(oldest.tracedFlow?.id == 3)
        let (newer, _) = AppFixtures.run(oldest, AppFixtures.keys("]"))
        #expect(newer.tracedFlow?.id == 4)
        #expect(AppFixtures.run(newer, AppFixtures.keys("e")).1 == [.exportTrace(flow: 4)])
    }

    @Test func aClickOnResendPressesIt() {
        let state = AppScreenSnapshotTests.codeState(24, 80, typed: "")
        let early = AppFixtures.run(state, [.key(.mouseClick(row: 6, col: 12))])
        #expect(early.1.isEmpty)
        #expect(early.0.flow?.notice?.hasPrefix("You can ask for a new code in 25") == true)
        var later = state
        later.now = AppFixtures.now.addingTimeInterval(30)
        #expect(AppFixtures.run(later, [.key(.mouseClick(row: 6, col: 12))]).1 == [.resendCode(flow: 1)])
        #expect(AppFixtures.run(later, [.key(.mouseClick(row: 6, col: 40))]).1.isEmpty)
    }

    @Test func mSwitchesNewSignInToTheDeviceGrant() {
        let (form, _) = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("nm"))
        #expect(AppScreen.frame(form).textDump().contains("device grant: a code to type on any device"))
        let (_, effects) = AppFixtures.run(form, AppFixtures.keys("g"))
        guard case .startSignIn(_, let choice) = effects.first else {
            Issue.record("g starts")
            return
        }
        #expect(choice.useDevice && choice.provider == "google")
        // Codes by email never use the device grant.
        let (contact, _) = AppFixtures.run(form, AppFixtures.keys("eada@example.com") + [.key(.enter)])
        guard case .signIn(let flow) = contact.mode else {
            Issue.record("the code flow starts")
            return
        }
        #expect(!flow.choice.useDevice)
    }

    /// For an OpenID Connect provider `m` goes on to CIBA and client credentials, then back to the browser; CIBA
    /// without a login hint is told on the form (the keyboard on Login hint) and starts nothing.
    @Test func mCyclesAnOIDCProvidersGrantsAndCIBANeedsALoginHint() {
        var (form, _) = AppFixtures.run(AppFixtures.state(), AppFixtures.keys("n"))
        for _ in 0..<4 { form = AppFixtures.run(form, [.key(.right)]).0 }
        var seen: [String] = []
        for _ in 0..<4 {
            form = AppFixtures.run(form, AppFixtures.keys("m")).0
            let screen = AppScreen.frame(form).textDump()
            seen.append(
                ["device grant", "CIBA:", "client credentials:", "browser redirect"].first { screen.contains($0) }
                    ?? "?")
        }
        #expect(seen == ["device grant", "CIBA:", "client credentials:", "browser redirect"])
        form = AppFixtures.run(form, AppFixtures.keys("mm")).0
        let (refused, effects) = AppFixtures.run(form, [.key(.enter)])
        #expect(effects.isEmpty)
        #expect(AppScreen.frame(refused).textDump().contains("CIBA asks the user the login hint names"))
        guard case .newSignIn(let refusedForm) = refused.mode else {
            Issue.record("the form stays")
            return
        }
        #expect(refusedForm.focus == .loginHint)
        let (_, started) = AppFixtures.run(refused, AppFixtures.keys("ada@example.com") + [.key(.enter)])
        guard case .startSignIn(_, let choice) = started.first else {
            Issue.record("Enter starts CIBA once a login hint is typed")
            return
        }
        #expect(choice.method == .backchannel && choice.options?.loginHint == "ada@example.com")
    }

    @Test func aResentCodeIsAnnouncedWithItsTime() {
        let state = AppScreenSnapshotTests.codeState(24, 80, typed: "")
        let format = try! OTPCodeFormat(length: 6, alphanumeric: false)
        var attempt = AppScreenSnapshotTests.codeAttempt()
        attempt.method = .oneTimeCode(contact: .email("ada@example.com"), format: format, otpID: "otp-2")
        var later = state
        later.now = AppFixtures.now.addingTimeInterval(27 * 60)
        let changed = AppEvent.signIn(flow: 1, .stateChanged(.awaitingCallback(attempt, .waiting)))
        let (resent, _) = AppFixtures.run(later, [changed])
        #expect(AppScreen.frame(resent).textDump().contains("A new code was sent to ada@example.com at 08:27."))
        #expect(!AppScreen.frame(state).textDump().contains("A new code"))
    }
}
