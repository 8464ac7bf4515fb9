import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization
import Testing

/// The TOTP step against a scripted Portal whose refusals take every shape the contract allows: PortalSwift's
/// `PortalRequests` reads a 401 as unauthorized whatever its body, and its `verifyTotp` says a wrong code does not
/// spend the userJwt, so any 401 keeps the code step; a 429 ends the sign-in as rate limited; a userJwt past its
/// `exp` ends it without spending a code. Each scripted answer is first held to the contract's `refusals`.
@Suite(.serialized) struct PortalCodeRefusalTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController
    init() { controller = .recording(presenter, persist: stored.persist) }

    /// A userJwt as Portal would sign it, with the `exp` a test chooses (the key is nobody's: the client reads the
    /// claims unverified, as PortalSwift's UserJwt does).
    static func userJwt(expiresIn seconds: Int) throws -> String {
        let claims: JSONValue = .object([
            "endUserId": .string("3f7c1e2a-0b4d-4e8f-9a6b-2c5d7e8f9a0b"),
            "exp": .number(Date().timeIntervalSince1970.rounded() + Double(seconds)),
        ])
        let payload = try JSONEncoder().encode(claims)
        return try JWS.sign(payload: Array(payload), key: try JWK.generateES256(keyID: "portal"), algorithm: "ES256")
    }

    /// A scripted Portal: methods, URLs and a grant that needs a TOTP code; `/totps/validations` answers
    /// `refusals` in turn, then a session.
    final class ScriptedPortal: Sendable {
        let proxy: TurnkeyTestProxy
        let transport: RecordingTransport

        init(userJwt: String, refusals: [HTTPResponse]) throws {
            let transport = RecordingTransport()
            transport.contracts = [.portal]
            transport.checksAnswers = false
            self.transport = transport
            let grant = #"{"data":{"endUserId":"3f7c1e2a-0b4d-4e8f-9a6b-2c5d7e8f9a0b","userJwt":"\#(userJwt)"}}"#
            let counter = Mutex(0)
            proxy = try TurnkeyTestProxy { path, _ in
                switch path {
                case let path where path.hasSuffix("/methods"):
                    return TurnkeyTestProxy.json(200, #"{"data":{"allowedAuthMethods":["GOOGLE"]}}"#)
                case let path where path.hasSuffix("/oauth/urls"):
                    return TurnkeyTestProxy.json(200, #"{"data":{"google":"https://accounts.example/o"}}"#)
                case let path where path.hasSuffix("/oauth/tokens"):
                    return TurnkeyTestProxy.json(200, grant)
                default:
                    let turn = counter.withLock { count in
                        defer { count += 1 }
                        return count
                    }
                    return turn < refusals.count
                        ? refusals[turn] : TurnkeyTestProxy.json(200, #"{"data":{"clientSessionToken":"cst-1"}}"#)
                }
            }
        }

        func backend() -> PortalSignIn {
            PortalSignIn(
                request: SignInRequest(provider: .google, backendName: "portal"),
                client: PortalClient(baseURL: proxy.baseURL, environmentID: "env", transport: transport),
                redirectURL: "authdeck://callback")
        }
    }

    /// Starts a sign-in at `portal` and delivers its redirect: the attempt then waits for a TOTP code.
    func reachTheCodeStep(_ portal: ScriptedPortal) throws {
        controller.start(portal.backend(), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        #expect(controller.paste("authdeck://callback?token=one-time&login_type=GOOGLE") == .accepted)
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
    }

    /// What the contract says of each scripted refusal, as `/totps/validations` would send it.
    static func contractProblems(_ answer: HTTPResponse) -> [String] {
        let request = OutgoingRequest.json(
            "http://127.0.0.1:1/api/v3/auth/totps/validations", Array(#"{"code":"123456"}"#.utf8),
            headers: [("x-portal-auth-environment-id", "env"), ("Authorization", "Bearer jwt")])
        let response = IncomingResponse(status: answer.status, headers: [:], body: answer.body, duration: 0)
        return WireContract.portal.check(response: response, to: request)
    }

    static let unauthorizedBodies: [HTTPResponse] = [
        HTTPResponse(status: 401),
        HTTPResponse(status: 401, headers: [("Content-Type", "text/plain")], body: Array("Unauthorized".utf8)),
        .html(401, "<html><body>401 Authorization Required</body></html>"),
        TurnkeyTestProxy.json(401, #"{"message":"Unauthorized","statusCode":401}"#),
    ]

    @Test func everyWrongCode401KeepsTheCodeStepWhateverItsBody() throws {
        for answer in Self.unauthorizedBodies { #expect(Self.contractProblems(answer).isEmpty) }
        let portal = try ScriptedPortal(userJwt: try Self.userJwt(expiresIn: 600), refusals: Self.unauthorizedBodies)
        try reachTheCodeStep(portal)
        for (index, _) in Self.unauthorizedBodies.enumerated() {
            controller.enterCode("000000")
            #expect(presenter.wait { presenter.notices.filter { $0 == .invalidCode }.count == index + 1 }, "\(index)")
            #expect(
                presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        }
        #expect(stored.count == 0)
        // The userJwt was not spent: the next code, with the same bearer, signs in.
        controller.enterCode("123456")
        #expect(presenter.wait { controller.state.confirming != nil })
        controller.answerIdentity(keep: true)
        guard case .success? = presenter.waitForEnd() else {
            Issue.record("no session after the right code")
            return
        }
        #expect(stored.sessions.first?.secrets.sessionJwt == "cst-1")
        #expect(portal.transport.count("/totps/validations") == Self.unauthorizedBodies.count + 1)
        #expect(portal.transport.takeViolations().isEmpty)
    }

    @Test func aRateLimitEndsTheSignIn() throws {
        let limited = HTTPResponse(status: 429, headers: [("Content-Type", "text/plain")], body: Array("slow".utf8))
        #expect(Self.contractProblems(limited).isEmpty)
        let portal = try ScriptedPortal(userJwt: try Self.userJwt(expiresIn: 600), refusals: [limited])
        try reachTheCodeStep(portal)
        controller.enterCode("000000")
        #expect(presenter.waitForEnd() == .failure(.rateLimited))
        #expect(stored.count == 0)
    }

    @Test func anExpiredStepEndsTheSignInWithoutSpendingTheCode() throws {
        let portal = try ScriptedPortal(userJwt: try Self.userJwt(expiresIn: -5), refusals: [])
        try reachTheCodeStep(portal)
        controller.enterCode("123456")
        guard case .failure(let error)? = presenter.waitForEnd() else {
            Issue.record("the sign-in did not end")
            return
        }
        #expect(error.message.contains("expired"))
        #expect(error.message.contains("sign in again"))
        #expect(portal.transport.count("/totps/validations") == 0)
        #expect(stored.count == 0)
    }

    @Test func aRefusalTheSDKDoesNotParseKeepsItsStatusAndText() throws {
        let portal = try ScriptedPortal(
            userJwt: try Self.userJwt(expiresIn: 600),
            refusals: [.html(502, "<html>Bad gateway</html>")])
        try reachTheCodeStep(portal)
        controller.enterCode("000000")
        guard case .failure(.network(let message))? = presenter.waitForEnd() else {
            Issue.record("a 502 is not a network failure")
            return
        }
        #expect(message.contains("HTTP 502") && message.contains("HTML"))
    }

    /// Outside the code step too: a 401 is unauthorized whatever its body, a 400 from oauth/urls is read for the
    /// `{"error"}` the SDK parses there (its account-abstraction refusal), any other 400 keeps its text unparsed.
    @Test func refusalsOutsideTheCodeStepAreReadByStatus() throws {
        let answers = [
            HTTPResponse(status: 401, headers: [("Content-Type", "text/plain")], body: Array("Unauthorized".utf8)),
            TurnkeyTestProxy.json(400, #"{"error":"this custodian has no account abstraction"}"#),
            HTTPResponse(status: 400, headers: [("Content-Type", "text/plain")], body: Array("Bad Request".utf8)),
        ]
        let turn = Mutex(0)
        let proxy = try TurnkeyTestProxy { _, _ in
            answers[
                turn.withLock { count in
                    defer { count += 1 }
                    return count
                }]
        }
        let client = PortalClient(baseURL: proxy.baseURL, environmentID: "env", transport: CurlTransport(timeout: 3))
        #expect(throws: SignInError.unauthorized) { _ = try client.methods() }
        #expect(
            throws: SignInError.authenticationFailed(
                providerError: "account abstraction is not available for this auth environment: "
                    + "this custodian has no account abstraction")
        ) { _ = try client.oauthURLs(redirectURL: "authdeck://callback") }
        #expect(
            throws: SignInError.authenticationFailed(
                providerError: "Portal refused oauth/tokens (HTTP 400): Bad Request")
        ) { _ = try client.exchange(token: "t") }
    }
}
