import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Testing

/// The portal backend against the sandbox's Portal routes, through the controller, the real loopback receiver and
/// the machine: the provider URL with authdeck's state, the one-time token, the TOTP branch, and the seed's error
/// cases (authMethodUnavailable, authenticationFailed, unauthorized, callbackIncomplete, signInInProgress, closed).
@Suite(.serialized) struct PortalSignInTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController
    init() { controller = .recording(presenter, persist: stored.persist) }

    /// Starts `provider` through `sandbox-portal` and answers the attempt and the URL to open; `transport` sees
    /// every request the backend sends.
    func start(
        _ sandbox: TurnkeySandbox, _ provider: Provider = .google, transport: RecordingTransport = RecordingTransport()
    ) throws -> (Attempt, String) {
        controller.start(try sandbox.backend(provider, backend: "sandbox-portal", transport: transport), timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            throw TurnkeySandbox.BrowseFailure(description: "no browser prompt: \(presenter.results)")
        }
        return (attempt, url)
    }

    func ended() -> Result<SignInOutcome, SignInError>? { presenter.waitForEnd() }

    /// The issued session the machine holds while it asks whether to keep it (Portal's redirect has no state).
    func confirming() -> IssuedSession? {
        _ = presenter.wait { controller.state.confirming != nil }
        return controller.state.confirming
    }

    @Test(arguments: ["google", "apple"])
    func signInWithoutTOTPStoresTheClientSessionToken(_ provider: String) throws {
        let sandbox = try TurnkeySandbox()
        let (attempt, url) = try start(sandbox, Provider(provider))
        guard case .browser(let redirect) = attempt.method else {
            Issue.record("not a browser attempt")
            return
        }
        let final = try sandbox.browse(url)
        #expect(final.hasPrefix(redirect + "?"))
        let query = Dictionary(
            URLComponents(string: final)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? [],
            uniquingKeysWith: { first, _ in first })
        // Portal's redirect: a one-time token and the login type, no app-side state; the shape is the contract's.
        #expect(query["state"] == nil)
        #expect(query["token"] != nil)
        #expect(query["login_type"] == provider.uppercased())
        #expect(WireContract.portal.check(redirectQuery: query).isEmpty)
        #expect(controller.paste(final) == .accepted)
        // Nothing is stored until the user, shown whom it signs in, keeps it.
        let asked = try #require(confirming())
        #expect(asked.session.record.subject.count == 36)
        #expect(stored.count == 0)
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = ended() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.backend == "sandbox-portal")
        #expect(outcome.record.provider == provider)
        let session = try #require(stored.sessions.first)
        #expect(session.secrets.sessionJwt?.isEmpty == false)
        #expect(session.record.subject.count == 36)
    }

    @Test func aTOTPUserIsChallengedWithTheUserJwt() throws {
        let sandbox = try TurnkeySandbox()
        let (_, url) = try start(sandbox)
        #expect(controller.paste(try sandbox.browse(url, user: "dora")) == .accepted)
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        guard case .totpRequired(_, let challenge, _) = controller.state else {
            Issue.record("no TOTP")
            return
        }
        #expect(challenge.enrolmentLink?.hasPrefix("otpauth://") == true)
        #expect(stored.count == 0)
        let right = sandbox.totp()
        controller.enterCode(TurnkeySandbox.wrongCode(for: right))
        #expect(presenter.wait { presenter.notices == [.invalidCode] })
        #expect(stored.count == 0)
        controller.enterCode(right)
        #expect(confirming()?.session.record.email == "dora@example.com")
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = ended() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.subject == challenge.user)
        #expect(stored.sessions.first?.secrets.sessionJwt?.isEmpty == false)
        // The person is named by the enrolment link's account (sandbox-users.json: dora is dora@example.com),
        // not by Portal's UUID.
        #expect(outcome.record.email == "dora@example.com")
        #expect(outcome.record.key == "google-dora@example.com")
        #expect(outcome.record.userLabel == "dora@example.com")
    }

    /// A session the user does not keep is not stored, and the sign-in ends as cancelled.
    @Test func aSessionTheUserDoesNotKeepIsNotStored() throws {
        let sandbox = try TurnkeySandbox()
        let (_, url) = try start(sandbox)
        #expect(controller.paste(try sandbox.browse(url)) == .accepted)
        #expect(confirming() != nil)
        controller.answerIdentity(keep: false)
        #expect(ended() == .failure(.closed))
        #expect(stored.count == 0)
    }

    /// Portal's backend only ever sends `error=oauth_failed`, a denial at the provider included.
    @Test func aDenialComesBackAsOAuthFailed() throws {
        let sandbox = try TurnkeySandbox()
        let (_, url) = try start(sandbox)
        let final = try sandbox.browse(url, decision: "deny")
        #expect(final == "authdeck://callback?error=oauth_failed")
        _ = controller.paste(final)
        guard case .failure(let error)? = ended() else {
            Issue.record("the attempt did not fail")
            return
        }
        #expect(error == .authenticationFailed(providerError: "oauth_failed"))
        #expect(stored.count == 0)
    }

    @Test func aFailedProviderLegIsAuthenticationFailed() throws {
        let sandbox = try TurnkeySandbox()
        let (_, url) = try start(sandbox)
        // Portal's callback with a code the provider never issued: Portal sends the browser back with oauth_failed.
        let portalState = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "state" }?.value)
        let callback =
            sandbox.base + "/portal/api/v3/auth/oauth/callback/google?"
            + FormEncoding.encode([("state", portalState), ("code", "forged")])
        let response = try CurlTransport(timeout: 5).send(OutgoingRequest(url: callback))
        let final = try #require(response.headers["location"])
        #expect(final.contains("error=oauth_failed"))
        _ = controller.paste(final)
        guard case .failure(let error)? = ended() else {
            Issue.record("the attempt did not fail")
            return
        }
        #expect(error == .authenticationFailed(providerError: "oauth_failed"))
    }

    @Test func aMethodTheEnvironmentDoesNotOfferIsUnavailable() throws {
        let sandbox = try TurnkeySandbox { $0.portalMethods = [.google] }
        let backend = try sandbox.backend("apple", backend: "sandbox-portal")
        #expect(throws: SignInError.authMethodUnavailable(method: "Apple")) {
            _ = try backend.method(loopbackRedirectURI: "http://127.0.0.1:5999/callback")
        }
    }

    @Test func aWrongEnvironmentOrARedirectNotAllowListedIsUnauthorized() throws {
        let sandbox = try TurnkeySandbox { $0.portalEnvironmentID = "the-right-one" }
        let transport = CurlTransport(timeout: 3)
        let wrong = PortalClient(baseURL: sandbox.base + "/portal", environmentID: "wrong", transport: transport)
        #expect(throws: SignInError.unauthorized) { _ = try wrong.methods() }
        let right = PortalClient(
            baseURL: sandbox.base + "/portal", environmentID: "the-right-one",
            transport: transport)
        #expect(try right.methods() == ["EMAIL_MAGIC_LINK", "GOOGLE", "APPLE"])
        #expect(throws: SignInError.unauthorized) {
            _ = try right.oauthURLs(redirectURL: "https://evil.example/callback")
        }
        // Allow-listed byte for byte: a loopback URL on a port the environment does not list is refused too.
        #expect(throws: SignInError.unauthorized) {
            _ = try right.oauthURLs(redirectURL: "http://127.0.0.1:5999/callback")
        }
    }

    @Test func aCallbackWithoutATokenKeepsWaiting() throws {
        let sandbox = try TurnkeySandbox()
        let (attempt, _) = try start(sandbox)
        guard case .browser(let redirect) = attempt.method else {
            Issue.record("not a browser attempt")
            return
        }
        _ = controller.paste(redirect + "?state=" + attempt.state)
        #expect(presenter.wait { presenter.notices.contains(.callbackIncomplete) })
        #expect(controller.state.attempt?.id == attempt.id)
        controller.cancel()
        _ = ended()
    }

    @Test func aSecondSignInWhileOneRunsIsRefused() throws {
        let sandbox = try TurnkeySandbox()
        let (attempt, _) = try start(sandbox)
        controller.start(try sandbox.backend("google", backend: "sandbox-portal"), timeout: 60)
        #expect(presenter.wait { presenter.notices.contains(.signInInProgress) })
        #expect(controller.state.attempt?.id == attempt.id)
        controller.cancel()
        _ = ended()
    }

    @Test func aOneTimeTokenIsExchangedOnce() throws {
        let sandbox = try TurnkeySandbox()
        let (_, url) = try start(sandbox)
        let final = try sandbox.browse(url)
        let token = try #require(URLComponents(string: final)?.queryItems?.first { $0.name == "token" }?.value)
        let client = PortalClient(
            baseURL: sandbox.base + "/portal", environmentID: "sandbox-environment",
            transport: CurlTransport(timeout: 3))
        #expect(try client.exchange(token: token).clientSessionToken != nil)
        #expect(throws: SignInError.unauthorized) { _ = try client.exchange(token: token) }
        controller.cancel()
        _ = ended()
    }

    @Test func aPortalThatFailsOrAnswersHTMLSaysWhich() throws {
        let proxy = try TurnkeyTestProxy { path, _ in
            path.hasSuffix("/methods")
                ? .html(502, "<html><body>Bad gateway</body></html>")
                : TurnkeyTestProxy.json(500, #"{"error":"token store down"}"#)
        }
        let client = PortalClient(
            baseURL: proxy.baseURL, environmentID: "env",
            transport: CurlTransport(timeout: 2))
        #expect {
            _ = try client.methods()
        } throws: { error in
            guard case .network(let message) = error as? SignInError else { return false }
            return message.contains("HTTP 502") && message.contains("HTML") && message.contains("Portal")
        }
        #expect {
            _ = try client.exchange(token: "t")
        } throws: { error in
            guard case .network(let message) = error as? SignInError else { return false }
            return message.contains("HTTP 500") && message.contains("token store down")
        }
    }

    /// PortalSwift keys its replay memory on the token: a redirect delivered again during the TOTP step answers
    /// the same step, and after the sign-in the same result; the sandbox's token endpoint is asked once.
    @Test func aReDeliveredRedirectReplaysTheStepThenTheResultAndIsExchangedOnce() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (_, url) = try start(sandbox, transport: transport)
        let final = try sandbox.browse(url, user: "dora")
        #expect(controller.paste(final) == .accepted)
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        let stepsShown = presenter.reports.count { if case .stateChanged(.totpRequired) = $0 { true } else { false } }
        #expect(controller.paste(final) == .accepted)
        #expect(
            presenter.wait {
                presenter.reports.count { if case .stateChanged(.totpRequired) = $0 { true } else { false } }
                    > stepsShown
            })
        #expect(presenter.notices.isEmpty)
        #expect(transport.count("/oauth/tokens") == 1)
        controller.enterCode(sandbox.totp())
        _ = presenter.wait { controller.state.confirming != nil }
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = ended() else {
            Issue.record("no session")
            return
        }
        #expect(controller.paste(final) == .accepted)
        #expect(presenter.wait { presenter.reports.contains(.replayed(outcome)) })
        #expect(transport.count("/oauth/tokens") == 1)
        #expect(stored.count == 1)
    }

    /// PortalSwift exchanges nothing for a redirect without `login_type`: refused in one line, nothing exchanged or
    /// stored, and the whole redirect still signs in.
    @Test func aRedirectWithoutLoginTypeIsRefusedAndItsTokenStaysUnspent() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (_, url) = try start(sandbox, transport: transport)
        let final = try sandbox.browse(url)
        let token = try #require(URLComponents(string: final)?.queryItems?.first { $0.name == "token" }?.value)
        let unmarked = "authdeck://callback?" + FormEncoding.encode([("token", token)])
        guard case .refused(let reason) = controller.paste(unmarked) else {
            Issue.record("a redirect without login_type was taken")
            return
        }
        #expect(reason.contains("login_type") && !reason.contains(token) && !reason.contains("\n"))
        #expect(transport.count("/oauth/tokens") == 0)
        #expect(stored.count == 0)
        #expect(controller.paste(final) == .accepted)
        #expect(confirming() != nil)
        controller.answerIdentity(keep: true)
        guard case .success? = ended() else {
            Issue.record("the whole redirect did not sign in")
            return
        }
        #expect(transport.count("/oauth/tokens") == 1)
    }
}

extension SignInStateMachine.State {
    /// The issued session held while the user is asked whether to keep it.
    var confirming: IssuedSession? {
        switch self {
        case .awaitingCallback(_, .confirming(let issued)), .totpRequired(_, _, .confirming(let issued)): issued
        case .idle, .awaitingCallback, .totpRequired, .authenticated: nil
        }
    }
}
