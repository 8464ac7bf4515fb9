import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP

/// A small OpenID Connect provider on a real 127.0.0.1 listener, for the faults the sandbox is too well-behaved
/// to show: a token endpoint that fails, answers HTML or hangs, and ID tokens that are wrong in one way each.
final class TestProvider: @unchecked Sendable {
    enum TokenMode: Sendable { case ok, serverError, html, hang }
    enum IDTokenFlaw: Sendable {
        case none, badSignature, wrongIssuer, wrongAudience, expired, wrongNonce, unknownKey
        /// `nbf` two minutes ahead (past the 60 s skew), or 30 s ahead (within it).
        case notYetValid, notBeforeWithinSkew
        /// `email_verified: false`: the provider did not check the address.
        case unverifiedEmail
    }

    let key: JWK
    let otherKey: JWK
    private let lock = NSLock()
    private var _tokenMode = TokenMode.ok
    private var _flaw = IDTokenFlaw.none
    private var _userinfoSubject: String?
    private var codes: [String: (nonce: String?, verifier: String?)] = [:]
    private(set) var tokenRequests = 0
    private var server: HTTPServer!
    static let clientID = "test-client"

    init() throws {
        key = try JWK.generateES256(keyID: "k1")
        otherKey = try JWK.generateES256(keyID: "k2")
        server = try HTTPServer { [unowned self] request in self.handle(request) }
    }

    deinit { server.stop() }

    var issuer: String { server.baseURL }
    var tokenMode: TokenMode {
        get { lock.withLock { _tokenMode } }
        set { lock.withLock { _tokenMode = newValue } }
    }
    var flaw: IDTokenFlaw {
        get { lock.withLock { _flaw } }
        set { lock.withLock { _flaw = newValue } }
    }
    /// When set, /userinfo answers this `sub` with a name the ID token lacks; unset, /userinfo is 404.
    var userinfoSubject: String? {
        get { lock.withLock { _userinfoSubject } }
        set { lock.withLock { _userinfoSubject = newValue } }
    }

    /// Registers a code the "browser" will bring back, as the authorize step would.
    func issueCode(nonce: String?, challenge: String) -> String {
        let code = "code-\(UUID().uuidString)"
        lock.withLock { codes[code] = (nonce, challenge) }
        return code
    }

    var endpoints: ProviderEndpoints {
        ProviderEndpoints(
            issuer: issuer, authorization: issuer + "/authorize", token: issuer + "/token",
            jwks: issuer + "/jwks", userinfo: issuer + "/userinfo")
    }

