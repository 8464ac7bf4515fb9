import AuthCore
import Foundation
import Testing

/// Every (state × event) pair of the sign-in machine: the action it returns and the state it leaves.
/// Each test is one event, one line per state.
@Suite struct StateEventTableTests {
    typealias Machine = SignInStateMachine
    let t0 = Fixture.t0
    let one = AttemptID(1)

    @Test func startRequested() {
        let next = Fixture.browserAttempt(id: 9, state: "other")
        var m = Fixture.idle()
        #expect(m.startRequested(next) == .begin(next))
        #expect(m.state == .awaitingCallback(next, .waiting))
        m = Fixture.awaiting()
        #expect(m.startRequested(next) == .reject(.signInInProgress))
        #expect(m.currentAttempt?.id == one)
        m = Fixture.totpRequired()
        #expect(m.startRequested(next) == .reject(.signInInProgress))
        #expect(m.currentAttempt?.id == one)
        m = Fixture.authenticated()
        #expect(m.startRequested(next) == .begin(next))
        #expect(m.currentAttempt?.id == next.id)
    }

    @Test func callbackReceived() {
        let cb = Fixture.goodCallback
        var m = Fixture.idle()
        #expect(m.callbackReceived(cb, now: t0) == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.awaiting()
        #expect(m.callbackReceived(cb, now: t0) == .exchange(one, .authorizationCode("auth-code")))
        #expect(m.state == .awaitingCallback(Fixture.browserAttempt(), .verifying))
        m = Fixture.totpRequired()
        #expect(m.callbackReceived(cb, now: t0) == .none)
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), Fixture.challenge, .waiting))
        m = Fixture.authenticated()
        #expect(m.callbackReceived(cb, now: t0) == .replay(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func codeSent() {
        let later = t0.addingTimeInterval(30)
        var m = Fixture.idle()
        #expect(m.codeSent(one, otpID: "otp-1", resendAvailableAt: later) == .none)
        #expect(m.currentAttempt == nil)
        m = Fixture.awaiting(Fixture.otpAttempt())
        #expect(m.codeSent(AttemptID(2), otpID: "otp-1", resendAvailableAt: later) == .none)
        guard case .oneTimeCode(_, _, let otpID)? = m.currentAttempt?.method else {
            Issue.record("not an OTP attempt")
            return
        }
        #expect(otpID == "otp-1")
        #expect(m.currentAttempt?.resendAvailableAt == later)
        m = Fixture.totpRequired()
        #expect(m.codeSent(one, otpID: "x", resendAvailableAt: later) == .none)
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), Fixture.challenge, .waiting))
        m = Fixture.authenticated()
        #expect(m.codeSent(one, otpID: "x", resendAvailableAt: later) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func codeEntered() {
        var m = Fixture.idle()
        #expect(m.codeEntered("123456", now: t0) == .none)
        m = Fixture.awaiting(Fixture.otpAttempt())
        _ = m.codeSent(AttemptID(2), otpID: "otp-1", resendAvailableAt: t0)
        #expect(m.codeEntered("123 456", now: t0) == .verifyCode(AttemptID(2), otpID: "otp-1", code: "123456"))
        m = Fixture.totpRequired()
        #expect(m.codeEntered("654321", now: t0) == .verifyTOTP(one, userJwt: "user.jwt.value", code: "654321"))
        m = Fixture.authenticated()
        #expect(m.codeEntered("123456", now: t0) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func resendRequested() {
        var m = Fixture.idle()
        #expect(m.resendRequested(now: t0) == .none)
        m = Fixture.awaiting(Fixture.otpAttempt())
        _ = m.codeSent(AttemptID(2), otpID: "o", resendAvailableAt: t0.addingTimeInterval(30))
        #expect(m.resendRequested(now: t0.addingTimeInterval(10)) == .reject(.rateLimited))
        #expect(m.resendRequested(now: t0.addingTimeInterval(31)) == .resendCode(AttemptID(2)))
        m = Fixture.totpRequired()
        #expect(m.resendRequested(now: t0) == .none)
        m = Fixture.authenticated()
        #expect(m.resendRequested(now: t0) == .none)
    }

    @Test func sessionIssued() {
        var m = Fixture.idle()
        #expect(m.sessionIssued(one, Fixture.issued) == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.exchanging()
        #expect(m.sessionIssued(one, Fixture.issued) == .persist(one, Fixture.issued))
        #expect(m.state == .awaitingCallback(Fixture.browserAttempt(), .persisting(Fixture.issued)))
        m = Fixture.totpRequired()
        _ = m.codeEntered("654321", now: t0)
        #expect(m.sessionIssued(one, Fixture.issued) == .persist(one, Fixture.issued))
        m = Fixture.authenticated()
        #expect(m.sessionIssued(one, Fixture.issued) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func totpChallenged() {
        var m = Fixture.idle()
        #expect(m.totpChallenged(one, Fixture.challenge) == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.exchanging()
        #expect(m.totpChallenged(one, Fixture.challenge) == .none)
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), Fixture.challenge, .waiting))
        m = Fixture.totpRequired()
        #expect(m.totpChallenged(one, TOTPChallenge(userJwt: "other")) == .none)
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), Fixture.challenge, .waiting))
        m = Fixture.authenticated()
        #expect(m.totpChallenged(one, Fixture.challenge) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func codeRejected() {
        var m = Fixture.idle()
        #expect(m.codeRejected(one) == .none)
        m = Fixture.awaiting(Fixture.otpAttempt())
        _ = m.codeSent(AttemptID(2), otpID: "o", resendAvailableAt: t0)
        _ = m.codeEntered("111111", now: t0)
        #expect(m.codeRejected(AttemptID(2)) == .reject(.invalidCode))
        #expect(m.codeEntered("222222", now: t0) == .verifyCode(AttemptID(2), otpID: "o", code: "222222"))
        // The backend's own reason rides along, and the step still waits for another code.
        let expired = SignInError.codeRefused(reason: "the code has expired")
        #expect(m.codeRejected(AttemptID(2), expired) == .reject(expired))
        #expect(m.codeEntered("333333", now: t0) == .verifyCode(AttemptID(2), otpID: "o", code: "333333"))
        m = Fixture.totpRequired()
        _ = m.codeEntered("000000", now: t0)
        #expect(m.codeRejected(one) == .reject(.invalidCode))
        var less = Fixture.challenge
        less.attemptsLeft = 2
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), less, .waiting))
        m = Fixture.authenticated()
        #expect(m.codeRejected(one) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func requestFailed() {
        let error = SignInError.network(message: "connection refused")
        var m = Fixture.idle()
        #expect(m.requestFailed(one, error) == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.exchanging()
        #expect(m.requestFailed(one, error) == .fail(one, error))
        #expect(m.state == .idle(lastError: error))
        m = Fixture.totpRequired()
        #expect(m.requestFailed(one, error) == .fail(one, error))
        #expect(m.state == .idle(lastError: error))
        m = Fixture.authenticated()
        #expect(m.requestFailed(one, error) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func persisted() {
        var m = Fixture.idle()
        #expect(m.persisted(one, Fixture.record) == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.exchanging()
        _ = m.sessionIssued(one, Fixture.issued)
        #expect(m.persisted(one, Fixture.record) == .report(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
        m = Fixture.totpRequired()
        _ = m.codeEntered("654321", now: t0)
        _ = m.sessionIssued(one, Fixture.issued)
        #expect(m.persisted(one, Fixture.record) == .report(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
        m = Fixture.authenticated()
        #expect(m.persisted(one, Fixture.record) == .none)
    }

    @Test func persistFailed() {
        let failure = SignInError.sessionStorageFailure(message: "disk full")
        var m = Fixture.idle()
        #expect(m.persistFailed(one, message: "disk full") == .none)
        m = Fixture.exchanging()
        _ = m.sessionIssued(one, Fixture.issued)
        #expect(m.persistFailed(one, message: "disk full") == .reject(failure))
        #expect(m.state == .awaitingCallback(Fixture.browserAttempt(), .storageFailed(Fixture.issued)))
        m = Fixture.totpRequired()
        _ = m.codeEntered("654321", now: t0)
        _ = m.sessionIssued(one, Fixture.issued)
        #expect(m.persistFailed(one, message: "disk full") == .reject(failure))
        #expect(m.state == .totpRequired(Fixture.browserAttempt(), Fixture.challenge, .storageFailed(Fixture.issued)))
        m = Fixture.authenticated()
        #expect(m.persistFailed(one, message: "disk full") == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func persistRetryRequested() {
        var m = Fixture.idle()
        #expect(m.persistRetryRequested() == .none)
        m = Fixture.awaiting()
        #expect(m.persistRetryRequested() == .none)
        _ = m.callbackReceived(Fixture.goodCallback, now: t0)
        _ = m.sessionIssued(one, Fixture.issued)
        _ = m.persistFailed(one, message: "x")
        #expect(m.persistRetryRequested() == .persist(one, Fixture.issued))
        m = Fixture.totpRequired()
        #expect(m.persistRetryRequested() == .none)
        m = Fixture.authenticated()
        #expect(m.persistRetryRequested() == .none)
    }

    @Test func cancelRequested() {
        var m = Fixture.idle()
        #expect(m.cancelRequested() == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.awaiting()
        #expect(m.cancelRequested() == .fail(one, .closed))
        #expect(m.state == .idle(lastError: .closed))
        m = Fixture.totpRequired()
        #expect(m.cancelRequested() == .fail(one, .closed))
        #expect(m.state == .idle(lastError: .closed))
        m = Fixture.authenticated()
        #expect(m.cancelRequested() == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func tick() {
        let late = Fixture.deadline.addingTimeInterval(1)
        var m = Fixture.idle()
        #expect(m.tick(now: late) == .none)
        m = Fixture.awaiting()
        #expect(m.tick(now: t0) == .none)
        #expect(m.tick(now: late) == .fail(one, .timedOut))
        m = Fixture.totpRequired()
        #expect(m.tick(now: t0) == .none)
        #expect(m.tick(now: late) == .fail(one, .timedOut))
        m = Fixture.authenticated()
        #expect(m.tick(now: late) == .none)
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func dismissed() {
        var m = Fixture.idle()
        _ = m.startRequested(Fixture.browserAttempt())
        _ = m.cancelRequested()
        #expect(m.dismissed() == .none)
        #expect(m.state == .idle(lastError: nil))
        m = Fixture.awaiting()
        #expect(m.dismissed() == .none)
        #expect(m.currentAttempt?.id == one)
        m = Fixture.totpRequired()
        #expect(m.dismissed() == .none)
        #expect(m.currentAttempt?.id == one)
        m = Fixture.authenticated()
        #expect(m.dismissed() == .none)
        #expect(m.state == .idle(lastError: nil))
    }
}
