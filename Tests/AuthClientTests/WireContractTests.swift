import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Testing

/// The contracts keep both sides honest: the checker refuses drift (even drift the sandbox tolerates), the sandbox
/// refuses every request the contract's required members and enums rule out with the real error shape, and the
/// wire details hold end to end.
@Suite(.serialized) struct WireContractTests {
    let presenter = RecordingPresenter()
    let stored = PersistedSessions()
    let controller: SignInController
    init() { controller = .recording(presenter, persist: stored.persist) }

    static let proxyHeaders = [("X-Auth-Proxy-Config-ID", "sandbox-config")]

    func proxyRequest(_ sandbox: TurnkeySandbox, _ route: String, _ body: JSONValue) throws -> OutgoingRequest {
        let text = try JSONEncoder().encode(body)
        return .json(sandbox.base + "/turnkey/v1/" + route, Array(text), headers: Self.proxyHeaders)
    }

    // MARK: - The checker

    @Test func theCheckerRefusesDriftTheSandboxWouldTolerate() throws {
        let sandbox = try TurnkeySandbox()
        let transport = RecordingTransport()
        transport.contracts = sandbox.contracts
        // An extra member: the proxy (and so the sandbox) ignores it, the contract does not have it.
        let extra = try proxyRequest(
            sandbox, "otp_init",
            .object([
                "contact": .string("ada@example.com"), "otpType": .string("OTP_TYPE_EMAIL"), "locale": .string("en"),
            ]))
        #expect(try transport.send(extra).status == 200)
        let problems = transport.takeViolations()
        #expect(problems.count == 1)
        #expect(problems.first?.contains("member locale is not in the contract") == true)

        // What authdeck used to send: the sandbox refuses it now, and the checker names why on its own.
        let old = try proxyRequest(
            sandbox, "oauth2_authenticate",
            .object([
                "provider": .string("x"), "authCode": .string("c"), "redirectUri": .string("http://127.0.0.1:1/cb"),
                "codeVerifier": .string("v"), "clientId": .string("id"), "nonce": .string("n"),
            ]))
        #expect(try transport.send(old).status == 400)
        #expect(transport.takeViolations().contains { $0.contains("provider: x is not one of the contract's values") })
        let signup = try proxyRequest(sandbox, "signup", .object(["userEmail": .string("cleo@example.com")]))
        _ = try transport.send(signup)
        let missing = transport.takeViolations()
        for member in ["apiKeys", "authenticators", "oauthProviders"] {
            #expect(missing.contains { $0.contains("missing required member \(member)") }, "\(member)")
        }
    }

