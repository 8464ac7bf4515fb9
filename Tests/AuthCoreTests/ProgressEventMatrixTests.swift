import AuthCore
import Foundation
import Testing

/// Every (state, progress) pair against every event, not only the four top-level states: the action each returns
/// and where it leaves the machine, written out by hand as a table. The cancel races live here: a cancel while a
/// request is out waits for its answer and discards (revokes) what it issued; a cancel while persisting never
/// turns a stored session into "cancelled".
@Suite struct ProgressEventMatrixTests {
    typealias Machine = SignInStateMachine
    static let one = AttemptID(1)
    static let t0 = Fixture.t0
    static let late = Fixture.deadline.addingTimeInterval(1)
    static let network = SignInError.network(message: "connection refused")

    /// Portal's attempt: a redirect without state is taken, and its session waits for the user's yes.
    static func portalAttempt() -> Attempt {
        var attempt = Fixture.browserAttempt()
        attempt.acceptsStatelessRedirect = true
        attempt.confirmsStatelessSession = true
        return attempt
    }

    /// Portal's redirect: its one-time token under the sign-in method it is for, no state.
    static let portalRedirect = Callback(token: "portal-token", loginType: "GOOGLE")

    /// A Portal attempt whose stateless redirect was exchanged: waiting for the session, or (`totp`) for its code.
    static func portalExchanging(totp: Bool = false) -> Machine {
        var m = Fixture.awaiting(portalAttempt())
        _ = m.callbackReceived(portalRedirect, now: t0)
        if totp {
            _ = m.totpChallenged(one, Fixture.challenge)
            _ = m.codeEntered("654321", now: t0)
        }
        return m
    }

    /// The fourteen places the machine can be: idle (fresh, and after an error), authenticated, and each progress
    /// of the two waiting states.
    static let configurations: [(String, @Sendable () -> Machine)] = [
        ("idle", { Fixture.idle() }),
        (
            "idle!",
            {
                var m = Fixture.awaiting()
                _ = m.cancelRequested()
                return m
            }
        ),
        ("auth", { Fixture.authenticated() }),
        ("aw.wait", { Fixture.awaiting() }),
        ("aw.verify", { Fixture.exchanging() }),
        (
            "aw.persist",
            {
                var m = Fixture.exchanging()
                _ = m.sessionIssued(one, Fixture.issued)
                return m
            }
        ),
        (
            "aw.stored?",
            {
                var m = Fixture.exchanging()
                _ = m.sessionIssued(one, Fixture.issued)
                _ = m.persistFailed(one, message: "disk full")
                return m
            }
        ),
        (
            "aw.confirm",
            {
                var m = portalExchanging()
                _ = m.sessionIssued(one, Fixture.issued)
                return m
            }
        ),
        (
            "aw.cancel",
            {
                var m = Fixture.exchanging()
                _ = m.cancelRequested()
                return m
            }
        ),
        ("tr.wait", { Fixture.totpRequired() }),
        (
            "tr.verify",
            {
                var m = Fixture.totpRequired()
                _ = m.codeEntered("654321", now: t0)
                return m
            }
        ),
        (
            "tr.persist",
            {
                var m = Fixture.totpRequired()
                _ = m.codeEntered("654321", now: t0)
                _ = m.sessionIssued(one, Fixture.issued)
                return m
            }
        ),
        (
            "tr.stored?",
            {
                var m = Fixture.totpRequired()
                _ = m.codeEntered("654321", now: t0)
                _ = m.sessionIssued(one, Fixture.issued)
                _ = m.persistFailed(one, message: "disk full")
                return m
            }
        ),
        (
            "tr.confirm",
            {
                var m = portalExchanging(totp: true)
                _ = m.sessionIssued(one, Fixture.issued)
                return m
            }
        ),
        (
            "tr.cancel",
            {
                var m = Fixture.totpRequired()
                _ = m.codeEntered("654321", now: t0)
                _ = m.cancelRequested()
                return m
            }
        ),
    ]

