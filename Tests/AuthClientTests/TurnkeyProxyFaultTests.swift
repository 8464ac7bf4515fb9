import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Testing

/// A tiny auth proxy on 127.0.0.1 that answers whatever a test scripts, for the faults the sandbox is too
/// well-behaved to show: 5xx, HTML, empty bodies, a session bound to another key.
final class TurnkeyTestProxy: @unchecked Sendable {
    typealias Script = @Sendable (_ path: String, _ body: JSONValue) -> HTTPResponse

    private var server: HTTPServer!
    private let lock = NSLock()
    private var seen: [String] = []
    /// What the client sends is held to the contract even here; the scripted answers are faults on purpose.
    let requests: RecordingTransport = {
        let transport = RecordingTransport()
        transport.contracts = [.turnkey(totpExtension: true)]
        transport.checksAnswers = false
        return transport
    }()

    init(_ script: @escaping Script) throws {
        server = try HTTPServer { [unowned self] request in
            self.lock.withLock { self.seen.append(request.path) }
            return script(request.path, (try? JSONValue.parse(request.body)) ?? .null)
        }
    }

    deinit {
        server.stop()
        for problem in requests.takeViolations() { Issue.record(Comment(rawValue: problem)) }
    }

    var baseURL: String { server.baseURL }
    var paths: [String] { lock.withLock { seen } }

    func stop() { server.stop() }

    func backend(_ provider: Provider, contact: Contact? = nil, transport: HTTPTransport? = nil) -> TurnkeySignIn {
        TurnkeySignIn(
            request: SignInRequest(provider: provider, backendName: "turnkey", contact: contact),
            client: TurnkeyProxyClient(baseURL: baseURL, configID: "test", transport: transport ?? requests))
    }

    static func json(_ status: Int, _ text: String) -> HTTPResponse {
        .json(status, Array(text.utf8))
    }

    static let walletKit = json(200, #"{"enabledProviders":["email","sms"],"otpLength":6,"otpAlphanumeric":false}"#)

    /// A session JWT the way a proxy would sign it, with the claims a test chooses.
    static func sessionJWT(publicKey: String, expiresIn: Int = 900) -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims: JSONValue = .object([
            "public_key": .string(publicKey), "user_id": .string("user-1"), "organization_id": .string("org-1"),
            "session_type": .string("SESSION_TYPE_READ_WRITE"), "exp": .number(Double(now + expiresIn)),
        ])
        let key = try? JWK.generateES256(keyID: "proxy")
        guard let key, let payload = try? JSONEncoder().encode(claims),
            let jwt = try? JWS.sign(payload: Array(payload), key: key, algorithm: "ES256")
        else { return "" }
        return jwt
    }
}

@Suite struct TurnkeyProxyFaultTests {
    /// Runs wallet_kit_config against a proxy that answers it with `response`.
    func configError(_ response: HTTPResponse) throws -> SignInError? {
        let proxy = try TurnkeyTestProxy { _, _ in response }
        do {
            _ = try proxy.backend("email", contact: .email("ada@example.com")).method(loopbackRedirectURI: nil)
            return nil
        } catch {
            return error
        }
    }