    @Test func theContractsMarkersAreKnownAndEachAdditionSaysWhy() {
        // The files load (an unknown x- keyword would stop them), and each x-added carries its reason.
        #expect(WireContract.unknownKeyword(in: .object(["x-addded": .string("typo")]), at: "c") != nil)
        #expect(WireContract.unknownKeyword(in: .object(["x-added": .string("")]), at: "c") != nil)
        #expect(
            WireContract.unknownKeyword(in: .object(["properties": .object(["x-name": .object([:])])]), at: "c") == nil)
        let contract = WireContract.turnkey()
        // The v2 routes tkhq/sdk's swagger adds are there, next to the v1 routes the proxy still answers.
        for route in ["otp_init", "otp_verify", "otp_login", "signup"] {
            #expect(contract.routes["/v1/\(route)"] != nil && contract.routes["/v1/\(route)_v2"] != nil, "\(route)")
        }
        #expect(contract.routes["/v1/wallet_kit_client_params"] != nil)
        // What the swagger leaves free and the file narrows is marked: otpType's enum.
        let otpType = contract.resolved(.object(["$ref": .string("v1InitOtpV2Request")]))["properties"]?["otpType"]
        #expect(otpType?["x-added"]?.string?.isEmpty == false)
    }

    @Test func theCheckerReadsNestedJSONAndJWTs() {
        let contract = WireContract.turnkey()
        // A client signature whose message is the invented login message, not a v1TokenUsage.
        let signature: JSONValue = .object([
            "publicKey": .string("02"), "scheme": .string("CLIENT_SIGNATURE_SCHEME_API_P256"),
            "signature": .string("00"), "message": .string(#"{"login":{"publicKey":"02","verificationToken":"t"}}"#),
        ])
        let problems = contract.validate(signature, .object(["$ref": .string("v1ClientSignature")]), at: "sig")
        #expect(problems.contains("sig.message<json>: missing required member tokenId"))
        #expect(problems.contains("sig.message<json>.login: member verificationToken is not in the contract"))
        let answer: JSONValue = .object([
            "sessionExpirationSeconds": .number(900), "enabledProviders": .array([]),
            "organizationId": .string("o"),
        ])
        let config = contract.validate(answer, .object(["$ref": .string("v1GetWalletKitConfigResponse")]), at: "c")
        #expect(config == ["c.sessionExpirationSeconds: expected a string"])
    }

    // MARK: - The sandbox refuses what the contract rules out

    /// A value of `schema`'s type with every member it can have (so nested required members are tested too).
    static func sample(_ contract: WireContract, _ schema: JSONValue) -> JSONValue {
        let resolved = contract.resolved(schema)
        switch resolved["type"]?.string {
        case "object"?:
            var object: [String: JSONValue] = [:]
            if case .object(let properties)? = resolved["properties"] {
                // Required members, and optional objects too, so their own required members get tested.
                for (name, member) in properties
                where resolved["required"]?.arrayContains(name) == true
                    || contract.resolved(member)["type"]?.string == "object"
                {
                    object[name] = sample(contract, member)
                }
            }
            return .object(object)
        case "array"?: return .array([])
        case "boolean"?: return .bool(false)
        case "integer"?: return .number(1)
        case "string"?:
            if case .array(let values)? = resolved["enum"], let first = values.first { return first }
            return .string(resolved["format"]?.string == "int64" ? "1" : "x")
        default: return .null
        }
    }

    /// Paths (member names from the top) of every required member, nested ones included.
    static func requiredPaths(
        _ contract: WireContract, _ value: JSONValue, _ schema: JSONValue,
        prefix: [String] = []
    ) -> [[String]] {
        let resolved = contract.resolved(schema)
        guard case .object(let members) = value, case .object(let properties)? = resolved["properties"] else {
            return []
        }
        var paths: [[String]] = []
        for (name, member) in members.sorted(by: { $0.key < $1.key }) {
            if resolved["required"]?.arrayContains(name) == true { paths.append(prefix + [name]) }
            if let memberSchema = properties[name] {
                paths += requiredPaths(contract, member, memberSchema, prefix: prefix + [name])
            }
        }
        return paths
    }

    @Test func theSandboxRefusesEveryRequestMissingARequiredMember() throws {
        let sandbox = try TurnkeySandbox()
        let contract = WireContract.turnkey()
        let transport = CurlTransport(timeout: 3)
        var checked = 0
        for (route, spec) in contract.routes.sorted(by: { $0.key < $1.key }) {
            guard let schema = spec["request"] else { continue }
            let complete = Self.sample(contract, schema)
            for path in Self.requiredPaths(contract, complete, schema) {
                let body = complete.removing(path)
                let name = String(route.dropFirst("/v1/".count))
                let answer = try transport.send(try proxyRequest(sandbox, name, body))
                #expect(answer.status == 400, "\(route) without \(path)")
                let error = try JSONValue.parse(answer.body)
                #expect(error["code"]?.integer == 3, "\(route) without \(path)")
                // Refused for that member, not for some later reason.
                #expect(error["message"]?.string?.contains(path.last ?? "-") == true, "\(route) without \(path)")
                #expect(contract.validate(error, .object(["$ref": .string("rpcStatus")]), at: route).isEmpty)
                checked += 1
            }
        }
        // signup's three arrays, the clientSignature's four members, oauth2_authenticate's five, and the rest.
        #expect(checked >= 20)
    }

    @Test func theSandboxRefusesAValueOutsideAnEnum() throws {
        let sandbox = try TurnkeySandbox()
        let contract = WireContract.turnkey()
        let transport = CurlTransport(timeout: 3)
        for (route, member) in [
            ("oauth2_authenticate", ["provider"]), ("otp_init", ["otpType"]),
            ("otp_login", ["clientSignature", "scheme"]),
        ] {
            guard let schema = contract.routes["/v1/" + route]?["request"] else {
                Issue.record(Comment(rawValue: route))
                continue
            }
            let body = Self.sample(contract, schema).setting(member, .string("NOT_IN_THE_CONTRACT"))
            let answer = try transport.send(try proxyRequest(sandbox, route, body))
            #expect(answer.status == 400, "\(route)")
            #expect(try JSONValue.parse(answer.body)["code"]?.integer == 3, "\(route)")
        }
    }

    /// Portal's refusals are read by status, as PortalSwift's PortalRequests reads them: the sandbox's 401s and
    /// other refusals pass with any body, a 400 from oauth/urls must carry the `{"error"}` the SDK parses there.
    @Test func portalRefusalsAreReadByStatus() throws {
        let sandbox = try TurnkeySandbox()
        let contract = WireContract.portal
        let transport = CurlTransport(timeout: 3)
        let headers = [("x-portal-auth-environment-id", "sandbox-environment")]
        let base = sandbox.base + "/portal/api/v3/auth"
        let requests: [(OutgoingRequest, Int)] = [
            (.json(base + "/oauth/tokens", Array("{}".utf8), headers: headers), 400),
            (OutgoingRequest(url: base + "/oauth/urls", headers: headers), 400),
            (
                OutgoingRequest(
                    url: base + "/oauth/urls?redirectUrl=http%3A%2F%2F127.0.0.1%3A1%2Fcb", headers: headers), 401
            ),
            (.json(base + "/totps/validations", Array("{\"code\":\"123456\"}".utf8), headers: headers), 401),
            (OutgoingRequest(url: base + "/methods", headers: [("x-portal-auth-environment-id", "other")]), 401),
        ]
        for (request, status) in requests {
            let answer = try transport.send(request)
            #expect(answer.status == status, "\(request.url)")
            #expect(contract.check(response: answer, to: request).isEmpty, "\(request.url)")
        }
        // What the checker holds a refusal to: nothing of a 401's body, the parsed shape of a 400 from oauth/urls.
        let urls = OutgoingRequest(url: base + "/oauth/urls?redirectUrl=x", headers: headers)
        func answer(_ status: Int, _ body: String) -> IncomingResponse {
            IncomingResponse(status: status, headers: [:], body: Array(body.utf8), duration: 0)
        }
        #expect(contract.check(response: answer(401, "<html>no</html>"), to: urls).isEmpty)
        #expect(contract.check(response: answer(429, ""), to: urls).isEmpty)
        #expect(contract.check(response: answer(400, #"{"error":"no abstraction"}"#), to: urls).isEmpty)
        #expect(!contract.check(response: answer(400, #"{"error":7}"#), to: urls).isEmpty)
        #expect(!contract.check(response: answer(400, "Bad Request"), to: urls).isEmpty)
        let tokens = OutgoingRequest.json(base + "/oauth/tokens", Array("{}".utf8), headers: headers)
        #expect(contract.check(response: answer(400, "Bad Request"), to: tokens).isEmpty)
    }

    /// The Portal file names the commits it was read from and marks what it adds beyond them, in words the
    /// checker reads; a marker saying anything but `added`, or a keyword it does not know, is refused.
    @Test func thePortalContractIsPinnedAndMarksWhatItAdds() throws {
        let url = WireContract.folder.appendingPathComponent("portal-client-auth.json")
        let document = try JSONValue.parse(Array(try Data(contentsOf: url)))
        guard case .array(let lines)? = document["source"] else {
            Issue.record("no source")
            return
        }
        let source = lines.compactMap(\.string).joined(separator: " ")
        #expect(source.contains("portal-hq/PortalSwift"))
        let pinned = source.split(separator: " ").filter { word in
            word.prefix(40).count == 40 && word.prefix(40).allSatisfy(\.isHexDigit)
        }
        #expect(pinned.count >= 4, "\(source)")
        #expect(WireContract.portal.unreadable().isEmpty, "\(WireContract.portal.unreadable())")
        #expect(document["definitions"]?["UserJwtClaims"]?["properties"]?["exp"]?["x-added"]?.string?.isEmpty == false)
        let drifted = try WireContract.parse(
            #"{"definitions": {"A": {"type": "string", "pattern": "x"}}}"#, routePrefix: "/")
        let problems = drifted.unreadable()
        #expect(problems.count == 1)
        #expect(problems.contains { $0.contains("pattern is not a keyword") })
        // One marker for what a file adds: another spelling stops the file from loading.
        #expect(WireContract.unknownKeyword(in: .object(["x-authdeck": .string("added")]), at: "c") != nil)
    }

    // MARK: - Turnkey wire details

    @Test func theConfiguredClientIDWinsOverTheProxys() throws {
        let sandbox = try TurnkeySandbox()
        func clientID(_ configured: String?) throws -> String? {
            var configuration = sandbox.configuration
            configuration.providers?["google"]?.clientID = configured
            let backend = try sandbox.backend("google", backend: "sandbox-turnkey", configuration: configuration)
            let method = try backend.method(loopbackRedirectURI: "http://127.0.0.1:5999/callback")
            let attempt = try backend.makeAttempt(
                id: AttemptID(1), method: method,
                deadline: Date().addingTimeInterval(60))
            guard case .browser(let url) = try backend.begin(attempt) else { return nil }
            return URLComponents(string: url)?.queryItems?.first { $0.name == "client_id" }?.value
        }
        #expect(try clientID("my-own-client") == "my-own-client")
        // With none configured, wallet_kit_config's oauthClientIds names it (the sandbox's default id).
        #expect(try clientID(nil) == "sandbox-google")
    }

    @Test func theHostedRedirectBringsAnIDTokenBoundToTheSessionKey() throws {
        let sandbox = try TurnkeySandbox()
        var configuration = sandbox.configuration
        configuration.backends?["sandbox-turnkey"]?.oauthFlow = "hosted"
        controller.start(
            try sandbox.backend("google", backend: "sandbox-turnkey", configuration: configuration),
            timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(url.hasPrefix(sandbox.base + "/turnkey/oauth-origin?"))
        #expect(url.contains("nonce=" + (attempt.nonce ?? "-")))
        let final = try sandbox.browse(url)
        #expect(final.hasPrefix("authdeck://callback?id_token="))
        // The hosted page may not hand state back; the id_token's nonce is what binds it to this attempt.
        let withoutState = final.components(separatedBy: "&").filter { !$0.hasPrefix("state=") }
            .joined(separator: "&")
        #expect(controller.paste(withoutState) == .accepted)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        #expect(outcome.record.backend == "sandbox-turnkey")
        let session = try #require(stored.sessions.first)
        #expect(session.secrets.sessionJwt?.isEmpty == false)
        // Once only: a second redirect of the ended attempt starts nothing.
        #expect(controller.paste(withoutState) != .accepted)
    }

    @Test func aTOTPStepIsRefusedUnlessTheBackendTurnsTheExtensionOn() throws {
        let sandbox = try TurnkeySandbox { $0.turnkeyTOTPExtension = true }
        var configuration = sandbox.configuration
        #expect(configuration.backends?["sandbox"]?.totpExtension == true)
        configuration.backends?["sandbox"]?.totpExtension = nil
        controller.start(
            try sandbox.backend(
                "email", backend: "sandbox", contact: .email("dora@example.com"),
                configuration: configuration), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .codeSent(let otpID)? = presenter.prompts.last else {
            Issue.record("no code")
            return
        }
        #expect(
            presenter.wait {
                if case .oneTimeCode(_, _, _?) = controller.state.attempt?.method { true } else { false }
            })
        controller.enterCode(try #require(sandbox.code(otpID: otpID)))
        guard case .failure(let error)? = presenter.waitForEnd() else {
            Issue.record("did not fail")
            return
        }
        #expect(error.message.contains("totpExtension"))
        #expect(stored.count == 0)
        _ = sandbox.contractViolations()  // the extension's answer is off-contract here, as this test intends
    }

    // MARK: - Portal wire details

    @Test func portalKeepsClientIDAndAccountAbstractionAndReadsEndUserIDFromTheUserJwt() throws {
        let sandbox = try TurnkeySandbox()
        controller.start(try sandbox.backend("google", backend: "sandbox-portal"), timeout: 60)
        _ = try #require(presenter.waitForBegin())
        guard case .browser(let url)? = presenter.prompts.last else {
            Issue.record("no browser prompt")
            return
        }
        #expect(!url.contains("state=" + (presenter.attempt?.state ?? "-")))
        #expect(controller.paste(try sandbox.browse(url, user: "dora")) == .accepted)
        #expect(presenter.wait { if case .totpRequired(_, _, .waiting) = controller.state { true } else { false } })
        guard case .totpRequired(_, let challenge, _) = controller.state else {
            Issue.record("no TOTP")
            return
        }
        controller.enterCode(sandbox.totp())
        // Portal's redirect has no state: the session is kept only on the user's word.
        #expect(presenter.wait { controller.state.confirming != nil })
        controller.answerIdentity(keep: true)
        guard case .success(let outcome)? = presenter.waitForEnd() else {
            Issue.record("no session")
            return
        }
        // totps/validations names no end user: the subject is the userJwt's endUserId claim.
        let claims = try JSONValue.parse(try JWS.decodeUnverified(challenge.userJwt).payload)
        #expect(outcome.record.subject == claims["endUserId"]?.string)
        let session = try #require(stored.sessions.first)
        #expect(
            session.secrets.portalClient
                == PortalClientInfo(
                    clientID: "sandbox-portal-client",
                    isAccountAbstracted: false))
    }

    @Test func aPortalBackendWithoutAnAllowListedRedirectURLSaysSo() throws {
        let sandbox = try TurnkeySandbox()
        var configuration = sandbox.configuration
        configuration.backends?["sandbox-portal"]?.redirectURL = nil
        let backend = try sandbox.backend("google", backend: "sandbox-portal", configuration: configuration)
        #expect(throws: SignInError.self) { _ = try backend.method(loopbackRedirectURI: "http://127.0.0.1:5999/cb") }
        configuration.backends?["sandbox-portal"]?.redirectURL = "http://127.0.0.1:6001/callback"
        let fixed = try sandbox.backend("google", backend: "sandbox-portal", configuration: configuration)
        #expect(throws: SignInError.self) {
            _ = try fixed.method(loopbackRedirectURI: "http://127.0.0.1:5999/callback")
        }
        #expect(
            try fixed.method(loopbackRedirectURI: "http://127.0.0.1:6001/callback")
                == .browser(redirectURI: "http://127.0.0.1:6001/callback"))
    }
}

extension JSONValue {
    func arrayContains(_ name: String) -> Bool {
        if case .array(let items) = self { return items.contains(.string(name)) }
        return false
    }

    /// This object without the member at `path`.
    func removing(_ path: [String]) -> JSONValue {
        guard case .object(var members) = self, let first = path.first else { return self }
        if path.count == 1 {
            members[first] = nil
        } else if let inner = members[first] {
            members[first] = inner.removing(Array(path.dropFirst()))
        }
        return .object(members)
    }

    /// This object with the member at `path` set to `value`.
    func setting(_ path: [String], _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self, let first = path.first else { return self }
        members[first] =
            path.count == 1
            ? value
            : (members[first] ?? .object([:])).setting(
                Array(path.dropFirst()),
                value)
        return .object(members)
    }
}
