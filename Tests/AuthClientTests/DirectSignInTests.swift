import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Direct sign-in end to end through the controller, the real loopback listener and a provider on 127.0.0.1:
/// the browser's part is played by raw HTTP requests to the receiver.
@Suite(.serialized) struct DirectSignInTests {
    let provider: TestProvider
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController
    let backend: DirectSignIn

    init() throws {
        provider = try TestProvider()
        backend = provider.directSignIn(scopes: ["openid", "email"], transport: CurlTransport(timeout: 2))
        controller = SignInController(
            report: presenter.report, persist: stored.persist,
            receivers: ReceiverOptions(), browser: nil)
    }

    /// Starts the sign-in and returns the attempt and its loopback port.
    func begin() throws -> (Attempt, UInt16) {
        controller.start(backend, timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let redirect) = attempt.method,
            let port = UInt16(redirect.split(separator: ":")[2].prefix { $0.isNumber })
        else {
            throw RawHTTP.Failure(description: "no loopback redirect")
        }
        return (attempt, port)
    }

    func browserReturns(_ port: UInt16, _ query: String) throws -> Int? {
        RawHTTP.status(
            of: try RawHTTP.exchange(
                port: port,
                "GET /callback?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
    }

    func validCode(_ attempt: Attempt) -> String {
        provider.issueCode(nonce: attempt.nonce, challenge: PKCE.challenge(for: attempt.codeVerifier))
    }

    @Test func authorizeURLCarriesPKCEStateAndNonce() throws {
        let (attempt, _) = try begin()
        guard case .browser(let url)? = presenter.prompts.first else {
            Issue.record("no browser prompt")
            return
        }
        let query = try #require(URLComponents(string: url)?.queryItems)
        let values = Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(values["code_challenge"] == PKCE.challenge(for: attempt.codeVerifier))
        #expect(values["code_challenge_method"] == "S256")
        #expect(values["state"] == attempt.state)
        #expect(values["nonce"] == attempt.nonce)
        #expect(values["client_id"] == TestProvider.clientID)
        #expect(values["redirect_uri"]?.hasPrefix("http://127.0.0.1:") == true)
        controller.cancel()
        #expect(presenter.waitForEnd().map { if case .failure(.closed) = $0 { true } else { false } } == true)
    }

    @Test func attacksAreRefusedAndTheRightCallbackStillCompletes() throws {
        let (attempt, port) = try begin()
        let code = validCode(attempt)
        #expect(try browserReturns(port, "code=\(code)&state=wrong") == 400)
        #expect(try browserReturns(port, "code=\(code)") == 400)
        #expect(try browserReturns(port, "code=a&state=\(attempt.state)&state=\(attempt.state)") == 400)
        #expect(
            RawHTTP.status(
                of: try RawHTTP.exchange(
                    port: port,
                    "GET /other?code=\(code)&state=\(attempt.state) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                == 404)
        let big = String(repeating: "a", count: 20_000)
        #expect(
            RawHTTP.status(
                of: try RawHTTP.exchange(
                    port: port,
                    "POST /callback HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(big.count)\r\n\r\n"
                        + big)) == 413)
        let stuck = try RawHTTP.connect(host: "127.0.0.1", port: port)
        defer { close(stuck) }
        RawHTTP.send(stuck, Array("POST /callback HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\ncode=".utf8))
        #expect(provider.tokenRequests == 0)
        #expect(stored.count == 0)

        #expect(try browserReturns(port, "code=\(code)&state=\(attempt.state)") == 200)
        let result = try #require(presenter.waitForEnd())
        guard case .success(let outcome) = result else {
            Issue.record("sign-in failed: \(result)")
            return
        }
        #expect(outcome.record.subject == "user-42")
        #expect(outcome.record.email == "ada@example.com")
        #expect(stored.count == 1)
        #expect(stored.sessions.first?.secrets.refreshToken?.hasPrefix("rt-") == true)
        #expect(provider.tokenRequests == 1)
    }

    @Test func aReplayedCallbackStartsNoSecondExchange() throws {
        let (attempt, port) = try begin()
        let code = validCode(attempt)
        #expect(try browserReturns(port, "code=\(code)&state=\(attempt.state)") == 200)
        _ = presenter.waitForEnd()
        // The receiver stops with the attempt; a replay reaching the controller (paste) is not exchanged again.
        _ = controller.paste("http://127.0.0.1:\(port)/callback?code=\(code)&state=\(attempt.state)")
        _ = controller.sync { 0 }
        #expect(provider.tokenRequests == 1)
        #expect(stored.count == 1)
    }

    @Test func accessDeniedCancels() throws {
        let (attempt, port) = try begin()
        #expect(
            try browserReturns(port, "error=access_denied&error_description=No+thanks&state=\(attempt.state)")
                == 400)
        // The provider's refusal in its words (SPEC section 2, rule 2), not a cancel here.
        #expect(
            presenter.waitForEnd()?.failureError
                == .authenticationFailed(providerError: "access denied at the provider: No thanks"))
        #expect(stored.count == 0)
    }

    @Test func claimsTheIDTokenLacksComeFromUserInfoOfTheSameSubject() throws {
        provider.userinfoSubject = "user-42"
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.subject == "user-42")
        #expect(outcome.record.email == "ada@example.com")
        #expect(outcome.record.displayName == "Ada Lovelace")
    }