    /// Every event the machine takes.
    static let events: [(String, @Sendable (inout Machine) -> Machine.Action)] = [
        ("start", { $0.startRequested(Fixture.browserAttempt(id: 9, state: "other")) }),
        ("callback", { $0.callbackReceived(Fixture.goodCallback, now: t0) }),
        ("stateless", { $0.callbackReceived(portalRedirect, now: t0) }),
        ("codeSent", { $0.codeSent(one, otpID: "otp-1", resendAvailableAt: t0) }),
        ("code", { $0.codeEntered("123456", now: t0) }),
        ("resend", { $0.resendRequested(now: t0) }),
        ("issued", { $0.sessionIssued(one, Fixture.issued) }),
        ("totp", { $0.totpChallenged(one, Fixture.challenge) }),
        (
            "codeRequired",
            {
                $0.codeRequired(
                    one, contact: .email("ada@example.com"), format: .totp, otpID: "otp-2",
                    resendAvailableAt: t0)
            }
        ),
        ("rejected", { $0.codeRejected(one) }),
        ("failed", { $0.requestFailed(one, network) }),
        ("persisted", { $0.persisted(one, Fixture.record) }),
        ("persistFailed", { $0.persistFailed(one, message: "disk full") }),
        ("retry", { $0.persistRetryRequested() }),
        ("cancel", { $0.cancelRequested() }),
        ("tick", { $0.tick(now: t0) }),
        ("late tick", { $0.tick(now: late) }),
        ("dismiss", { $0.dismissed() }),
        ("keep", { $0.identityAnswered(keep: true) }),
        ("decline", { $0.identityAnswered(keep: false) }),
    ]

