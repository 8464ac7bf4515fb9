import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Synchronization
import Testing

/// Every backend's whole flow, traced as `login --trace` traces it, against the real sandbox: no trace step, neither
/// as shown live nor as written out, holds any secret the attempt handled. The secrets are named from outside the
/// trace's redaction: the stored session's every secret, the PKCE verifier, what the redirect brought, the codes
/// typed, the test account's TOTP seed, and every JWT that crossed the wire in either direction, whatever field
/// carried it (the Turnkey proxy's `/v1/account` takes the provider's ID token as `filterValue`).
@Suite(.serialized) struct TraceRedactionTests {
    enum Flow: String, CaseIterable, CustomTestStringConvertible {
        case sandboxBrowser, sandboxDevice, sandboxEmail
        case turnkeyGoogle, turnkeyDiscord, turnkeyHostedGoogle, turnkeyEmailWithTOTP
        case portalGoogle, portalWithTOTP

        var testDescription: String { rawValue }
    }

    /// The TOTP seed of the sandbox's TOTP user (dora), from its published user table.
    static let doraSeed = "JBSWY3DPEHPK3PXP"

    @Test(arguments: Flow.allCases)
    func noTraceStepHoldsASecretTheFlowHandled(_ flow: Flow) throws {
        let live = Mutex<[TraceStep]>([])
        let trace = FlowTrace(onStep: { step in live.withLock { $0.append(step) } })
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let controller = SignInController(
            report: presenter.report, persist: stored.persist, receivers: ReceiverOptions(), browser: nil,
            trace: trace)
        let wire = RecordingTransport()
        let sandbox = try TurnkeySandbox { settings in
            if flow == .turnkeyEmailWithTOTP { settings.turnkeyTOTPExtension = true }
            // The device grant polls on the real clock, so the sandbox's must run too.
            if flow == .sandboxDevice { settings.clock = SandboxClock() }
        }
        var handled = [Self.doraSeed]

        func start(
            _ provider: Provider, _ backend: String, contact: Contact? = nil, device: Bool = false,
            configuration: Configuration? = nil
        ) throws -> Attempt {
            controller.start(
                try sandbox.backend(
                    provider, backend: backend, contact: contact, transport: wire, configuration: configuration,
                    trace: trace, useDevice: device),
                timeout: 60)
            return try #require(presenter.waitForBegin())
        }
        func browse(user: String = "ada") throws {
            guard case .browser(let url)? = presenter.prompts.last else {
                throw TurnkeySandbox.BrowseFailure(description: "no browser prompt: \(presenter.results)")
            }
            let final = try sandbox.browse(url, user: user)
            // `iss` is the issuer's public identifier (RFC 9207), which the trace names like every endpoint.
            for item in URLComponents(string: final)?.queryItems ?? []
            where !["state", "login_type", "iss"].contains(item.name) {
                handled.append(item.value ?? "")
            }
            // The hosted page may not hand state back (the ID token's nonce binds it): sent as it would come.
            let delivered =
                flow == .turnkeyHostedGoogle
                ? final.components(separatedBy: "&").filter { !$0.hasPrefix("state=") }.joined(separator: "&")
                : final
            #expect(controller.paste(delivered) == .accepted)
        }
        func typeSentCode() throws {
            guard case .codeSent(let otpID)? = presenter.prompts.last else {
                throw TurnkeySandbox.BrowseFailure(description: "no code was sent: \(presenter.results)")
            }
            #expect(
                presenter.wait {
                    if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
                })
            let code = try #require(sandbox.code(otpID: otpID))
            handled.append(code)
            controller.enterCode(code)
        }
        func typeTOTP() {
            #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
            if case .totpRequired(_, let challenge, _) = controller.state {
                handled += [challenge.userJwt, challenge.enrolmentLink ?? ""]
            }
            let code = sandbox.totp()
            handled.append(code)
            controller.enterCode(code)
        }

        /// Portal's redirect carries no state: the session is kept once the person says it is theirs.
        func keepStatelessSession() {
            #expect(presenter.wait { controller.state.confirming != nil })
            controller.answerIdentity(keep: true)
        }

