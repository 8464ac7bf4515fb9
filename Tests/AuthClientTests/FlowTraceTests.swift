import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

/// The trace of a whole flow names every step and holds none of the secrets the flow handled.
@Suite struct FlowTraceTests {
    @Test func fullFlowIsTracedAndRedacted() throws {
        let provider = try TestProvider()
        let trace = FlowTrace()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let transport = TracingTransport(CurlTransport(timeout: 5), trace: trace)
        let backend = provider.directSignIn(authentication: .secret("client-secret-value-123"), transport: transport)
        let controller = SignInController(
            report: presenter.report, persist: stored.persist, receivers: ReceiverOptions(),
            browser: nil, trace: trace)
        controller.start(backend, timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        let code = provider.issueCode(nonce: attempt.nonce, challenge: PKCE.challenge(for: attempt.codeVerifier))
        guard case .browser(let redirect) = attempt.method else {
            Issue.record("not a browser attempt")
            return
        }
        #expect(controller.paste("\(redirect)?code=\(code)&state=wrong-state") != .accepted)
        #expect(controller.paste("\(redirect)?code=\(code)&state=\(attempt.state)") == .accepted)
        guard case .success? = presenter.waitForEnd() else {
            Issue.record("the flow failed")
            return
        }
        _ = controller.sync { 0 }
        Thread.sleep(forTimeInterval: 0.1)

        let kinds = Set(trace.steps.map(\.kind))
        for kind: TraceStep.Kind in [.authorize, .receiver, .request, .response, .idToken, .transition, .result] {
            #expect(kinds.contains(kind), "no \(kind.rawValue) step")
        }
        #expect(trace.steps.contains { $0.kind == .receiver && $0.summary.contains("refused") })
        let idToken = try #require(stored.sessions.first?.secrets.idToken)
        let claims = trace.steps.first { $0.kind == .idToken }?.details["claims"]
        #expect(claims?["sub"]?.string == "user-42")

        let text = trace.jsonLines()
        let session = try #require(stored.sessions.first)
        let secrets = [
            code, attempt.codeVerifier, attempt.state, try #require(attempt.nonce),
            try #require(session.secrets.accessToken), try #require(session.secrets.refreshToken), idToken,
            String(idToken.split(separator: ".")[2]), "client-secret-value-123",
        ]
        for secret in secrets {
            #expect(!text.contains(secret), "the trace holds a secret of \(secret.count) characters")
        }
        // Every line is one JSON object.
        for line in text.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any])
        }
    }

    @Test func redactionIsByField() {
        let pairs = FlowTrace.redactedPairs([
            ("code", "abc"), ("grant_type", "authorization_code"), ("state", "123456789"),
        ])
        #expect(pairs["code"]?.string == "[redacted 3 chars]")
        #expect(pairs["grant_type"]?.string == "authorization_code")
        #expect(pairs["state"]?.string == "1234…")
        let json = FlowTrace.redactedJSON(
            .object(["data": .object(["userJwt": .string("u.v.w"), "endUserId": .string("e1")])]))
        #expect(json["data"]?["userJwt"]?.string == "[redacted 5 chars]")
        #expect(json["data"]?["endUserId"]?.string == "e1")
        let proxy = FlowTrace.redactedJSON(
            .object([
                "clientSignature": .object(["message": .string("{\"login\":{\"verificationToken\":\"v.t.x\"}}")]),
                "totpRequired": .object(["totpLink": .string("otpauth://totp/a?secret=JBSWY3DPEHPK3PXP")]),
            ]))
        let text = String(decoding: try! JSONEncoder().encode(proxy), as: UTF8.self)
        #expect(!text.contains("v.t.x"))
        #expect(!text.contains("JBSWY3DPEHPK3PXP"))
    }

    /// An RP-Initiated Logout address carries the ID token as `id_token_hint`: a trace of it keeps the other
    /// parameters and not the token.
    @Test func anEndSessionAddressLosesItsIDTokenHint() {
        let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl"
        let (base, parameters) = FlowTrace.redactedURL(
            "https://id.example/logout?id_token_hint=\(token)&client_id=c&state=abcdefgh")
        #expect(base == "https://id.example/logout")
        #expect(parameters["id_token_hint"]?.string == "[redacted \(token.count) chars]")
        #expect(parameters["client_id"]?.string == "c")
        let snippet = FlowTrace.redactedSnippet(Array("id_token_hint=\(token)".utf8))
        #expect(!snippet.contains(token))
    }
}
