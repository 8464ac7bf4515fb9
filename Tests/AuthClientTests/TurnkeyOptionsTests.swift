import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

/// The turnkey backend's per-provider options against the real sandbox proxy: which Google/Apple flow runs when
/// `oauthFlow` is not set, `secondaryClientIDs` registered at sign-up as the Turnkey SDK registers them (the
/// sandbox then accepts a later `oauth_login` whose token's `aud` is one of them, and no other), `additionalState`
/// carried in `state` and checked on the redirect, and X's sign-up under the SDK's provider name `twitter`.
@Suite(.serialized) struct TurnkeyOptionsTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController

    init() {
        controller = SignInController(
            report: presenter.report, persist: stored.persist, receivers: ReceiverOptions(), browser: nil)
    }

    var notes: [String] {
        presenter.reports.compactMap { if case .note(let text) = $0 { text } else { nil } }
    }

    /// The sandbox's config.json with the turnkey backend's Google entry changed by `adjust`.
    static func configuration(
        _ sandbox: TurnkeySandbox, _ adjust: (inout BackendConfiguration, inout ProviderConfiguration) -> Void
    ) -> Configuration {
        var configuration = sandbox.configuration
        var backend = configuration.backends?["sandbox-turnkey"] ?? BackendConfiguration(type: .turnkey)
        var google = backend.providers?["google"] ?? ProviderConfiguration()
        adjust(&backend, &google)
        backend.providers = (backend.providers ?? [:]).merging(["google": google]) { _, new in new }
        configuration.backends?["sandbox-turnkey"] = backend
        return configuration
    }

    /// Starts a sign-in and answers its browser URL.
    func start(
        _ provider: Provider, _ sandbox: TurnkeySandbox, configuration: Configuration,
        transport: RecordingTransport = RecordingTransport(), clientID: String? = nil
    ) throws -> String {
        // Every request and answer is held to the Auth Proxy contract, as the sandbox's own backends are.
        transport.contracts = sandbox.contracts
        var overrides = ProviderOverrides()
        overrides.clientID = clientID
        controller.start(
            try SignInBackendFactory.make(
                request: SignInRequest(provider: provider, backendName: "sandbox-turnkey"),
                configuration: configuration, catalog: TurnkeySandbox.catalog, transport: transport,
                metadata: ProviderMetadataCache(transport: transport, folder: nil), overrides: overrides),
            timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            throw TurnkeySandbox.BrowseFailure(description: "no browser prompt: \(presenter.results)")
        }
        return url
    }

    /// What broke the contracts in `transports`, as issues of the test.
    static func recordViolations(_ transports: RecordingTransport...) {
        for problem in transports.flatMap({ $0.takeViolations() }) { Issue.record(Comment(rawValue: problem)) }
    }

    /// Para's branch: a new social user verifies the email the provider named with the code the proxy sent.
    func verifyNewAccountEmail(_ sandbox: TurnkeySandbox) throws {
        #expect(
            presenter.wait {
                if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
            })
        guard case .oneTimeCode(_, _, let otpID?) = controller.state.attempt?.method else {
            Issue.record("no verification step for the new account")
            return
        }
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
    }

    func outcome() throws -> SignInOutcome {
        switch try #require(presenter.waitForEnd()) {
        case .success(let outcome): return outcome
        case .failure(let error): throw error
        }
    }

    // MARK: - Which flow runs

    /// The seed presents Turnkey's hosted pages as the default: with no oauthFlow and no client secret, Google
    /// starts at the proxy's oauth-origin page, and the sign-in says which flow runs and why.
    @Test func withoutAClientSecretGoogleRunsTheHostedFlowAndSaysSo() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = Self.configuration(sandbox) { backend, _ in backend.oauthFlow = nil }
        let url = try start("google", sandbox, configuration: configuration)
        #expect(url.hasPrefix(sandbox.base + "/turnkey/oauth-origin?"))
        #expect(presenter.wait { notes.contains { $0.contains("hosted") } })
        #expect(notes.first?.contains("oauthFlow hosted (no client secret is configured)") == true)
        let final = try sandbox.browse(url)
        #expect(final.hasPrefix("authdeck://callback?id_token="))
        #expect(controller.paste(final) == .accepted)
        #expect(try outcome().kind == .login)
    }

    /// With a client secret of one's own, the code exchange runs with it, and the sign-in says so.
    @Test func withAClientSecretGoogleRunsTheCodeFlowAndSaysSo() throws {
        let sandbox = try TurnkeySandbox()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("google-secret").path
        FileManager.default.createFile(
            atPath: secret, contents: Data("sandbox-secret\n".utf8), attributes: [.posixPermissions: 0o600])
        let configuration = Self.configuration(sandbox) { backend, google in
            backend.oauthFlow = nil
            google.clientSecretFile = secret
        }
        let url = try start("google", sandbox, configuration: configuration)
        #expect(!url.contains("/turnkey/oauth-origin"))
        #expect(presenter.wait { !notes.isEmpty })
        #expect(notes.first?.contains("oauthFlow code (a client secret is configured)") == true)
    }

    /// A bad additionalState is one line naming the setting, before any request is sent.
    @Test func aBadAdditionalStateIsRefusedBeforeAnythingIsSent() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = Self.configuration(sandbox) { _, google in google.additionalState = ["": "x"] }
        let transport = RecordingTransport()
        var refusal: SignInError?
        do {
            _ = try SignInBackendFactory.make(
                request: SignInRequest(provider: "google", backendName: "sandbox-turnkey"),
                configuration: configuration, catalog: TurnkeySandbox.catalog, transport: transport,
                metadata: ProviderMetadataCache(transport: transport, folder: nil))
        } catch {
            refusal = error
        }
        #expect(refusal?.message.contains("providers.google.additionalState") == true)
        #expect(refusal?.message.contains("\n") == false)
        #expect(transport.paths.isEmpty)
    }

    // MARK: - secondaryClientIDs

    /// A sign-up registers each secondary client id as the SDK does (signup_v2, `oidcClaims` with the token's iss
    /// and sub and that id as aud); a later sign-in through that client id logs in to the same account, one
    /// through a client id nobody registered is refused by the proxy.
    @Test func secondaryClientIDsAreRegisteredAtSignUpAndAcceptedLater() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = Self.configuration(sandbox) { backend, google in
            backend.oauthFlow = "code"
            google.secondaryClientIDs = ["web-client"]
        }
        let transport = RecordingTransport()
        let first = try start("google", sandbox, configuration: configuration, transport: transport)
        #expect(controller.paste(try sandbox.browse(first, user: "cleo")) == .accepted)
        try verifyNewAccountEmail(sandbox)
        let created = try outcome()
        #expect(created.kind == .signup)
        let signup = try #require(transport.bodies("/v1/signup_v2").first)
        guard case .array(let entries)? = signup["oauthProviders"] else {
            Issue.record("signup_v2 sent no oauthProviders")
            return
        }
        #expect(entries.count == 2)
        let token = try #require(entries.first?["oidcToken"]?.string)
        let claims = try JSONValue.parse(try JWS.decodeUnverified(token).payload)
        #expect(entries.last?["providerName"]?.string == "google")
        #expect(entries.last?["oidcClaims"]?["aud"]?.string == "web-client")
        #expect(entries.last?["oidcClaims"]?["iss"]?.string == claims["iss"]?.string)
        #expect(entries.last?["oidcClaims"]?["sub"]?.string == claims["sub"]?.string)

        let second = try start("google", sandbox, configuration: configuration, clientID: "web-client")
        #expect(URLComponents(string: second)?.queryItems?.first { $0.name == "client_id" }?.value == "web-client")
        #expect(controller.paste(try sandbox.browse(second, user: "cleo")) == .accepted)
        let again = try outcome()
        #expect(again.kind == .login)
        #expect(again.record.subject == created.record.subject)

        let refused = RecordingTransport()
        let third = try start(
            "google", sandbox, configuration: configuration, transport: refused, clientID: "mobile-nobody-registered")
        #expect(controller.paste(try sandbox.browse(third, user: "cleo")) == .accepted)
        guard case .failure? = presenter.waitForEnd() else {
            Issue.record("a client id nobody registered signed in")
            return
        }
        // The proxy's own answer to oauth_login says why.
        #expect(refused.count("/v1/oauth_login") == 1)
        #expect(refused.traffic.last?.contains("not a client id this account registered") == true)
        #expect(stored.sessions.count == 2)
        Self.recordViolations(transport, refused)
    }

    // MARK: - additionalState

    /// The pairs ride in `state` as `&key=value` (percent-encoded); a redirect whose state lost a pair or carries
    /// another value is refused with one notice and stores nothing, and the real one still signs in.
    @Test func additionalStateIsSentInStateAndCheckedOnTheRedirect() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = Self.configuration(sandbox) { backend, google in
            backend.oauthFlow = "code"
            google.additionalState = ["return_to": "/wallet home", "app": "authdeck"]
        }
        let url = try start("google", sandbox, configuration: configuration)
        let state = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "state" }?.value)
        #expect(state.hasSuffix("&app=authdeck&return_to=%2Fwallet%20home"))
        let final = try sandbox.browse(url)
        let sent = "state=" + FormEncoding.escape(state)
        #expect(final.contains(sent))
        let random = String(state.prefix { $0 != "&" })
        for forged in [random, random + "&app=authdeck&return_to=%2Fsomewhere"] {
            let refusalsBefore = presenter.notices.count
            #expect(
                controller.paste(final.replacingOccurrences(of: sent, with: "state=" + FormEncoding.escape(forged)))
                    != .accepted)
            #expect(presenter.wait { presenter.notices.count == refusalsBefore + 1 })
            #expect(presenter.notices.last == .stateMismatch)
            #expect(stored.sessions.isEmpty)
        }
        #expect(controller.paste(final) == .accepted)
        #expect(try outcome().kind == .login)
    }

    /// The hosted flow adds each pair to the origin URL too, as the SDK's buildOAuthURL does, and then needs
    /// `state` back: a hosted redirect without it is no longer enough.
    @Test func withAdditionalStateTheHostedRedirectMustBringStateBack() throws {
        let sandbox = try TurnkeySandbox()
        let configuration = Self.configuration(sandbox) { backend, google in
            backend.oauthFlow = "hosted"
            google.additionalState = ["app": "authdeck"]
        }
        let url = try start("google", sandbox, configuration: configuration)
        #expect(URLComponents(string: url)?.queryItems?.first { $0.name == "app" }?.value == "authdeck")
        let final = try sandbox.browse(url)
        let withoutState = final.components(separatedBy: "&").filter { !$0.hasPrefix("state=") }
            .joined(separator: "&")
        #expect(controller.paste(withoutState) != .accepted)
        #expect(stored.sessions.isEmpty)
        #expect(controller.paste(final) == .accepted)
        #expect(try outcome().kind == .login)
    }

    // MARK: - X

    /// The SDK signs X users up as `twitter` and asks `tweet.read users.read`: no refresh token, which the proxy
    /// path never keeps. The X sign-in also says which redirect URI must be registered.
    @Test func xSignsUpAsTwitterWithoutOfflineAccess() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        let url = try start("x", sandbox, configuration: sandbox.configuration, transport: transport)
        let scope = URLComponents(string: url)?.queryItems?.first { $0.name == "scope" }?.value
        #expect(scope == "tweet.read users.read")
        #expect(presenter.wait { notes.count == 2 })
        let redirect = try #require(
            presenter.attempt.flatMap { attempt -> String? in
                if case .browser(let uri) = attempt.method { uri } else { nil }
            })
        #expect(notes.last?.contains("sends the redirect URI \(redirect)") == true)
        #expect(notes.last?.contains("\"listen\": \"127.0.0.1:PORT\"") == true)
        #expect(controller.paste(try sandbox.browse(url, user: "cleo")) == .accepted)
        try verifyNewAccountEmail(sandbox)
        #expect(try outcome().kind == .signup)
        let signup = try #require(transport.bodies("/v1/signup_v2").first)
        guard case .array(let entries)? = signup["oauthProviders"] else {
            Issue.record("signup_v2 sent no oauthProviders")
            return
        }
        #expect(entries.first?["providerName"]?.string == "twitter")
        Self.recordViolations(transport)
    }
}
