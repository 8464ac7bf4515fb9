import Foundation
import Testing

/// The private_key_jwt client `authdeck sandbox` registers with a key it keeps in its data folder, as the config.json
/// it writes names it (backend `sandbox-jwt`): a sign-in with PAR, a signed request object and DPoP goes through,
/// which only happens when the sandbox's own checks (written from RFC 7523, 9126, 9101 and 9449) accept the client's
/// assertions, the pushed request, the object and the proofs.
@Suite(.serialized) struct SandboxJWTClientTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    /// The `oidc` entry of the `sandbox-jwt` backend in the config.json the sandbox wrote.
    func writtenClient() throws -> [String: Any] {
        let config = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.configPath)))
                as? [String: Any])
        let backend = try #require((config["backends"] as? [String: Any])?["sandbox-jwt"] as? [String: Any])
        #expect(backend["type"] as? String == "direct" && backend["usesSandbox"] as? Bool == true)
        return try #require((backend["providers"] as? [String: Any])?["oidc"] as? [String: Any])
    }

    @Test func theWrittenJWTClientSignsInWithPARARequestObjectAndDPoP() throws {
        let client = try writtenClient()
        #expect(client["clientID"] as? String == "sandbox-jwt-client")
        #expect(client["tokenEndpointAuthMethod"] as? String == "private_key_jwt")
        let keyFile = try #require(client["privateKeyFile"] as? String)
        let keyID = try #require(client["keyID"] as? String)
        // The key is an owner-only file in the data folder, a P-256 key as OpenSSL reads it.
        #expect(keyFile.hasPrefix(folder.path + "/"), "key file: \(keyFile)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "mode \(String(mode, radix: 8))")
        let checked = try Program.run("/usr/bin/openssl", ["ec", "-in", keyFile, "-noout", "-text"], quiet: true)
        #expect(checked.status == 0 && checked.text.contains("prime256v1"), "openssl: \(checked.text)")

        let tracePath = folder.path + "/trace.jsonl"
        let result = runner.run(
            [
                "login", "oidc", "--backend", "sandbox-jwt", "--par", "--request-object", "--dpop",
                "--session-key", "jwt", "--trace", tracePath,
            ], stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let steps = TraceFile.steps(tracePath)
        let text = (try? String(contentsOfFile: tracePath, encoding: .utf8)) ?? ""

        // One assertion for the PAR endpoint and one for the token endpoint, each shown decoded without its
        // signature: iss and sub the client, the key id config.json names, aud the endpoint it went to.
        let assertions = steps.filter { $0["kind"] as? String == "client_assertion" }
        let audiences = assertions.compactMap { (TraceFile.details($0)["claims"] as? [String: Any])?["aud"] as? String }
        #expect(audiences.contains { $0.hasSuffix("/oidc/generic/par") }, "audiences: \(audiences)")
        #expect(audiences.contains { $0.hasSuffix("/oidc/generic/token") }, "audiences: \(audiences)")
        for assertion in assertions {
            let details = TraceFile.details(assertion)
            let claims = details["claims"] as? [String: Any]
            #expect(
                claims?["iss"] as? String == "sandbox-jwt-client" && claims?["sub"] as? String == "sandbox-jwt-client")
            #expect((details["header"] as? [String: Any])?["kid"] as? String == keyID)
        }
        for name in ["client_assertion", "access_token", "refresh_token"] {
            for value in InteropLogin.values(named: name, in: steps) {
                #expect(value.hasPrefix("[redacted"), "\(name) in the trace: \(value.prefix(12))…")
            }
        }
        // The sandbox took the pushed request (201) and the browser carried only its request_uri.
        let pushed = TraceFile.responses(steps, to: "/oidc/generic/par")
        #expect(pushed.contains { TraceFile.details($0)["status"] as? Double == 201 }, "trace: \(text)")
        let authorize = try #require(steps.first { $0["kind"] as? String == "authorize" })
        let query = try #require(TraceFile.details(authorize)["parameters"] as? [String: Any])
        #expect(Set(query.keys) == ["client_id", "request_uri"], "authorize: \(query)")
        #expect(text.contains("dpop+jwt"), "no DPoP proof in the trace")

        let status = runner.run(["status", "jwt"])
        #expect(status.stdout.contains("token type:     DPoP"), "status: \(status.stdout)")
        let refreshed = runner.run(["refresh", "jwt"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
    }

    @Test func theClientsKeyIsKeptAcrossRestarts() throws {
        let before = try writtenClient()
        let keyFile = try #require(before["privateKeyFile"] as? String)
        let key = try String(contentsOfFile: keyFile, encoding: .utf8)
        sandbox.stop()
        let again = try SandboxProcess(folder: folder, runner: runner)
        defer { again.stop() }
        let config = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: again.configPath)))
                as? [String: Any])
        let backend = (config["backends"] as? [String: Any])?["sandbox-jwt"] as? [String: Any]
        let after = try #require((backend?["providers"] as? [String: Any])?["oidc"] as? [String: Any])
        #expect(after["keyID"] as? String == before["keyID"] as? String)
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == key)
    }
}
