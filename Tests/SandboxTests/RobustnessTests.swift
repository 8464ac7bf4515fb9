import AuthCore
import Foundation
import Sandbox
import Synchronization
import Testing

@Suite struct RobustnessTests {
    @Test func garbageBodiesGetErrorsInEachShape() throws {
        let sandbox = try SandboxFixture()
        let proxyHeaders = SandboxFixture.proxyHeaders
        let bodies: [(String, [UInt8])] = [
            ("application/json", Array("{not json".utf8)),
            ("application/json", Array("[1,2,3]".utf8)),
            ("application/json", Array("\"string\"".utf8)),
            ("application/json", [0xFF, 0xFE, 0x00, 0x7B]),
            ("text/plain", Array("{}".utf8)),
            ("application/json", []),
            ("application/json", Array(String(repeating: "[", count: 15000).utf8)),
        ]
        for (type, body) in bodies {
            var headers = proxyHeaders
            headers["Content-Type"] = type
            let reply = try SandboxHTTP.request(
                "POST", port: sandbox.port, "/turnkey/v1/otp_init", headers: headers,
                body: body)
            #expect(reply.status == 400, "\(type) \(body.prefix(10))")
            #expect(reply.json["code"] as? Int == 3)
            let portal = try SandboxHTTP.request(
                "POST", port: sandbox.port, "/portal/api/v3/auth/oauth/tokens",
                headers: [
                    "Content-Type": type,
                    "x-portal-auth-environment-id": "sandbox-environment",
                ], body: body)
            #expect(portal.status == 400)
            #expect(portal.string("error") != nil)
            let token = try SandboxHTTP.request(
                "POST", port: sandbox.port, "/oidc/google/token",
                headers: ["Content-Type": type], body: body)
            #expect(token.status == 400)
            #expect(token.string("error") == "invalid_request")
        }
        let wrongTypes = try sandbox.proxy("otp_init", ["contact": 42, "otpType": ["OTP_TYPE_EMAIL"]])
        #expect(wrongTypes.status == 400)
        let broken = try sandbox.form(
            "/oidc/google/token", [("grant_type", "authorization_code")],
            headers: ["Authorization": "Basic !!!"])
        #expect(broken.status == 401)
        #expect(broken.string("error") == "invalid_client")
        #expect(try sandbox.proxy("wallet_kit_config", [:]).status == 200)
    }

    @Test func hugeBodiesAreRefusedWith413() throws {
        let sandbox = try SandboxFixture()
        var headers = SandboxFixture.proxyHeaders
        headers["Content-Type"] = "application/json"
        let huge = Array("{\"contact\":\"".utf8) + [UInt8](repeating: 0x61, count: 20_000) + Array("\"}".utf8)
        let reply = try SandboxHTTP.request(
            "POST", port: sandbox.port, "/turnkey/v1/otp_init", headers: headers,
            body: huge)
        #expect(reply.status == 413)
        #expect(sandbox.deliveries.count == 0)
        #expect(try sandbox.proxy("wallet_kit_config", [:]).status == 200)
    }

    @Test func unknownPathsAndMethodsAnswerJSON() throws {
        let sandbox = try SandboxFixture()
        for path in [
            "/nothing", "/oidc/myspace/authorize", "/oidc/google/nope", "/oidc/discord/device/code",
            "/oidc", "/portal/api/v2/auth/methods", "/oidc/x/api/users/@me",
        ] {
            let reply = try sandbox.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.headers["content-type"] == "application/json", "\(path)")
            #expect(!reply.json.isEmpty, "\(path)")
        }
        let proxy = try sandbox.proxy("delete_everything", [:])
        #expect(proxy.status == 404)
        #expect(proxy.json["code"] as? Int == 5)
        let getToken = try sandbox.get("/oidc/google/token")
        #expect(getToken.status == 405)
        #expect(getToken.headers["allow"] == "POST")
        let getProxy = try sandbox.get("/turnkey/v1/otp_init", headers: SandboxFixture.proxyHeaders)
        #expect(getProxy.status == 405)
        let broken = try sandbox.get("/oidc/google/authorize?client_id=%zz")
        #expect(broken.status == 400)
        let brokenPath = try sandbox.get("/oidc/%ff%fe/authorize")
        #expect(brokenPath.status == 400)
        let encoded = try sandbox.get("/oidc/discord/api/users/%40me")
        #expect(encoded.status == 401)
        #expect(try sandbox.get("/").string("turnkey") == sandbox.base + "/turnkey")
    }

    @Test func rawGarbageOnTheSocketDoesNotHurtTheServer() throws {
        let sandbox = try SandboxFixture()
        let junk: [[UInt8]] = [
            Array("HELLO\r\n\r\n".utf8),
            Array("GET\r\n\r\n".utf8),
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC],
            Array("POST /turnkey/v1/otp_init HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n{".utf8),
            Array("GET /\(String(repeating: "a", count: 40_000)) HTTP/1.1\r\n\r\n".utf8),
        ]
        // A client that announces a body and never sends it holds its connection until the server's timeout;
        // the short wait here only stops the test from sitting that out. Others must be served meanwhile.
        for bytes in junk {
            _ = try? SandboxHTTP.send(port: sandbox.port, raw: bytes, halfClose: true, timeout: 1)
            #expect(try sandbox.get("/oidc/google/jwks").status == 200)
        }
    }

    @Test func concurrentClientsAllGetWholeAnswers() throws {
        let sandbox = try SandboxFixture()
        let statuses = StatusList()
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let profile = index % 2 == 0 ? "google" : "x"
            let status = (try? sandbox.exchange(profile, try sandbox.approve(profile)).status) ?? -1
            statuses.values.withLock { $0.append(status) }
        }
        #expect(statuses.values.withLock { $0 } == Array(repeating: 200, count: 16))
    }
}

/// Statuses collected from several threads.
final class StatusList: Sendable {
    let values = Mutex<[Int]>([])
}
