import AuthCore
import Foundation
import Testing

/// The eight rules of SPEC section 2, each a script that fails when its rule is broken.
@Suite struct SignInRuleTests {
    let t0 = Fixture.t0
    let one = AttemptID(1)

    @Test func rule1_oneSignInAtATime() {
        var m = Fixture.awaiting()
        let second = Fixture.browserAttempt(id: 2, state: "second")
        #expect(m.startRequested(second) == .reject(.signInInProgress))
        // The running attempt is untouched: its callback still completes it, the second's is refused.
        #expect(m.callbackReceived(Callback(code: "c", state: "second"), now: t0) == .reject(.stateMismatch))
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .exchange(one, .authorizationCode("auth-code")))
    }

    @Test func rule2_cancelStoresNothingAndIgnoresLateCallbacks() {
        var m = Fixture.awaiting()
        #expect(m.cancelRequested() == .fail(one, .closed))
        #expect(m.state == .idle(lastError: .closed))
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .none)
        #expect(m.sessionIssued(one, Fixture.issued) == .none)

        // access_denied is the provider's refusal, not a cancel here (SPEC section 2, rule 2): exit 4, the state back to idle.
        var denied = Fixture.awaiting()
        let refusal = SignInError.authenticationFailed(providerError: "access denied at the provider")
        #expect(
            denied.callbackReceived(Callback(state: Fixture.state, error: "access_denied"), now: t0)
                == .fail(one, refusal))
        #expect(denied.state == .idle(lastError: refusal))
    }

    /// Authlib-based providers send `error=access_denied` without `state` (RFC 6749 4.1.2.1 wants it): from the
    /// user's own processes that ends the attempt as the provider's refusal; from anyone else it is shown and the
    /// attempt goes on. A stateless redirect with a code is never taken.
    @Test func statelessErrorRedirects() {
        let refusal = SignInError.authenticationFailed(
            providerError: "access denied at the provider: user said no (the redirect came without state)")
        var own = Fixture.awaiting()
        #expect(
            own.callbackReceived(Callback(error: "access_denied", errorDescription: "user said no"), now: t0)
                == .fail(one, refusal))
        #expect(own.state == .idle(lastError: refusal))

        var other = Fixture.awaiting()
        #expect(
            other.callbackReceived(
                Callback(error: "access_denied", errorDescription: "user said no"), now: t0,
                fromOwnUser: false) == .reject(refusal))
        #expect(
            other.callbackReceived(Fixture.goodCallback, now: t0)
                == .exchange(one, .authorizationCode("auth-code")))

        var server = Fixture.awaiting()
        #expect(
            server.callbackReceived(Callback(error: "server_error"), now: t0)
                == .fail(one, .authenticationFailed(providerError: "server_error (the redirect came without state)")))
        var coded = Fixture.awaiting()
        #expect(coded.callbackReceived(Callback(code: "c"), now: t0) == .reject(.stateMismatch))
    }

    @Test func rule3_stateCheckKeepsWaitingAndIsSingleUse() {
        var m = Fixture.awaiting()
        #expect(m.callbackReceived(Callback(code: "evil", state: "forged"), now: t0) == .reject(.stateMismatch))
        #expect(m.callbackReceived(Callback(code: "evil"), now: t0) == .reject(.stateMismatch))
        #expect(
            m.callbackReceived(Callback(state: Fixture.state, error: "server_error"), now: t0)
                != .reject(.stateMismatch))
        var fresh = Fixture.awaiting()
        #expect(
            fresh.callbackReceived(Callback(code: "evil", state: String(Fixture.state.dropLast())), now: t0)
                == .reject(.stateMismatch))
        #expect(
            fresh.callbackReceived(Fixture.goodCallback, now: t0) == .exchange(one, .authorizationCode("auth-code")))
        // Used once: the same state again starts no second exchange.
        #expect(fresh.callbackReceived(Callback(code: "second", state: Fixture.state), now: t0) == .none)
    }

    @Test func rule4_replayReportsTheSameResultNeverASecondExchange() {
        var m = Fixture.authenticated()
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .replay(Fixture.outcome))
        #expect(
            m.callbackReceived(Callback(code: "another", state: Fixture.state), now: t0) == .replay(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
        // After the next attempt starts, the old callback still cannot reach an exchange.
        let next = Fixture.browserAttempt(id: 2, state: "next")
        _ = m.startRequested(next)
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .reject(.stateMismatch))
    }

    @Test func rule5_persistBeforeReturn() {
        var m = Fixture.exchanging()
        #expect(m.sessionIssued(one, Fixture.issued) == .persist(one, Fixture.issued))
        // Not authenticated until the store confirms.
        #expect(m.state == .awaitingCallback(Fixture.browserAttempt(), .persisting(Fixture.issued)))
        #expect(
            m.persistFailed(one, message: "database is read-only")
                == .reject(.sessionStorageFailure(message: "database is read-only")))
        #expect(m.state == .awaitingCallback(Fixture.browserAttempt(), .storageFailed(Fixture.issued)))
        // Only the write may be retried; a stray callback cannot restart the exchange.
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .none)
        #expect(m.persistRetryRequested() == .persist(one, Fixture.issued))
        #expect(m.persisted(one, Fixture.record) == .report(Fixture.outcome))
        #expect(m.state == .authenticated(Fixture.outcome))
    }

    @Test func rule6_totpPersistsNothingUntilTheRightCode() {
        var m = Fixture.exchanging()
        #expect(m.totpChallenged(one, Fixture.challenge) == .none)
        #expect(m.codeEntered("12345", now: t0) == .reject(.invalidCode))  // wrong length: never sent
        #expect(m.codeEntered("111111", now: t0) == .verifyTOTP(one, userJwt: "user.jwt.value", code: "111111"))
        #expect(m.codeRejected(one) == .reject(.invalidCode))
        guard case .totpRequired(_, let challenge, .waiting) = m.state else {
            Issue.record("left totpRequired")
            return
        }
        #expect(challenge.attemptsLeft == 2)
        #expect(m.codeEntered("222222", now: t0) == .verifyTOTP(one, userJwt: "user.jwt.value", code: "222222"))
        #expect(m.sessionIssued(one, Fixture.issued) == .persist(one, Fixture.issued))
        #expect(m.persisted(one, Fixture.record) == .report(Fixture.outcome))
    }

    @Test func rule6_tooManyWrongTotpCodesEndTheAttempt() {
        var m = Fixture.totpRequired(TOTPChallenge(userJwt: "u", attemptsLeft: 1))
        _ = m.codeEntered("000000", now: t0)
        #expect(m.codeRejected(one) == .fail(one, .rateLimited))
        #expect(m.state == .idle(lastError: .rateLimited))
    }

    @Test func rule7_deadline() {
        var m = Fixture.awaiting()
        let late = Fixture.deadline
        #expect(m.callbackReceived(Fixture.goodCallback, now: late) == .fail(one, .timedOut))
        #expect(m.state == .idle(lastError: .timedOut))
        var otp = Fixture.awaiting(Fixture.otpAttempt())
        _ = otp.codeSent(AttemptID(2), otpID: "o", resendAvailableAt: t0)
        #expect(otp.codeEntered("123456", now: late) == .fail(AttemptID(2), .timedOut))
    }

    @Test func rule8_everyErrorHasAOneLineMessage() {
        let all: [SignInError] = [
            .closed, .signInInProgress, .unavailable(reason: "no browser"), .callbackIncomplete, .stateMismatch,
            .authMethodUnavailable(method: "apple"), .authenticationFailed(providerError: "invalid_grant"),
            .invalidIdToken(reason: "bad signature"), .unauthorized, .rateLimited,
            .sessionStorageFailure(message: "disk full"), .timedOut, .invalidContact, .invalidCode,
            .network(message: "connection refused"),
        ]
        #expect(Set(all.map(\.message)).count == all.count)
        for error in all {
            #expect(!error.message.isEmpty)
            #expect(!error.message.contains("\n"))
        }
        #expect(SignInError.authenticationFailed(providerError: "invalid_grant").message.contains("invalid_grant"))
    }

    @Test func callbackWithoutResultIsIncompleteAndKeepsWaiting() {
        var m = Fixture.awaiting()
        #expect(m.callbackReceived(Callback(state: Fixture.state), now: t0) == .reject(.callbackIncomplete))
        #expect(m.callbackReceived(Fixture.goodCallback, now: t0) == .exchange(one, .authorizationCode("auth-code")))
    }

    @Test func providerErrorsOtherThanDenialFailWithTheirDescription() {
        var m = Fixture.awaiting()
        let callback = Callback(state: Fixture.state, error: "invalid_scope", errorDescription: "scope foo is unknown")
        #expect(
            m.callbackReceived(callback, now: t0)
                == .fail(one, .authenticationFailed(providerError: "invalid_scope: scope foo is unknown")))
    }

    @Test func deviceApprovalPersistsWithoutACallback() {
        var m = Fixture.awaiting(Fixture.deviceAttempt())
        #expect(m.sessionIssued(AttemptID(3), Fixture.issued) == .persist(AttemptID(3), Fixture.issued))
    }

    @Test func doubleEnterVerifiesOnce() {
        var m = Fixture.awaiting(Fixture.otpAttempt())
        _ = m.codeSent(AttemptID(2), otpID: "o", resendAvailableAt: t0)
        #expect(m.codeEntered("123456", now: t0) == .verifyCode(AttemptID(2), otpID: "o", code: "123456"))
        #expect(m.codeEntered("123456", now: t0) == .none)
    }

    @Test func codeBeforeItWasSentIsRefused() {
        var m = Fixture.awaiting(Fixture.otpAttempt())
        #expect(m.codeEntered("123456", now: t0) == .reject(.unavailable(reason: "the code has not been sent yet")))
    }
}