        let attempt: Attempt
        switch flow {
        case .sandboxBrowser:
            attempt = try start("google", "sandbox")
            try browse()
        case .sandboxDevice:
            attempt = try start("google", "sandbox", device: true)
            guard case .device(let authorization)? = presenter.prompts.last else {
                Issue.record("no device prompt: \(presenter.results)")
                return
            }
            let page = try #require(authorization.verificationURIComplete)
            let approved = try CurlTransport(timeout: 5).send(
                OutgoingRequest(url: page + "&sandbox_user=ada&sandbox_auto=approve"))
            #expect(approved.status == 200)
        case .sandboxEmail:
            attempt = try start("email", "sandbox", contact: .email("ada@example.com"))
            try typeSentCode()
        case .turnkeyGoogle:
            attempt = try start("google", "sandbox-turnkey")
            try browse()
        case .turnkeyDiscord:
            attempt = try start("discord", "sandbox-turnkey")
            try browse()
        case .turnkeyHostedGoogle:
            var hosted = sandbox.configuration
            hosted.backends?["sandbox-turnkey"]?.oauthFlow = "hosted"
            attempt = try start("google", "sandbox-turnkey", configuration: hosted)
            try browse()
        case .turnkeyEmailWithTOTP:
            attempt = try start("email", "sandbox-turnkey", contact: .email("dora@example.com"))
            try typeSentCode()
            typeTOTP()
        case .portalGoogle:
            attempt = try start("google", "sandbox-portal")
            try browse()
            keepStatelessSession()
        case .portalWithTOTP:
            attempt = try start("google", "sandbox-portal")
            try browse(user: "dora")
            typeTOTP()
            keepStatelessSession()
        }
        guard case .success? = presenter.waitForEnd(timeout: 30) else {
            Issue.record("the \(flow) flow did not store a session: \(presenter.results)")
            return
        }
        _ = controller.sync { 0 }
        let session = try #require(stored.sessions.first)
        let secrets = session.secrets
        handled += [
            secrets.accessToken, secrets.refreshToken, secrets.idToken, secrets.sessionJwt, secrets.privateKeyHex,
            attempt.codeVerifier,
        ].compactMap { $0 }
        handled += wire.traffic.flatMap(Self.jwts)
        handled = handled.filter { $0.utf8.count >= FlowTrace.shortestSecretValue }
        // A JWT's signature alone is as good as the token to someone who has seen its claims elsewhere.
        handled += handled.filter { $0.split(separator: ".").count == 3 }.map { String($0.split(separator: ".")[2]) }
        #expect(handled.count >= 4, "too few secrets to look for: the flow did not run as planned")

        let encoder = JSONEncoder()
        let shown = try live.withLock { steps in
            try steps.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        }
        let written = trace.jsonLines()
        for secret in Set(handled) {
            #expect(!written.contains(secret), "the written trace holds a secret of \(secret.count) characters")
            #expect(
                !shown.contains { $0.contains(secret) },
                "a step shown live holds a secret of \(secret.count) characters")
        }
    }

    /// A value of a field the trace does not know by name, holding a secret learned earlier, is redacted; a
    /// secret learned after a step was stored is taken out of that step too.
    @Test func aSecretIsRedactedWhateverItsFieldIsCalled() {
        let trace = FlowTrace()
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLWJ5dGVz"
        trace.learnSecrets(in: JSONValue.object(["id_token": .string(token)]))
        trace.record(.request, "POST /v1/account", ["body": .object(["filterValue": .string(token)])])
        #expect(trace.steps.last?.details["body"]?["filterValue"]?.string == "[redacted \(token.count) chars]")

        trace.record(.notice, "the proxy said: code Zq7-unknown-field refused")
        trace.learnSecret("Zq7-unknown-field")
        #expect(trace.jsonLines().contains("code [redacted 17 chars] refused"))
        #expect(!trace.jsonLines().contains("Zq7-unknown-field"))
        // A combining mark after the secret joins its last character into another grapheme: still found.
        trace.record(.notice, "echo Zq7-unknown-field\u{301}")
        #expect(!trace.jsonLines().contains("Zq7-unknown-field"))
    }

    /// Every JWT-shaped word (three base64url parts, the first a JSON header) in `text`.
    static func jwts(in text: String) -> [String] {
        let word = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        return text.utf8.split { !word.contains($0) }.map { String(decoding: $0, as: UTF8.self) }.filter {
            let parts = $0.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 3 && $0.hasPrefix("eyJ") && parts.allSatisfy { !$0.isEmpty }
        }
    }
}