    @Test func aServerErrorIsANetworkErrorWithTheProxysMessage() throws {
        let error = try configError(TurnkeyTestProxy.json(500, #"{"code":13,"message":"database unavailable"}"#))
        guard case .network(let message)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(message.contains("HTTP 500"))
        #expect(message.contains("database unavailable"))
        #expect(message.contains("wallet_kit_config"))
    }

    @Test func anHTMLAnswerSaysItIsHTML() throws {
        let error = try configError(.html(502, "<!DOCTYPE html><html><body>Bad gateway</body></html>"))
        guard case .network(let message)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(message.contains("HTTP 502"))
        #expect(message.contains("HTML"))
        // A 200 that is not JSON is no success either.
        let ok = try configError(.html(200, "<html>maintenance</html>"))
        guard case .network(let text)? = ok else {
            Issue.record("got \(String(describing: ok))")
            return
        }
        #expect(text.contains("not JSON"))
    }

    @Test func anEmptyErrorBodySaysSo() throws {
        let error = try configError(HTTPResponse(status: 503))
        guard case .network(let message)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(message.contains("HTTP 503"))
        #expect(message.contains("empty"))
    }

    @Test func aProxyThatDoesNotAnswerIsANetworkError() throws {
        let proxy = try TurnkeyTestProxy { _, _ in TurnkeyTestProxy.walletKit }
        proxy.stop()
        let backend = proxy.backend("email", contact: .email("ada@example.com"))
        #expect {
            _ = try backend.method(loopbackRedirectURI: nil)
        } throws: { error in
            if case .network = error as? SignInError { return true }
            return false
        }
    }

    @Test func statusCodesMapToTheSignInErrors() throws {
        #expect(
            try configError(TurnkeyTestProxy.json(401, #"{"code":16,"message":"unknown config"}"#))
                == .unauthorized)
        #expect(try configError(TurnkeyTestProxy.json(429, #"{"code":8,"message":"slow down"}"#)) == .rateLimited)
        #expect(
            try configError(TurnkeyTestProxy.json(403, #"{"code":7,"message":"Not for you."}"#))
                == .authenticationFailed(providerError: "Not for you"))
    }

    @Test func aTokenInTheProxysMessageIsNeverShown() throws {
        let jwt = TurnkeyTestProxy.sessionJWT(publicKey: "02" + String(repeating: "ab", count: 32))
        let error = try configError(TurnkeyTestProxy.json(400, "{\"code\":3,\"message\":\"bad token \(jwt)\"}"))
        #expect(error == .authenticationFailed(providerError: "bad token [redacted]"))
        #expect(!(error?.message.contains(jwt) ?? true))
    }

    /// A verificationToken as the SDK decodes it: `id`, `contact`, `verification_type` (unsigned: only read here).
    static let verificationToken =
        "eyJhbGciOiJFUzI1NiJ9."
        + "eyJpZCI6Im90cC0xIiwiY29udGFjdCI6ImFkYUBleGFtcGxlLmNvbSIsInZlcmlmaWNhdGlvbl90eXBlIjoiT1RQX1RZUEVfRU1BSUwifQ"
        + ".c2ln"

    /// A proxy that runs the whole code flow and answers otp_login with `session`.
    func codeFlow(
        session: @escaping @Sendable (_ publicKey: String) -> String,
        verify: HTTPResponse = TurnkeyTestProxy.json(
            200, "{\"verificationToken\":\"\(TurnkeyProxyFaultTests.verificationToken)\"}"),
        login: HTTPResponse? = nil
    ) throws -> (TurnkeyTestProxy, Result<BackendAnswer, SignInError>) {
        let proxy = try TurnkeyTestProxy { path, body in
            switch path {
            case "/v1/wallet_kit_config": return TurnkeyTestProxy.walletKit
            case "/v1/otp_init": return TurnkeyTestProxy.json(200, #"{"otpId":"otp-1"}"#)
            case "/v1/otp_verify": return verify
            case "/v1/account": return TurnkeyTestProxy.json(404, #"{"code":5,"message":"no such account"}"#)
            case "/v1/signup": return TurnkeyTestProxy.json(200, #"{"organizationId":"org-1","userId":"user-1"}"#)
            case "/v1/otp_login":
                if let login { return login }
                let key = body["publicKey"]?.string ?? ""
                return TurnkeyTestProxy.json(200, "{\"session\":\"\(session(key))\"}")
            default: return TurnkeyTestProxy.json(404, #"{"code":5,"message":"no such path"}"#)
            }
        }
        let backend = proxy.backend("email", contact: .email("ada@example.com"))
        let method = try backend.method(loopbackRedirectURI: nil)
        let attempt = try backend.makeAttempt(
            id: AttemptID(1), method: method,
            deadline: Date().addingTimeInterval(60))
        _ = try backend.begin(attempt)
        let result = Result { () throws(SignInError) in
            try backend.verifyCode(attempt, otpID: "otp-1", code: "123456")
        }
        return (proxy, result)
    }

    @Test func anAccountLookupAnswering404SignsUp() throws {
        let (proxy, result) = try codeFlow { TurnkeyTestProxy.sessionJWT(publicKey: $0) }
        guard case .success(.issued(let issued)) = result else {
            Issue.record("got \(result)")
            return
        }
        #expect(issued.kind == .signup)
        #expect(proxy.paths.contains("/v1/signup"))
    }

    @Test func aSessionBoundToAnotherKeyIsRefused() throws {
        let other = try P256PrivateKey().publicKey.compressedHex
        let (_, result) = try codeFlow { _ in TurnkeyTestProxy.sessionJWT(publicKey: other) }
        let reason = "the auth proxy's session is bound to another key"
        let refusal = SignInError.authenticationFailed(providerError: reason)
        #expect(throws: refusal) {
            try result.get()
        }
    }

    @Test func anAlreadyExpiredSessionIsRefused() throws {
        let (_, result) = try codeFlow { TurnkeyTestProxy.sessionJWT(publicKey: $0, expiresIn: -10) }
        guard case .failure(.authenticationFailed(let reason)) = result else {
            Issue.record("got \(result)")
            return
        }
        #expect(reason.contains("expired"))
    }

    @Test func aProxyWithoutTheV2RoutesGetsV1Throughout() throws {
        let (proxy, result) = try codeFlow { TurnkeyTestProxy.sessionJWT(publicKey: $0) }
        guard case .success(.issued) = result else {
            Issue.record("got \(result)")
            return
        }
        // otp_init_v2 answered 404 (this proxy has only the v1 routes), so the attempt spoke v1 from then on.
        #expect(
            proxy.paths == [
                "/v1/wallet_kit_config", "/v1/otp_init_v2", "/v1/otp_init", "/v1/otp_verify", "/v1/account",
                "/v1/signup", "/v1/otp_login",
            ])
    }

    /// tkhq/swift-sdk fails `verifyOtp` with `apiError(statusCode, payload)` for any non-2xx answer, and its code
    /// screen stays ("Invalid code. Please try again."): each refusal the proxy may send, in the contract's
    /// rpcStatus shape, keeps the code step with the proxy's own message.
    @Test func everyRefusalOfATypedCodeKeepsTheCodeStep() throws {
        let contract = WireContract.turnkey()
        let refusals: [(Int, String)] = [
            (401, #"{"code":16,"message":"invalid code","details":[]}"#),
            (400, #"{"code":9,"message":"the code has expired","details":[]}"#),
            (429, #"{"code":8,"message":"too many attempts","details":[]}"#),
            (404, #"{"code":5,"message":"unknown otpId","details":[]}"#),
        ]
        for (status, body) in refusals {
            let parsed = try JSONValue.parse(Array(body.utf8))
            #expect(contract.validate(parsed, contract.errorSchema, at: "\(status)").isEmpty)
            let (_, result) = try codeFlow(session: { _ in "" }, verify: TurnkeyTestProxy.json(status, body))
            let refusal = SignInError.codeRefused(reason: try #require(parsed["message"]?.string))
            #expect(throws: refusal, "HTTP \(status)") { try result.get() }
            #expect(refusal.refusesCode)
        }
        // A gateway's page instead of the proxy's answer is still the SDK's apiError: the step stays too.
        let (_, page) = try codeFlow(
            session: { _ in "" },
            verify: .init(status: 502, headers: [("Content-Type", "text/html")], body: Array("<html>".utf8)))
        #expect(throws: SignInError.codeRefused(reason: "the auth proxy answered HTTP 502 with an HTML page, not JSON"))
        {
            try page.get()
        }
    }

    @Test func aForgedTokenIsUnauthorized() throws {
        let (_, forged) = try codeFlow(
            session: { _ in "" },
            login: TurnkeyTestProxy.json(401, #"{"code":16,"message":"forged"}"#))
        #expect(throws: SignInError.unauthorized) { try forged.get() }
    }
}
