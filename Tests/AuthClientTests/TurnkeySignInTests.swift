import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Synchronization
import Testing

/// The turnkey backend against the real sandbox proxy, driven through the shared controller and machine as the
/// command line and the TUI drive it: email and SMS codes, signup versus login, the client signature, social
/// logins bound to the session key, the TOTP extension, and every bad input that reaches the client.
@Suite(.serialized) struct TurnkeySignInTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let now = ControllerClock()
    let controller: SignInController

    init() {
        let now = self.now
        controller = SignInController(
            report: presenter.report, persist: stored.persist, receivers: ReceiverOptions(),
            browser: nil, clock: { now.date })
    }

    /// Starts a code sign-in and answers the otpId the proxy sent the code with.
    func startCode(
        _ sandbox: TurnkeySandbox, _ provider: Provider = .email, contact: Contact,
        transport: RecordingTransport = RecordingTransport(),
        backend name: String = "sandbox", configuration: Configuration? = nil
    ) throws -> (attempt: Attempt, otpID: String) {
        controller.start(
            try sandbox.backend(
                provider, backend: name, contact: contact, transport: transport, configuration: configuration),
            timeout: 120)
        let attempt = try #require(presenter.waitForBegin())
        guard case .codeSent(let otpID)? = presenter.prompts.last else {
            throw TurnkeySandbox.BrowseFailure(description: "no code was sent: \(presenter.results)")
        }
        // The machine learns the otpId on its queue; a code typed before that is refused as "not sent yet".
        #expect(
            presenter.wait {
                if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
            })
        return (attempt, otpID)
    }

    /// After the resend cooldown, asks for a new code (a new otpId) and signs in with it.
    func resendAndSignIn(_ sandbox: TurnkeySandbox, after otpID: String) throws {
        now.advance(by: 31)
        controller.resend()
        #expect(
            presenter.wait {
                guard case .oneTimeCode(_, _, let next?) = controller.state.attempt?.method else { return false }
                return next != otpID
            })
        guard case .oneTimeCode(_, _, let next?) = controller.state.attempt?.method else { return }
        controller.enterCode(try #require(sandbox.code(otpID: next)))
        #expect(try outcome().kind == .login)
    }

    func outcome() throws -> SignInOutcome {
        switch try #require(presenter.waitForEnd()) {
        case .success(let outcome): return outcome
        case .failure(let error): throw error
        }
    }

    func failure() throws -> SignInError? {
        guard case .failure(let error)? = presenter.waitForEnd() else { return nil }
        return error
    }

    static func claims(_ jwt: String) throws -> JSONValue {
        try JSONValue.parse(try JWS.decodeUnverified(jwt).payload)
    }

    // MARK: - Email and SMS

    @Test func emailCodeLogsAnExistingUserInWithASessionBoundToItsKey() throws {
        let sandbox = try TurnkeySandbox()
        let (attempt, otpID) = try startCode(sandbox, contact: .email("ada@example.com"))
        #expect(attempt.sessionPublicKeyHex?.count == 66)
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        let outcome = try outcome()
        #expect(outcome.kind == .login)
        #expect(outcome.record.backend == "sandbox")
        #expect(outcome.record.provider == "email")
        #expect(outcome.record.email == "ada@example.com")
        let session = try #require(stored.sessions.first)
        let jwt = try #require(session.secrets.sessionJwt)
        let claims = try Self.claims(jwt)
        #expect(claims["public_key"]?.string == attempt.sessionPublicKeyHex)
        #expect(claims["user_id"]?.string == outcome.record.subject)
        #expect(claims["session_type"]?.string == "SESSION_TYPE_READ_WRITE")
        #expect(outcome.record.expiresAt.map { Int($0.timeIntervalSince1970) } == claims["exp"]?.integer)
        // The private key stored with the session is the one the session is bound to.
        let privateHex = try #require(session.secrets.privateKeyHex)
        #expect(privateHex.count == 64)
        let privateBytes = try #require(Hex.decode(privateHex))
        let key = try P256PrivateKey(rawRepresentation: privateBytes)
        #expect(key.publicKey.compressedHex == attempt.sessionPublicKeyHex)
        #expect(session.secrets.accessToken == nil)
    }

    @Test func aNewContactSignsUpAndTheResultSaysSo() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (attempt, otpID) = try startCode(sandbox, contact: .email("cleo@example.com"), transport: transport)
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        let outcome = try outcome()
        #expect(outcome.kind == .signup)
        // tkhq/swift-sdk's completeOtp: verifyOtp (v2), the account lookup, signUpWithOtp (signup_v2), then
        // loginWithOtp (otp_login_v2); wallet_kit_config and initOtp (otp_init_v2) come before.
        #expect(
            transport.paths.map { String($0.split(separator: "/").last ?? "") } == [
                "wallet_kit_config", "otp_init_v2", "otp_verify_v2", "account", "signup_v2", "otp_login_v2",
            ])
        // The session key is bound into the verificationToken by the sealed bundle, and both later calls are
        // signed by it over the SDK's token usage (signupV2, then login).
        let token = try #require(transport.bodies("/v1/otp_login_v2").first?["verificationToken"]?.string)
        let publicKey = try #require(try Self.claims(token)["public_key"]?.string)
        #expect(publicKey == attempt.sessionPublicKeyHex)
        let signup = try #require(transport.bodies("/v1/signup_v2").first)
        #expect(signup["apiKeys"] == .array([]) && signup["authenticators"] == .array([]))
        #expect(signup["oauthProviders"] == .array([]))
        // buildSignUpBody's defaults: userName is the email, organizationName is sub-org-<unix time>.
        #expect(signup["userEmail"]?.string == "cleo@example.com" && signup["userName"]?.string == "cleo@example.com")
        #expect(signup["organizationName"]?.string?.hasPrefix("sub-org-") == true)
        for (call, type, usage) in [
            ("/v1/signup_v2", "USAGE_TYPE_SIGNUP", "signupV2"), ("/v1/otp_login_v2", "USAGE_TYPE_LOGIN", "login"),
        ] {
            let signature = transport.bodies(call).first?["clientSignature"]
            #expect(signature?["publicKey"]?.string == publicKey, "\(call)")
            let message = try JSONValue.parse(try #require(signature?["message"]?.string))
            #expect(message["type"]?.string == type, "\(call)")
            #expect(message[usage] != nil, "\(call)")
            #expect(message["tokenId"]?.string?.isEmpty == false, "\(call)")
        }
        let login = try #require(transport.bodies("/v1/otp_login_v2").first)
        #expect(login["invalidateExisting"] == .bool(false) && login["organizationId"] == nil)
    }

    /// The SDK checks the target bundle's signer against the one it trusts before sealing the code to it: a proxy
    /// whose signer is not config.json's `otpSignerPublicKey` (here Turnkey's production key, the default) gets no
    /// code at all.
    @Test func aTargetSignedByAnotherSignerGetsNoCode() throws {
        let sandbox = try TurnkeySandbox()
        var configuration = sandbox.configuration
        #expect(configuration.backends?["sandbox"]?.otpSignerPublicKey?.count == 130)
        configuration.backends?["sandbox"]?.otpSignerPublicKey = nil
        let transport = RecordingTransport()
        let (_, otpID) = try startCode(
            sandbox, contact: .email("ada@example.com"), transport: transport, configuration: configuration)
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        guard case .failure(.authenticationFailed(let reason))? = presenter.waitForEnd() else {
            Issue.record("did not fail: \(presenter.results)")
            return
        }
        #expect(reason.contains("otpSignerPublicKey"))
        #expect(transport.count("/v1/otp_verify_v2") == 0)
        #expect(stored.count == 0)
    }

    @Test func aSignerSettingThatIsNoKeyIsRefusedBeforeAnyCodeIsSent() throws {
        let sandbox = try TurnkeySandbox()
        var configuration = sandbox.configuration
        configuration.backends?["sandbox"]?.otpSignerPublicKey = "04abc"
        controller.start(
            try sandbox.backend(
                "email", backend: "sandbox", contact: .email("ada@example.com"), configuration: configuration),
            timeout: 60)
        guard case .failure(.unavailable(let reason))? = presenter.waitForEnd() else {
            Issue.record("did not fail: \(presenter.results)")
            return
        }
        #expect(reason.contains("otpSignerPublicKey must be an uncompressed P-256 public key"))
        #expect(!reason.contains("\n"))
        #expect(sandbox.codesSent == 0)
        #expect(stored.count == 0)
    }

    @Test func smsCodeThroughTheTurnkeyBackend() throws {
        let sandbox = try TurnkeySandbox()
        let (_, otpID) = try startCode(sandbox, "sms", contact: .phone("+15550100002"), backend: "sandbox-turnkey")
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        let outcome = try outcome()
        #expect(outcome.kind == .login)
        #expect(outcome.record.phone == "+15550100002")
        #expect(outcome.record.backend == "sandbox-turnkey")
    }

    /// The SDK's `ClientSignature.forLogin`: the JSON of `v1TokenUsage` with `login.publicKey`, the token's `id`
    /// claim as `tokenId` and `USAGE_TYPE_LOGIN`, signed raw r‖s. The expected text is written out by hand.
    @Test func theClientSignatureIsRawRSOverTheTokenUsageMessage() throws {
        let key = try P256PrivateKey()
        // {"alg":"ES256"} . {"id":"otp-1","contact":"ada@example.com"} . (no signature needed to read claims)
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJpZCI6Im90cC0xIiwiY29udGFjdCI6ImFkYUBleGFtcGxlLmNvbSJ9.c2ln"
        let pk = key.publicKey.compressedHex
        let message = try TurnkeyProxyClient.tokenUsage(
            verificationToken: token, type: "USAGE_TYPE_LOGIN",
            usage: ("login", .object(["publicKey": .string(pk)])))
        #expect(message == "{\"login\":{\"publicKey\":\"\(pk)\"},\"tokenId\":\"otp-1\",\"type\":\"USAGE_TYPE_LOGIN\"}")
        let signature = try TurnkeyProxyClient.clientSignature(message: message, key: key)
        #expect(signature["scheme"]?.string == "CLIENT_SIGNATURE_SCHEME_API_P256")
        #expect(signature["publicKey"]?.string == pk)
        #expect(signature["message"]?.string == message)
        let hex = try #require(signature["signature"]?.string)
        let raw = try #require(Hex.decode(hex))
        #expect(raw.count == 64)
        #expect(key.publicKey.isValidSignature(raw, for: Array(message.utf8)))
        #expect(!key.publicKey.isValidSignature(raw, for: Array((message + " ").utf8)))
    }

    // MARK: - Bad input

    @Test func aContactIsRequiredAndNoRequestIsSentWithoutOne() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        #expect(throws: SignInError.invalidContact) {
            _ = try sandbox.backend("email", backend: "sandbox", contact: nil, transport: transport)
        }
        #expect(throws: SignInError.invalidContact) { _ = try Contact.validatedEmail("ada@@example.com") }
        #expect(throws: SignInError.invalidContact) { _ = try Contact.validatedPhone("5550100001") }
        // A phone number given for an email sign-in is refused after the config, before any code goes out.
        let mismatched = try sandbox.backend(
            "email", backend: "sandbox", contact: .phone("+15550100001"),
            transport: transport)
        #expect(throws: SignInError.invalidContact) { _ = try mismatched.method(loopbackRedirectURI: nil) }
        #expect(transport.count("/v1/otp_init") == 0)
        #expect(sandbox.codesSent == 0)
    }

    @Test func aCodeOfTheWrongShapeIsRefusedBeforeSending() throws {
        let sandbox = try TurnkeySandbox {
            $0.otpLength = 8
            $0.otpAlphanumeric = true
        }
        let transport = RecordingTransport()
        let (attempt, otpID) = try startCode(sandbox, contact: .email("ada@example.com"), transport: transport)
        guard case .oneTimeCode(_, let format, _) = attempt.method else {
            Issue.record("not a code attempt")
            return
        }
        #expect(format.length == 8)
        #expect(format.alphanumeric)
        for bad in ["1234567", "123456789", "ABCD!EFG", ""] {
            controller.enterCode(bad)
        }
        #expect(presenter.wait { presenter.notices.count == 4 })
        #expect(presenter.notices.allSatisfy { $0 == .invalidCode })
        #expect(transport.count("/v1/otp_verify_v2") == 0)
        // Lower case and a dash are normalised, then sent.
        let code = try #require(sandbox.code(otpID: otpID))
        controller.enterCode(code.prefix(4).lowercased() + "-" + code.dropFirst(4).lowercased())
        #expect(try outcome().kind == .login)
        #expect(transport.count("/v1/otp_verify_v2") == 1)
    }

    /// The TUI shows a typed code as being checked at once; a code the machine refuses without sending must bring
    /// the screen back to waiting, so the state is told again, before the notice.
    @Test func aCodeRefusedBeforeSendingTellsTheStateAgainBeforeItsNotice() throws {
        let sandbox = try TurnkeySandbox()
        _ = try startCode(sandbox, contact: .email("ada@example.com"))
        let before = controller.sync { presenter.reports.count }
        controller.enterCode("12")
        #expect(presenter.wait { presenter.notices == [.invalidCode] })
        let reports = Array(presenter.reports[before...])
        guard reports.count == 2, case .stateChanged(.awaitingCallback(_, .waiting)) = reports[0],
            reports[1] == .notice(.invalidCode)
        else {
            Issue.record("the refusal was not told with the state: \(reports)")
            return
        }
        // Before it, each state was told once (not again on every tick of the clock).
        let states = presenter.reports[..<before].filter { if case .stateChanged = $0 { true } else { false } }
        #expect(zip(states, states.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test func aWrongCodeIsShownAndTheUserMayTryAgain() throws {
        let sandbox = try TurnkeySandbox()
        let (_, otpID) = try startCode(sandbox, contact: .email("ada@example.com"))
        let code = try #require(sandbox.code(otpID: otpID))
        controller.enterCode(TurnkeySandbox.wrongCode(for: code))
        // The proxy's own words (its rpcStatus message), as the SDK's code screen stays for another try.
        #expect(presenter.wait { presenter.notices.count == 1 })
        guard case .codeRefused(let reason)? = presenter.notices.first else {
            Issue.record("got \(presenter.notices)")
            return
        }
        #expect(reason.hasPrefix("invalid code"))
        #expect(
            presenter.wait {
                if case .awaitingCallback(_, .waiting) = controller.state { true } else { false }
            })
        #expect(stored.count == 0)
        controller.enterCode(code)
        #expect(try outcome().kind == .login)
        #expect(stored.count == 1)
    }

    @Test func anExpiredCodeKeepsTheCodeStepWithTheProxysReasonAndANewCodeSignsIn() throws {
        let sandbox = try TurnkeySandbox { $0.otpLifetime = 60 }
        let (_, otpID) = try startCode(sandbox, contact: .email("ada@example.com"))
        sandbox.clock.advance(by: 61)
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        #expect(presenter.wait { presenter.notices.count == 1 })
        guard case .codeRefused(let reason)? = presenter.notices.first else {
            Issue.record("got \(presenter.notices)")
            return
        }
        #expect(reason.contains("expired"))
        #expect(stored.count == 0)
        try resendAndSignIn(sandbox, after: otpID)
    }

    @Test func anExpiredOrUnknownOtpIDIsRefused() throws {
        let sandbox = try TurnkeySandbox { $0.otpLifetime = 60 }
        let backend = try sandbox.backend("email", backend: "sandbox", contact: .email("ada@example.com"))
        let method = try backend.method(loopbackRedirectURI: nil)
        let attempt = try backend.makeAttempt(
            id: AttemptID(1), method: method,
            deadline: Date().addingTimeInterval(60))
        guard case .codeSent(let otpID) = try backend.begin(attempt) else {
            Issue.record("no code sent")
            return
        }
        let code = try #require(sandbox.code(otpID: otpID))
        #expect(throws: SignInError.codeRefused(reason: "unknown otpId")) {
            _ = try backend.verifyCode(attempt, otpID: "no-such-otp", code: code)
        }
        sandbox.clock.advance(by: 61)
        #expect(throws: SignInError.codeRefused(reason: "the code has expired; request a new one")) {
            _ = try backend.verifyCode(attempt, otpID: otpID, code: code)
        }
        // The expired otpId is gone: asking again names it unknown.
        #expect(throws: SignInError.codeRefused(reason: "unknown otpId")) {
            _ = try backend.verifyCode(attempt, otpID: otpID, code: code)
        }
    }

    @Test func tooManyWrongCodesKeepTheCodeStepUntilANewCodeIsSent() throws {
        let sandbox = try TurnkeySandbox()
        let (_, otpID) = try startCode(sandbox, contact: .email("ada@example.com"))
        let code = try #require(sandbox.code(otpID: otpID))
        for round in 1...5 {
            controller.enterCode(TurnkeySandbox.wrongCode(for: code))
            #expect(presenter.wait { presenter.notices.count == round })
        }
        // The fifth answer is RESOURCE_EXHAUSTED (429); the SDK's code screen stays, and so does the step.
        guard case .codeRefused(let reason)? = presenter.notices.last else {
            Issue.record("got \(presenter.notices)")
            return
        }
        #expect(reason.contains("too many attempts"))
        // That otpId is spent: even the right code is refused, and nothing is stored.
        controller.enterCode(code)
        #expect(presenter.wait { presenter.notices.count == 6 })
        #expect(controller.sync { stored.count } == 0)
        try resendAndSignIn(sandbox, after: otpID)
    }

    @Test func aResendInsideTheCooldownIsRefusedAndAfterItSendsANewCode() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let (_, firstID) = try startCode(sandbox, contact: .email("ada@example.com"), transport: transport)
        controller.resend()
        #expect(presenter.wait { presenter.notices == [.rateLimited] })
        #expect(sandbox.codesSent == 1)
        #expect(transport.count("/v1/otp_init_v2") == 1)

        now.advance(by: 31)
        controller.resend()
        #expect(presenter.wait { sandbox.codesSent == 2 })
        #expect(
            presenter.wait {
                guard case .oneTimeCode(_, _, let otpID?) = controller.state.attempt?.method else { return false }
                return otpID != firstID
            })
        guard case .oneTimeCode(_, _, let secondID?) = controller.state.attempt?.method else {
            Issue.record("no new otpId")
            return
        }
        controller.enterCode(try #require(sandbox.code(otpID: secondID)))
        #expect(try outcome().kind == .login)
    }

    // MARK: - TOTP

    @Test func aTOTPUserIsChallengedAndOnlyTheRightCodeStores() throws {
        let sandbox = try TurnkeySandbox { $0.turnkeyTOTPExtension = true }
        let (_, otpID) = try startCode(sandbox, contact: .email("dora@example.com"))
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        guard case .totpRequired(_, let challenge, _) = controller.state else {
            Issue.record("no TOTP")
            return
        }
        #expect(challenge.enrolmentLink?.hasPrefix("otpauth://totp/") == true)
        #expect(challenge.user == "dora@example.com")
        #expect(stored.count == 0)

        let right = sandbox.totp()
        controller.enterCode(TurnkeySandbox.wrongCode(for: right))
        #expect(presenter.wait { presenter.notices == [.invalidCode] })
        guard case .totpRequired(_, let after, _) = controller.state else {
            Issue.record("left TOTP")
            return
        }
        #expect(after.attemptsLeft == 4)
        #expect(stored.count == 0)

        controller.enterCode(right)
        let outcome = try outcome()
        #expect(outcome.kind == .login)
        let claims = try Self.claims(try #require(stored.sessions.first?.secrets.sessionJwt))
        #expect(claims["public_key"]?.string == controller.sync { presenter.attempt?.sessionPublicKeyHex })
    }

    // MARK: - Social logins

    func social(
        _ provider: Provider, user: String, sandbox: TurnkeySandbox,
        transport: RecordingTransport = RecordingTransport()
    ) throws -> SignInOutcome {
        controller.start(try sandbox.backend(provider, backend: "sandbox-turnkey", transport: transport), timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        let publicKey = try #require(attempt.sessionPublicKeyHex)
        #expect(attempt.nonce == AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: publicKey))
        guard case .browser(let url)? = presenter.prompts.last else {
            throw TurnkeySandbox.BrowseFailure(description: "no browser prompt: \(presenter.results)")
        }
        let query = URLComponents(string: url)?.queryItems ?? []
        // Providers with ID tokens carry the key-bound nonce; Discord and X hand it to the proxy instead.
        let sentNonce = query.first { $0.name == "nonce" }?.value
        #expect(sentNonce == (["google", "apple"].contains(provider) ? attempt.nonce : nil))
        #expect(query.first { $0.name == "client_id" }?.value == "sandbox-\(provider)")
        #expect(controller.paste(try sandbox.browse(url, user: user)) == .accepted)
        return try outcome()
    }

    @Test(arguments: ["google", "apple", "discord", "x"])
    func socialLoginOfAnExistingUser(_ provider: String) throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let outcome = try social(Provider(provider), user: "ada", sandbox: sandbox, transport: transport)
        #expect(outcome.kind == .login)
        #expect(outcome.record.provider == provider)
        #expect(outcome.record.email == "ada@example.com")
        #expect(transport.count("/v1/oauth2_authenticate") == (["google", "apple"].contains(provider) ? 0 : 1))
        #expect(transport.count("/v1/oauth_login") == 1)
        let claims = try Self.claims(try #require(stored.sessions.first?.secrets.sessionJwt))
        #expect(claims["public_key"]?.string == presenter.attempt?.sessionPublicKeyHex)
    }

    /// Para's branch (seed 001) on the turnkey backend: a user the proxy does not know gets an account, then must
    /// verify the email the provider named with the code the proxy sent to it before `oauth_login` issues the
    /// session; a wrong code stores nothing. The code is the one the sandbox's outbox delivered.
    @Test(arguments: ["google", "apple", "discord", "x"])
    func aNewSocialUserVerifiesTheEmailBeforeTheSession(_ provider: String) throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        controller.start(
            try sandbox.backend(Provider(provider), backend: "sandbox-turnkey", transport: transport), timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt: \(presenter.results)")
            return
        }
        #expect(controller.paste(try sandbox.browse(url, user: "cleo")) == .accepted)
        #expect(
            presenter.wait {
                if case .awaitingCallback(_, .waiting) = controller.state,
                    case .oneTimeCode(.email("cleo@example.com"), _, _?) = controller.state.attempt?.method
                {
                    true
                } else {
                    false
                }
            })
        #expect(stored.count == 0 && transport.count("/v1/oauth_login") == 0)
        guard case .oneTimeCode(_, _, let otpID?) = controller.state.attempt?.method else {
            Issue.record("no verification step")
            return
        }
        let code = try #require(sandbox.code(otpID: otpID))
        controller.enterCode(TurnkeySandbox.wrongCode(for: code))
        // The SDK's code screen stays for another try whatever the proxy's reason (otp_verify_v2's refusal).
        #expect(
            presenter.wait {
                presenter.notices.contains { if case .codeRefused = $0 { true } else { false } }
            })
        #expect(stored.count == 0 && transport.count("/v1/oauth_login") == 0)
        controller.enterCode(code)
        let outcome = try outcome()
        #expect(outcome.kind == .signup)
        #expect(outcome.record.email == "cleo@example.com")
        #expect(transport.count("/v1/signup_v2") == 1 && transport.count("/v1/oauth_login") == 1)
        let claims = try Self.claims(try #require(stored.sessions.first?.secrets.sessionJwt))
        #expect(claims["public_key"]?.string == attempt.sessionPublicKeyHex)
    }

    @Test func aMethodTheProxyDoesNotEnableIsUnavailable() throws {
        let proxy = try TurnkeyTestProxy { path, _ in
            path == "/v1/wallet_kit_config"
                ? .json(200, Array(#"{"enabledProviders":["google"],"otpLength":6}"#.utf8))
                : .json(500, Array(#"{"code":13,"message":"unexpected"}"#.utf8))
        }
        let backend = proxy.backend("email", contact: .email("ada@example.com"))
        #expect(throws: SignInError.authMethodUnavailable(method: "Email code")) {
            _ = try backend.method(loopbackRedirectURI: nil)
        }
        #expect(proxy.paths == ["/v1/wallet_kit_config"])
    }
}

extension SignInStateMachine.State {
    /// The attempt in flight, for tests that read the machine's state through the controller.
    var attempt: Attempt? {
        switch self {
        case .awaitingCallback(let attempt, _), .totpRequired(let attempt, _, _): return attempt
        case .idle, .authenticated: return nil
        }
    }
}
