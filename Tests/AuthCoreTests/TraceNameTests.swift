import AuthCore
import Testing

/// What traces record of a sign-in, as names that reading a trace can rely on: each error's code, and each machine
/// state's one name.
@Suite struct TraceNameTests {
    /// One error of each case; the switch fails to compile when a case is added and not listed here.
    static let oneOfEach: [SignInError] = {
        let all: [SignInError] = [
            .closed, .signInInProgress, .unavailable(reason: "no browser"), .callbackIncomplete, .stateMismatch,
            .authMethodUnavailable(method: "apple"),
            .authenticationFailed(providerError: "the user endpoint named no user id"),
            .invalidIdToken(reason: "wrong audience"), .unauthorized, .rateLimited,
            .sessionStorageFailure(message: "disk full"), .timedOut, .invalidContact, .invalidCode,
            .network(message: "connection refused"),
            .issuerMismatch(received: "https://attacker.example", expected: "https://server.example.com"),
            .grantUnavailable(grant: "ciba", reason: "no backchannel_authentication_endpoint"),
            .codeRefused(reason: "invalid code"),
        ]
        func listed(_ error: SignInError) -> Bool {
            switch error {
            case .closed, .signInInProgress, .unavailable, .callbackIncomplete, .stateMismatch, .authMethodUnavailable,
                .authenticationFailed, .invalidIdToken, .unauthorized, .rateLimited, .sessionStorageFailure, .timedOut,
                .invalidContact, .invalidCode, .network, .issuerMismatch, .grantUnavailable, .codeRefused:
                return true
            }
        }
        return all.filter(listed)
    }()

    @Test func everyErrorCaseHasADistinctNonEmptyCode() {
        #expect(Self.oneOfEach.count == 18)
        let codes = Self.oneOfEach.map(\.code)
        #expect(Set(codes).count == codes.count, "\(codes)")
        for code in codes {
            #expect(!code.isEmpty)
            // A code is one word a script can match: lower case, digits and underscores.
            #expect(code.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }, "\(code)")
        }
        #expect(SignInError.timedOut.code == "timeout")
        #expect(SignInError.closed.code == "cancelled")
        #expect(SignInError.stateMismatch.code == "state_mismatch")
        #expect(SignInError.invalidIdToken(reason: "nonce mismatch").code == "id_token_rejected")
    }

    /// The code is the case's, not its words': another reason or message text gives the same code.
    @Test func theCodeDoesNotFollowTheWording() {
        for (one, other) in [
            (SignInError.unavailable(reason: "no browser"), SignInError.unavailable(reason: "no receiver")),
            (.invalidIdToken(reason: "wrong issuer"), .invalidIdToken(reason: "wrong audience")),
            (.network(message: "connection refused"), .network(message: "no answer from h within 5 s")),
            (
                .authenticationFailed(providerError: "Not for you"),
                .authenticationFailed(providerError: "unknown otpId")
            ),
        ] {
            #expect(one.message != other.message)
            #expect(one.code == other.code)
        }
    }

    /// A provider's OAuth error (RFC 6749 5.2, 4.1.2.1) is its code, whether it came in a redirect or an endpoint's
    /// answer, with or without a description or a note; a provider's HTTP failure is its status class.
    @Test func aProvidersErrorIsItsOAuthCode() {
        #expect(
            SignInError.providerAnswered("invalid_grant", description: "Bad Request", status: 400).code
                == "invalid_grant")
        #expect(SignInError.providerAnswered("invalid_client", description: nil, status: 401).code == "invalid_client")
        #expect(SignInError.providerAnswered("access_denied", description: "No thanks").code == "access_denied")
        #expect(
            SignInError.providerAnswered("access_denied", description: nil, note: "the redirect came without state")
                .code
                == "access_denied")
        #expect(
            SignInError.providerAnswered("server_error", description: nil, note: "the redirect came without state").code
                == "server_error")
        #expect(
            SignInError.providerAnswered("invalid_scope", description: "scope foo is unknown").code == "invalid_scope")
        #expect(
            SignInError.providerUnavailable(status: 503, "at https://p/token, with an HTML page").code == "http_5xx")
        #expect(SignInError.network(message: "HTTP 404 from https://p/jwks").code == "http_4xx")
        #expect(SignInError.authenticationFailed(providerError: "Not for you").code == "authentication_failed")
        #expect(
            SignInError.authenticationFailed(
                providerError: "the provider refused: 400 at https://p/token, without an OAuth error"
            )
            .code == "authentication_failed")
    }

    /// The names transition steps have always recorded (traces on disk hold them; replay reads them back).
    @Test func eachStateHasTheNameTracesHold() {
        let attempt = Fixture.browserAttempt()
        let progress: [(SignInStateMachine.Progress, String)] = [
            (.waiting, "waiting"), (.verifying, "verifying"), (.confirming(Fixture.issued), "confirming"),
            (.persisting(Fixture.issued), "persisting"), (.storageFailed(Fixture.issued), "storageFailed"),
            (.cancelling, "cancelling"),
        ]
        #expect(SignInStateMachine.State.idle(lastError: .timedOut).traceName == "idle")
        #expect(SignInStateMachine.State.authenticated(Fixture.outcome).traceName == "authenticated")
        for (value, name) in progress {
            #expect(SignInStateMachine.State.awaitingCallback(attempt, value).traceName == "awaitingCallback(\(name))")
            #expect(
                SignInStateMachine.State.totpRequired(attempt, Fixture.challenge, value).traceName
                    == "totpRequired(\(name))")
        }
        #expect(Fixture.awaiting().state.traceName == "awaitingCallback(waiting)")
    }
}