/// RFC 9207 section 2.4: the authorization response's `iss`, parsed from the redirect as any receiver hands it over,
/// is compared with the issuer the request went to by simple string comparison; a mismatch, or no `iss` where
/// the issuer's discovery promised one, ends the attempt before any exchange. Expected values are the RFC's words.
@Suite struct AuthorizationResponseIssuerTests {
    let t0 = Fixture.t0
    static let issuer = "https://server.example.com"

    func machine(requires: Bool) -> SignInStateMachine {
        var attempt = Fixture.browserAttempt()
        attempt.expectedIssuer = Self.issuer
        attempt.requiresIssuer = requires
        return Fixture.awaiting(attempt)
    }

    func redirect(_ query: String) throws -> Callback {
        try CallbackParser.parse(url: "http://127.0.0.1:8080/callback?" + query)
    }

    @Test func theIssuersOwnResponseIsTaken() throws {
        // RFC 9207 section 2's example response, with this attempt's state.
        var m = machine(requires: true)
        let callback = try redirect(
            "code=x1848ZT64p4IirMPT0R-X3141MFPTuBX-VFL_cvaplMH58&state=\(Fixture.state)"
                + "&iss=https%3A%2F%2Fserver.example.com")
        #expect(callback.issuer == Self.issuer)
        #expect(
            m.callbackReceived(callback, now: t0)
                == .exchange(
                    AttemptID(1),
                    .authorizationCode(
                        "x1848ZT64p4IirMPT0R-X3141MFPTuBX-VFL_cvaplMH58")))
    }

    @Test func anotherIssuerEndsTheAttempt() throws {
        for other in ["https://attacker.example.com", "https://server.example.com/", "https://SERVER.example.com"] {
            var m = machine(requires: false)
            let query = FormEncoding.encode([("code", "c"), ("state", Fixture.state), ("iss", other)])
            let expected = SignInError.issuerMismatch(received: other, expected: Self.issuer)
            #expect(m.callbackReceived(try redirect(query), now: t0) == .fail(AttemptID(1), expected))
            #expect(expected.message.hasPrefix("The response came from another issuer"))
        }
    }

    @Test func anErrorResponseIsCheckedToo() throws {
        var m = machine(requires: false)
        let query = FormEncoding.encode([
            ("error", "access_denied"), ("state", Fixture.state), ("iss", "https://a.example"),
        ])
        #expect(
            m.callbackReceived(try redirect(query), now: t0)
                == .fail(AttemptID(1), .issuerMismatch(received: "https://a.example", expected: Self.issuer)))
    }

    @Test func aMissingIssuerMattersOnlyWhenPromised() throws {
        var promised = machine(requires: true)
        let missing = SignInError.issuerMismatch(received: nil, expected: Self.issuer)
        #expect(
            promised.callbackReceived(try redirect("code=c&state=\(Fixture.state)"), now: t0)
                == .fail(AttemptID(1), missing))
        #expect(missing.message.contains("carried no iss"))
        var unpromised = machine(requires: false)
        #expect(
            unpromised.callbackReceived(try redirect("code=c&state=\(Fixture.state)"), now: t0)
                == .exchange(AttemptID(1), .authorizationCode("c")))
    }

    @Test func aRepeatedIssuerIsRefusedAsMalformed() {
        #expect(throws: CallbackParser.Failure.duplicateParameter("iss")) {
            try CallbackParser.parse(url: "http://127.0.0.1:1/cb?code=c&iss=https%3A%2F%2Fa&iss=https%3A%2F%2Fb")
        }
    }

    @Test func aWrongStateIsStillOnlyAStrayRedirect() throws {
        // A response for another attempt changes nothing, whatever its iss: the right one may still come.
        var m = machine(requires: true)
        #expect(
            m.callbackReceived(try redirect("code=c&state=other&iss=https%3A%2F%2Fa"), now: t0)
                == .reject(.stateMismatch))
    }
}
