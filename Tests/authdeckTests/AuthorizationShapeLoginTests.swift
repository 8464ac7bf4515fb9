import Foundation
import Testing

/// `authdeck login` with the request and response shapes of config.json (`pushedAuthorizationRequests`,
/// `responseMode`, `requestObject`) against the sandbox, whose PAR endpoint and JWT-secured responses follow
/// RFC 9126 and JARM; settings the provider cannot honour are one line with nothing sent or stored.
@Suite(.serialized) struct AuthorizationShapeLoginTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    /// The sandbox's config.json with these fields set on its `oidc` provider; `discovered` leaves its endpoints to
    /// discovery (where the PAR endpoint is named).
    func configureOIDC(_ fields: [String: Any], discovered: Bool = false) throws {
        try sandbox.configure(provider: "oidc", fields, discovered: discovered)
    }

    func signIn(_ arguments: [String] = []) throws -> (text: String, steps: [[String: Any]]) {
        let tracePath = folder.path + "/trace-\(arguments.count).jsonl"
        let result = runner.run(["login", "oidc", "--trace", tracePath] + arguments, stdin: "", timeout: 30)
        let browser = (try? String(contentsOfFile: folder.path + "/browser.log", encoding: .utf8)) ?? ""
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(browser)")
        #expect(try setup.listed().count == 1)
        let text = (try? String(contentsOfFile: tracePath, encoding: .utf8)) ?? ""
        let steps = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (text, steps)
    }

    func authorizeParameters(_ steps: [[String: Any]]) throws -> [String: Any] {
        let authorize = try #require(steps.first { $0["kind"] as? String == "authorize" })
        return try #require((authorize["details"] as? [String: Any])?["parameters"] as? [String: Any])
    }

    @Test func pushedRequestAndSignedResponseSignIn() throws {
        try configureOIDC(["responseMode": "jwt"], discovered: true)
        let trace = try signIn(["--par"])
        let query = try authorizeParameters(trace.steps)
        #expect(Set(query.keys) == ["client_id", "request_uri"], "authorize: \(query)")
        let pushed = trace.steps.first {
            $0["kind"] as? String == "response" && ($0["summary"] as? String)?.contains("/par") == true
        }
        #expect(((pushed?["details"] as? [String: Any])?["status"] as? Double) == 201, "trace: \(trace.text)")
        // The sandbox's signed response, decoded in the trace without its signature and with its code redacted.
        let decoded = try #require(trace.steps.first { ($0["summary"] as? String)?.contains("JARM") == true })
        let claims = try #require((decoded["details"] as? [String: Any])?["claims"] as? [String: Any])
        #expect((claims["iss"] as? String)?.hasSuffix("/oidc/generic") == true)
        #expect((claims["code"] as? String)?.hasPrefix("[redacted") == true)
    }

    @Test func formPostResponseSignsIn() throws {
        try configureOIDC(["responseMode": "form_post"])
        let trace = try signIn()
        #expect(try authorizeParameters(trace.steps)["response_mode"] as? String == "form_post")
    }

    @Test(
        arguments: [
            (["responseMode": "fragment"], "responseMode 'fragment' is not one of query, form_post, jwt"),
            (["requestObject": "signed"], "requestObject signed needs privateKeyFile"),
            (["requestObject": "unsigned"], "requestObject 'unsigned' is not signed"),
        ] as [([String: String], String)])
    func settingsAuthdeckCannotHonourAreOneLineAndSendNothing(_ fields: [String: String], _ message: String) throws {
        try configureOIDC(fields)
        let result = runner.run(["login", "oidc"], stdin: "", timeout: 30)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try setup.listed().isEmpty)
    }

    @Test func aRequestObjectKeyOthersCanReadIsRefused() throws {
        let key = folder.path + "/client.key"
        let made = try Program.run(
            "/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
            quiet: true)
        #expect(made.status == 0)
        chmod(key, 0o644)
        try configureOIDC(["requestObject": "signed", "privateKeyFile": key])
        let result = runner.run(["login", "oidc"], stdin: "", timeout: 30)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("is open to other users (mode 644); chmod 600 it"), "stderr: \(result.stderr)")
        #expect(try setup.listed().isEmpty)
    }
}