    /// `action → where`, per configuration and event; `=` means the machine did not move.
    static let expected: [String: [String: String]] = [
        "idle": [
            "start": "begin → aw.wait", "callback": "none =", "stateless": "none =", "codeSent": "none =",
            "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =", "codeRequired": "none =",
            "rejected": "none =", "failed": "none =", "persisted": "none =", "persistFailed": "none =",
            "retry": "none =", "cancel": "none =", "tick": "none =", "late tick": "none =", "dismiss": "none =",
            "keep": "none =", "decline": "none =",
        ],
        "idle!": [
            "start": "begin → aw.wait", "callback": "none =", "stateless": "none =", "codeSent": "none =",
            "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =", "codeRequired": "none =",
            "rejected": "none =", "failed": "none =", "persisted": "none =", "persistFailed": "none =",
            "retry": "none =", "cancel": "none =", "tick": "none =", "late tick": "none =",
            "dismiss": "none → idle", "keep": "none =", "decline": "none =",
        ],
        "auth": [
            "start": "begin → aw.wait", "callback": "replay =", "stateless": "none =", "codeSent": "none =",
            "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =", "codeRequired": "none =",
            "rejected": "none =", "failed": "none =", "persisted": "none =", "persistFailed": "none =",
            "retry": "none =", "cancel": "none =", "tick": "none =", "late tick": "none =",
            "dismiss": "none → idle", "keep": "none =", "decline": "none =",
        ],
        "aw.wait": [
            "start": "reject(signInInProgress) =", "callback": "exchange → aw.verify",
            "stateless": "reject(stateMismatch) =", "codeSent": "none =", "code": "reject(invalidCode) =",
            "resend": "none =", "issued": "none =", "totp": "none =", "codeRequired": "none =",
            "rejected": "none =", "failed": "fail(network) → idle!", "persisted": "none =",
            "persistFailed": "none =", "retry": "none =", "cancel": "fail(closed) → idle!", "tick": "none =",
            "late tick": "fail(timedOut) → idle!", "dismiss": "none =", "keep": "none =", "decline": "none =",
        ],
        "aw.verify": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "reject(invalidCode) =", "resend": "none =",
            "issued": "persist → aw.persist", "totp": "none → tr.wait", "codeRequired": "none → aw.wait",
            "rejected": "reject(invalidCode) → aw.wait", "failed": "fail(network) → idle!", "persisted": "none =",
            "persistFailed": "none =", "retry": "none =", "cancel": "none → aw.cancel", "tick": "none =",
            "late tick": "fail(timedOut) → idle!", "dismiss": "none =", "keep": "none =", "decline": "none =",
        ],
        "aw.persist": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "reject(invalidCode) =", "resend": "none =", "issued": "none =",
            "totp": "none =", "codeRequired": "none =", "rejected": "none =", "failed": "none =",
            "persisted": "report → auth", "persistFailed": "reject(storage) → aw.stored?", "retry": "none =",
            "cancel": "none =", "tick": "none =", "late tick": "none =", "dismiss": "none =", "keep": "none =",
            "decline": "none =",
        ],
        "aw.stored?": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "reject(invalidCode) =", "resend": "none =", "issued": "none =",
            "totp": "none =", "codeRequired": "none =", "rejected": "none =", "failed": "none =",
            "persisted": "none =", "persistFailed": "none =", "retry": "persist → aw.persist",
            "cancel": "discard(closed) → idle!", "tick": "none =", "late tick": "discard(timedOut) → idle!",
            "dismiss": "none =", "keep": "none =", "decline": "none =",
        ],
        "aw.confirm": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "none =",
            "codeSent": "none =", "code": "reject(invalidCode) =", "resend": "none =", "issued": "none =",
            "totp": "none =", "codeRequired": "none =", "rejected": "none =", "failed": "none =",
            "persisted": "none =", "persistFailed": "none =", "retry": "none =",
            "cancel": "discard(closed) → idle!", "tick": "none =", "late tick": "none =", "dismiss": "none =",
            "keep": "persist → aw.persist", "decline": "discard(closed) → idle!",
        ],
        "aw.cancel": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "reject(invalidCode) =", "resend": "none =",
            "issued": "discard(closed) → idle!", "totp": "fail(closed) → idle!",
            "codeRequired": "fail(closed) → idle!", "rejected": "fail(closed) → idle!",
            "failed": "fail(closed) → idle!", "persisted": "none =", "persistFailed": "none =", "retry": "none =",
            "cancel": "none =", "tick": "none =", "late tick": "none =", "dismiss": "none =", "keep": "none =",
            "decline": "none =",
        ],
        "tr.wait": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "verifyTOTP → tr.verify", "resend": "none =", "issued": "none =",
            "totp": "none =", "codeRequired": "none =", "rejected": "none =", "failed": "fail(network) → idle!",
            "persisted": "none =", "persistFailed": "none =", "retry": "none =", "cancel": "fail(closed) → idle!",
            "tick": "none =", "late tick": "fail(timedOut) → idle!", "dismiss": "none =", "keep": "none =",
            "decline": "none =",
        ],
        "tr.verify": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "none =", "resend": "none =", "issued": "persist → tr.persist",
            "totp": "none =", "codeRequired": "none =", "rejected": "reject(invalidCode) → tr.wait",
            "failed": "fail(network) → idle!", "persisted": "none =", "persistFailed": "none =",
            "retry": "none =", "cancel": "none → tr.cancel", "tick": "none =",
            "late tick": "fail(timedOut) → idle!", "dismiss": "none =", "keep": "none =", "decline": "none =",
        ],
        "tr.persist": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =",
            "codeRequired": "none =", "rejected": "none =", "failed": "none =", "persisted": "report → auth",
            "persistFailed": "reject(storage) → tr.stored?", "retry": "none =", "cancel": "none =",
            "tick": "none =", "late tick": "none =", "dismiss": "none =", "keep": "none =", "decline": "none =",
        ],
        "tr.stored?": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =",
            "codeRequired": "none =", "rejected": "none =", "failed": "none =", "persisted": "none =",
            "persistFailed": "none =", "retry": "persist → tr.persist", "cancel": "discard(closed) → idle!",
            "tick": "none =", "late tick": "discard(timedOut) → idle!", "dismiss": "none =", "keep": "none =",
            "decline": "none =",
        ],
        "tr.confirm": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "none =",
            "codeSent": "none =", "code": "none =", "resend": "none =", "issued": "none =", "totp": "none =",
            "codeRequired": "none =", "rejected": "none =", "failed": "none =", "persisted": "none =",
            "persistFailed": "none =", "retry": "none =", "cancel": "discard(closed) → idle!", "tick": "none =",
            "late tick": "none =", "dismiss": "none =", "keep": "persist → tr.persist",
            "decline": "discard(closed) → idle!",
        ],
        "tr.cancel": [
            "start": "reject(signInInProgress) =", "callback": "none =", "stateless": "reject(stateMismatch) =",
            "codeSent": "none =", "code": "none =", "resend": "none =", "issued": "discard(closed) → idle!",
            "totp": "none =", "codeRequired": "none =", "rejected": "fail(closed) → idle!",
            "failed": "fail(closed) → idle!", "persisted": "none =", "persistFailed": "none =",
            "retry": "none =", "cancel": "none =", "tick": "none =", "late tick": "none =", "dismiss": "none =",
            "keep": "none =", "decline": "none =",
        ],
    ]

    @Test(arguments: configurations.map(\.0))
    func everyEventFrom(_ configuration: String) throws {
        let make = try #require(Self.configurations.first { $0.0 == configuration }?.1)
        let row = try #require(Self.expected[configuration])
        #expect(Set(row.keys) == Set(Self.events.map(\.0)), "the table row lists every event")
        for (event, apply) in Self.events {
            var machine = make()
            let before = Self.name(machine.state)
            #expect(before == configuration, "the configuration builds what it says")
            let action = apply(&machine)
            let after = Self.name(machine.state)
            let got = "\(Self.name(action)) \(after == before ? "=" : "→ \(after)")"
            #expect(got == row[event], "\(configuration) + \(event)")
        }
    }

    /// A cancel while a request is out never ends the attempt before the request answers.
    @Test func aCancelDuringTheExchangeWaitsThenDiscardsWhatWasIssued() {
        var m = Fixture.exchanging()
        #expect(m.cancelRequested() == .none)
        #expect(m.tick(now: Self.late) == .none)  // the clock does not abandon the request either
        #expect(m.sessionIssued(Self.one, Fixture.issued) == .discard(Self.one, Fixture.issued, .closed))
        #expect(m.state == .idle(lastError: .closed))
        #expect(m.persisted(Self.one, Fixture.record) == .none)
    }

    /// A cancel while persisting: the store's answer decides, and a stored session is reported as stored.
    @Test func aCancelWhilePersistingNeverReportsCancelledForAStoredSession() {
        var m = Fixture.exchanging()
        _ = m.sessionIssued(Self.one, Fixture.issued)
        #expect(m.cancelRequested() == .none)
        #expect(m.persisted(Self.one, Fixture.record) == .report(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
        // A failed write after the cancel leaves the held session; a second cancel then discards it.
        m = Fixture.exchanging()
        _ = m.sessionIssued(Self.one, Fixture.issued)
        _ = m.cancelRequested()
        let failure = SignInError.sessionStorageFailure(message: "disk full")
        #expect(m.persistFailed(Self.one, message: "disk full") == .reject(failure))
        #expect(m.cancelRequested() == .discard(Self.one, Fixture.issued, .closed))
    }

    /// A device approval of a new account (Para's flow) moves the waiting device attempt to its email code.
    @Test func aDevicePollCanAskForTheNewAccountsCode() {
        var m = Fixture.awaiting(Fixture.deviceAttempt())
        let id = AttemptID(3)
        #expect(
            m.codeRequired(
                id, contact: .email("cleo@example.com"), format: .totp, otpID: "otp-9",
                resendAvailableAt: Self.t0) == .none)
        #expect(
            m.currentAttempt?.method
                == .oneTimeCode(
                    contact: .email("cleo@example.com"), format: .totp,
                    otpID: "otp-9"))
        #expect(m.codeEntered("123456", now: Self.t0) == .verifyCode(id, otpID: "otp-9", code: "123456"))
    }

    /// Portal's stateless redirect: taken while its attempt waits, once, and never for an attempt that wants state.
    @Test func aStatelessRedirectIsTakenOnceWhileItsAttemptWaits() {
        var attempt = Fixture.browserAttempt()
        attempt.acceptsStatelessRedirect = true
        var m = Fixture.awaiting(attempt)
        let stateless = Self.portalRedirect
        #expect(m.callbackReceived(stateless, now: Self.t0) == .exchange(Self.one, .portalToken("portal-token")))
        #expect(m.callbackReceived(stateless, now: Self.t0) == .none)
        #expect(m.callbackReceived(Callback(state: "forged", token: "t"), now: Self.t0) == .reject(.stateMismatch))
        m = Fixture.awaiting(attempt)
        #expect(m.callbackReceived(Callback(state: "forged", token: "t"), now: Self.t0) == .reject(.stateMismatch))
        #expect(
            m.callbackReceived(Callback(error: "oauth_failed"), now: Self.t0)
                == .fail(Self.one, .authenticationFailed(providerError: "oauth_failed")))
    }

    /// Portal's one-time token is bound to nothing of the attempt, so a session from a redirect
    /// without state is written only once the user has kept it; a declined one is taken back, and the clock does
    /// not decide for the user. A redirect with the attempt's state, or a backend whose grant is bound (the Auth
    /// Proxy's nonce), asks nothing.
    @Test func aSessionFromAStatelessRedirectIsStoredOnlyOnceTheUserKeepsIt() {
        var m = Fixture.awaiting(Self.portalAttempt())
        #expect(
            m.callbackReceived(Callback(token: "t", loginType: "APPLE"), now: Self.t0)
                == .exchange(Self.one, .portalToken("t")))
        #expect(m.sessionIssued(Self.one, Fixture.issued) == .confirmIdentity(Self.one, Fixture.issued))
        #expect(m.tick(now: Self.late) == .none)
        #expect(m.identityAnswered(keep: true) == .persist(Self.one, Fixture.issued))
        #expect(m.identityAnswered(keep: false) == .none)  // a second answer changes nothing
        m = Self.portalExchanging()
        _ = m.sessionIssued(Self.one, Fixture.issued)
        #expect(m.identityAnswered(keep: false) == .discard(Self.one, Fixture.issued, .closed))
        #expect(m.state == .idle(lastError: .closed))
        #expect(m.persisted(Self.one, Fixture.record) == .none)
        // The TOTP branch asks too, after the right code.
        m = Self.portalExchanging(totp: true)
        #expect(m.sessionIssued(Self.one, Fixture.issued) == .confirmIdentity(Self.one, Fixture.issued))
        // With the attempt's state the redirect proves itself; a bound stateless grant needs no question.
        m = Fixture.awaiting(Self.portalAttempt())
        _ = m.callbackReceived(Callback(state: Fixture.state, token: "t", loginType: "GOOGLE"), now: Self.t0)
        #expect(m.sessionIssued(Self.one, Fixture.issued) == .persist(Self.one, Fixture.issued))
        var bound = Fixture.browserAttempt()
        bound.acceptsStatelessRedirect = true
        m = Fixture.awaiting(bound)
        _ = m.callbackReceived(Callback(token: "t", loginType: "APPLE"), now: Self.t0)
        #expect(m.sessionIssued(Self.one, Fixture.issued) == .persist(Self.one, Fixture.issued))
    }

    /// PortalSwift's `_handleRedirect` exchanges a token only under `login_type` GOOGLE or APPLE, matched exactly;
    /// a redirect without one is refused in one line, its token unspent, and the attempt goes on waiting.
    @Test func aPortalRedirectWithoutItsLoginTypeIsRefusedAndNothingIsExchanged() {
        for loginType in [nil, "", "google", "EMAIL_MAGIC_LINK", "GOOGLE "] {
            var m = Fixture.awaiting(Self.portalAttempt())
            let redirect = Callback(token: "portal-token", loginType: loginType)
            guard case .reject(let error) = m.callbackReceived(redirect, now: Self.t0) else {
                Issue.record("\(String(describing: loginType)) was not refused")
                continue
            }
            #expect(error.message.contains("login_type"))
            #expect(!error.message.contains("\n"))
            #expect(Self.name(m.state) == "aw.wait")
        }
        var m = Fixture.awaiting(Self.portalAttempt())
        _ = m.callbackReceived(Callback(token: "portal-token"), now: Self.t0)
        // The whole redirect, pasted after, is still taken: the token was never spent.
        #expect(
            m.callbackReceived(Self.portalRedirect, now: Self.t0) == .exchange(Self.one, .portalToken("portal-token")))
    }

    /// Keyed on the token, as PortalSwift's replay memory is: a re-delivery during the TOTP step answers the same
    /// step (even without its marker: the memory is read first), after the sign-in the same result; never a
    /// second exchange. Another token, or an error redirect, is not a replay.
    @Test func aReDeliveredPortalRedirectReplaysItsStepThenItsResult() {
        var m = Fixture.awaiting(Self.portalAttempt())
        #expect(
            m.callbackReceived(Self.portalRedirect, now: Self.t0) == .exchange(Self.one, .portalToken("portal-token")))
        _ = m.totpChallenged(Self.one, Fixture.challenge)
        #expect(m.callbackReceived(Self.portalRedirect, now: Self.t0) == .replayStep(Self.one))
        #expect(m.callbackReceived(Callback(token: "portal-token"), now: Self.t0) == .replayStep(Self.one))
        #expect(
            m.callbackReceived(Callback(token: "other", loginType: "GOOGLE"), now: Self.t0) == .reject(.stateMismatch))
        #expect(
            m.callbackReceived(Callback(error: "oauth_failed", token: "portal-token"), now: Self.t0)
                == .reject(.stateMismatch))
        #expect(Self.name(m.state) == "tr.wait")
        _ = m.codeEntered("123456", now: Self.t0)
        #expect(m.callbackReceived(Self.portalRedirect, now: Self.t0) == .replayStep(Self.one))
        _ = m.sessionIssued(Self.one, Fixture.issued)
        // Once the code is accepted the user's answer, then the write, decide: the redirect changes nothing.
        #expect(m.callbackReceived(Self.portalRedirect, now: Self.t0) == .none)
        _ = m.identityAnswered(keep: true)
        #expect(m.persisted(Self.one, Fixture.record) == .report(Fixture.outcome))
        #expect(m.callbackReceived(Self.portalRedirect, now: Self.t0) == .replay(Fixture.outcome))
        #expect(m.callbackReceived(Callback(token: "other", loginType: "GOOGLE"), now: Self.t0) == .none)
        // An attempt that ended without a session has nothing to replay.
        m = Fixture.awaiting(Self.portalAttempt())
        _ = m.callbackReceived(Self.portalRedirect, now: Self.t0)
        _ = m.requestFailed(Self.one, Self.network)
        #expect(m.callbackReceived(Self.portalRedirect, now: Self.t0) == .none)
    }

    // MARK: - Names

    static func name(_ state: Machine.State) -> String {
        switch state {
        case .idle(let error): return error == nil ? "idle" : "idle!"
        case .authenticated: return "auth"
        case .awaitingCallback(_, let progress): return "aw." + name(progress)
        case .totpRequired(_, _, let progress): return "tr." + name(progress)
        }
    }

    static func name(_ progress: Machine.Progress) -> String {
        switch progress {
        case .waiting: return "wait"
        case .verifying: return "verify"
        case .confirming: return "confirm"
        case .persisting: return "persist"
        case .storageFailed: return "stored?"
        case .cancelling: return "cancel"
        }
    }

    static func name(_ action: Machine.Action) -> String {
        switch action {
        case .none: return "none"
        case .begin: return "begin"
        case .exchange: return "exchange"
        case .verifyCode: return "verifyCode"
        case .verifyTOTP: return "verifyTOTP"
        case .resendCode: return "resendCode"
        case .confirmIdentity: return "confirmIdentity"
        case .persist: return "persist"
        case .report: return "report"
        case .replay: return "replay"
        case .replayStep: return "replayStep"
        case .reject(let error): return "reject(\(name(error)))"
        case .fail(_, let error): return "fail(\(name(error)))"
        case .discard(_, _, let error): return "discard(\(name(error)))"
        }
    }

    static func name(_ error: SignInError) -> String {
        switch error {
        case .signInInProgress: return "signInInProgress"
        case .stateMismatch: return "stateMismatch"
        case .invalidCode: return "invalidCode"
        case .closed: return "closed"
        case .timedOut: return "timedOut"
        case .network: return "network"
        case .sessionStorageFailure: return "storage"
        default: return "\(error)"
        }
    }
}