    /// A direct sign-in with this provider: the `oidc` preset (an ID token expected) asking for `scopes`, the test
    /// client authenticating as `authentication`, over `transport`.
    func directSignIn(
        scopes: [String] = ["openid"], authentication: ClientAuthentication = .none,
        transport: HTTPTransport = CurlTransport(timeout: 5)
    ) -> DirectSignIn {
        let preset = ProviderPreset(name: "oidc", kind: .oidc, scopes: scopes, idToken: true)
        let resolved = ResolvedProvider(
            preset: preset, clientID: Self.clientID, authentication: authentication, scopes: scopes,
            endpoints: endpoints)
        return DirectSignIn(
            provider: resolved, request: SignInRequest(provider: "oidc", backendName: "direct"),
            transport: transport, metadata: ProviderMetadataCache(transport: transport, folder: nil))
    }

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/.well-known/openid-configuration":
            let document = """
                {"issuer":"\(issuer)","authorization_endpoint":"\(issuer)/authorize","token_endpoint":"\(issuer)/token",\
                "jwks_uri":"\(issuer)/jwks"}
                """
            return .json(200, Array(document.utf8))
        case "/jwks":
            let keys = (try? key.publicJSON()) ?? "{}"
            return .json(200, Array("{\"keys\":[\(keys)]}".utf8))
        case "/token":
            return token(request)
        case "/userinfo":
            guard let subject = userinfoSubject else { return .text(404, "not found") }
            return .json(200, Array(#"{"sub":"\#(subject)","name":"Ada Lovelace"}"#.utf8))
        default:
            return .text(404, "not found")
        }
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock { tokenRequests += 1 }
        switch tokenMode {
        case .ok: break
        case .serverError: return .text(500, "internal error")
        case .html: return .html(200, "<html><body>Maintenance</body></html>")
        case .hang:
            Thread.sleep(forTimeInterval: 3)
            return .text(504, "late")
        }
        let form = FormEncoding.decode(Substring(String(decoding: request.body, as: UTF8.self))) ?? []
        let fields = Dictionary(form, uniquingKeysWith: { _, last in last })
        guard let code = fields["code"], let entry = lock.withLock({ codes.removeValue(forKey: code) }) else {
            return .json(400, Array(#"{"error":"invalid_grant","error_description":"unknown or used code"}"#.utf8))
        }
        guard let verifier = fields["code_verifier"],
            Base64URL.encode(SHA256.hash(Array(verifier.utf8))) == entry.verifier
        else {
            return .json(400, Array(#"{"error":"invalid_grant","error_description":"PKCE verification failed"}"#.utf8))
        }
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string("user-42"), "aud": .string(Self.clientID),
            "email": .string("ada@example.com"), "iat": .number(Double(now)), "exp": .number(Double(now + 600)),
        ]
        if let nonce = entry.nonce { claims["nonce"] = .string(nonce) }
        var signingKey = key
        switch flaw {
        case .none, .badSignature: break
        case .wrongIssuer: claims["iss"] = .string("https://evil.example")
        case .wrongAudience: claims["aud"] = .string("someone-else")
        case .expired:
            claims["exp"] = .number(Double(now - 3600))
            claims["iat"] = .number(Double(now - 7200))
        case .wrongNonce: claims["nonce"] = .string("not-the-nonce")
        case .unknownKey: signingKey = otherKey
        case .notYetValid: claims["nbf"] = .number(Double(now + 120))
        case .notBeforeWithinSkew: claims["nbf"] = .number(Double(now + 30))
        case .unverifiedEmail: claims["email_verified"] = .bool(false)
        }
        var idToken =
            (try? JWS.sign(
                payload: Array(JSONEncoder().encode(JSONValue.object(claims))), key: signingKey,
                algorithm: "ES256")) ?? ""
        if flaw == .badSignature {
            // Change one character well inside the signature (the last one may carry only padding bits).
            var characters = Array(idToken)
            let index = characters.count - 10
            characters[index] = characters[index] == "A" ? "B" : "A"
            idToken = String(characters)
        }
        let body = """
            {"access_token":"at-\(UUID().uuidString)","token_type":"Bearer","expires_in":3600,\
            "refresh_token":"rt-\(UUID().uuidString)","id_token":"\(idToken)"}
            """
        return .json(200, Array(body.utf8))
    }
}

/// Records what the controller shows, and lets a test wait for the end.
final class RecordingPresenter: @unchecked Sendable {
    private let lock = NSLock()
    private let ended = DispatchSemaphore(value: 0)
    private let began = DispatchSemaphore(value: 0)
    private(set) var prompts: [AttemptPrompt] = []
    private(set) var notices: [SignInError] = []
    private(set) var verdicts: [(String, CallbackVerdict)] = []
    private(set) var results: [Result<SignInOutcome, SignInError>] = []
    private(set) var attempt: Attempt?
    private(set) var receivers: [String] = []
    /// Every report, in the order the controller made them.
    private(set) var reports: [SignInProgress] = []

    /// The controller's `report` callback.
    func report(_ progress: SignInProgress) {
        lock.withLock { reports.append(progress) }
        switch progress {
        case .began(let attempt, let prompt, let receivers): attemptBegan(attempt, prompt: prompt, receivers: receivers)
        case .notice(let error): lock.withLock { notices.append(error) }
        case .callbackArrived(let source, let refusal):
            lock.withLock { verdicts.append((source, refusal.map { .refused($0) } ?? .accepted)) }
        case .finished(let result): finished(result)
        case .stateChanged, .replayed, .redirectUnreachable, .note: break
        }
    }

    private func attemptBegan(_ attempt: Attempt, prompt: AttemptPrompt, receivers: [String]) {
        lock.withLock {
            self.attempt = attempt
            self.receivers = receivers
            prompts.append(prompt)
        }
        began.signal()
    }
    private func finished(_ result: Result<SignInOutcome, SignInError>) {
        lock.withLock { results.append(result) }
        ended.signal()
    }

    func waitForBegin() -> Attempt? {
        _ = began.wait(timeout: .now() + 10)
        return lock.withLock { attempt }
    }

    func waitForEnd(timeout: Double = 15) -> Result<SignInOutcome, SignInError>? {
        _ = ended.wait(timeout: .now() + timeout)
        return lock.withLock { results.last }
    }
}

/// An in-memory record of what the controller asked to persist; the real store has its own tests and the
/// command-line tests use it end to end.
final class PersistedSessions: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var sessions: [Session] = []
    var failNext = false

    var persist: SignInController.Persist {
        { session throws(SignInError) in
            self.lock.lock()
            defer { self.lock.unlock() }
            if self.failNext {
                self.failNext = false
                throw .sessionStorageFailure(message: "disk full")
            }
            self.sessions.append(session)
            return session.record
        }
    }

    var count: Int { lock.withLock { sessions.count } }
}

extension SignInController {
    /// A controller as the flow tests drive it: it reports to `presenter` and stores through `persist`, with the
    /// default receivers and no browser.
    static func recording(
        _ presenter: RecordingPresenter, persist: @escaping SignInController.Persist
    ) -> SignInController {
        SignInController(report: presenter.report, persist: persist, receivers: ReceiverOptions(), browser: nil)
    }
}