    @Test func userInfoOfAnotherSubjectIsRefused() throws {
        provider.userinfoSubject = "user-7"
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        guard case .failure(.invalidIdToken(let reason))? = presenter.waitForEnd() else {
            Issue.record("accepted another subject's claims")
            return
        }
        #expect(reason.hasPrefix("the UserInfo endpoint names another subject than the ID token"))
        // This provider has no revocation endpoint: the error says the tokens stay valid, not that they were revoked.
        #expect(reason.contains("no revocation endpoint"))
        #expect(stored.count == 0)
    }

    @Test func aStatelessErrorRedirectEndsTheAttemptWithoutWaitingOutTheTimeout() throws {
        // As Authlib-based providers send it: no state (RFC 6749 4.1.2.1 asks for one).
        let (_, port) = try begin()
        #expect(try browserReturns(port, "error=access_denied&error_description=Denied+by+user") == 400)
        #expect(
            presenter.waitForEnd()?.failureError
                == .authenticationFailed(
                    providerError: "access denied at the provider: Denied by user (the redirect came without state)"))
        #expect(stored.count == 0)
    }

    @Test func otherProviderErrorsCarryTheirDescription() throws {
        let (attempt, port) = try begin()
        #expect(
            try browserReturns(port, "error=server_error&error_description=try+later&state=\(attempt.state)") == 400)
        let result = try #require(presenter.waitForEnd())
        #expect(result.failureError == .authenticationFailed(providerError: "server_error: try later"))
    }

    @Test(arguments: [
        TestProvider.IDTokenFlaw.badSignature, .wrongIssuer, .wrongAudience, .expired, .wrongNonce, .unknownKey,
        .notYetValid,
    ])
    func flawedIDTokensAreRefusedAndNothingIsStored(_ flaw: TestProvider.IDTokenFlaw) throws {
        provider.flaw = flaw
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        let result = try #require(presenter.waitForEnd())
        guard case .failure(.invalidIdToken) = result else {
            Issue.record("accepted a flawed token: \(result)")
            return
        }
        #expect(stored.count == 0)
    }

    /// The record a sign-in stores when the provider's ID token has `flaw`; nil (an issue recorded) when none.
    func signedIn(with flaw: TestProvider.IDTokenFlaw) throws -> SessionRecord? {
        provider.flaw = flaw
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return nil
        }
        return outcome.record
    }

    @Test func aNotBeforeWithinTheClockSkewIsAccepted() throws {
        #expect(try signedIn(with: .notBeforeWithinSkew)?.subject == "user-42")
    }

    @Test func anUnverifiedEmailIsShownAsSuchAndNeverNamesTheSession() throws {
        let record = try signedIn(with: .unverifiedEmail)
        #expect(record?.email == "ada@example.com (unverified)")
        #expect(record?.key == "oidc-user-42")
    }

    @Test(arguments: [TestProvider.TokenMode.serverError, .html, .hang])
    func tokenEndpointFailuresAreClearErrors(_ mode: TestProvider.TokenMode) throws {
        provider.tokenMode = mode
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        let result = try #require(presenter.waitForEnd())
        let message: String
        switch (mode, result) {
        case (.serverError, .failure(.unavailable(let reason))):
            // A 5xx is the server's failure, named as such, not the network's.
            #expect(reason.hasPrefix("the provider answered HTTP 5"))
            message = reason
        case (.html, .failure(.network(let text))), (.hang, .failure(.network(let text))): message = text
        default:
            Issue.record("unexpected: \(result)")
            return
        }
        #expect(!message.isEmpty && !message.contains("\n"))
        #expect(stored.count == 0)
    }

    @Test func aFailedWriteReportsNoSessionAndOnlyTheWriteIsRetried() throws {
        stored.failNext = true
        let (attempt, port) = try begin()
        #expect(try browserReturns(port, "code=\(validCode(attempt))&state=\(attempt.state)") == 200)
        for _ in 0..<100 where !presenter.notices.contains(.sessionStorageFailure(message: "disk full")) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(presenter.notices.contains(.sessionStorageFailure(message: "disk full")))
        #expect(presenter.results.isEmpty)
        controller.retryPersist()
        let result = try #require(presenter.waitForEnd())
        #expect(result.failureError == nil)
        #expect(stored.count == 1)
        #expect(provider.tokenRequests == 1)
    }

    @Test func pastedRedirectCompletesTheFlow() throws {
        let (attempt, port) = try begin()
        #expect(controller.paste("not a url") != .accepted)
        #expect(
            controller.paste("http://127.0.0.1:\(port)/callback?code=\(validCode(attempt))&state=\(attempt.state)")
                == .accepted)
        #expect(presenter.waitForEnd()?.failureError == nil)
    }

    @Test func aSecondStartWhileWaitingIsRefused() throws {
        _ = try begin()
        controller.start(backend, timeout: 60)
        _ = controller.sync { 0 }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(presenter.notices.contains(.signInInProgress))
        controller.cancel()
        _ = presenter.waitForEnd()
    }
}

extension Result where Failure == SignInError {
    var failureError: SignInError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
