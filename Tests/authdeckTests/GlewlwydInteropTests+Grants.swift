import Foundation
import Testing

/// The grants without a browser against glewlwyd 2.7: client credentials and CIBA in poll mode, at the plugin
/// instance serve.py's `configure_grants` registers (issuer `grantsIssuer`).
extension InteropTests.GlewlwydInteropTests {
    func configureGrants(client: String, secret: Bool = true) throws {
        var oidc: [String: Any] = [
            "issuer": info.grantsIssuer ?? "", "clientID": client, "redirectURI": info.redirectURI,
            "scopes": ["openid"],
        ]
        if secret { oidc["clientSecretFile"] = setup.secretFile(info.clientSecret) }
        try setup.configure(oidc)
    }

    /// Introspection (RFC 7662) at the grants instance, as the client the token was issued to.
    func introspected(_ token: String, client: String) -> (status: Int, body: [String: Any]) {
        server.introspect(
            (info.grantsIssuer ?? "") + "/introspect", token: token, client: client, secret: info.clientSecret)
    }

    /// Client credentials: a machine session whose subject is the client, its token active at glewlwyd's
    /// introspection; `refresh` and `token --min-valid` renew it by asking again (it holds no refresh token), and the
    /// renewed token is active too. A public client is refused before anything is sent, and nothing is stored.
    @Test func clientCredentialsMakeAMachineSessionRenewedByAskingAgain() throws {
        let machine = try #require(info.machineClient)
        try configureGrants(client: machine)
        let result = setup.login(["--grant", "client-credentials", "--session-key", "m"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let session = try #require(try setup.session("m"))
        #expect(session["subject"] as? String == machine)
        let listed = setup.runner.run(["list"]).stdout
        #expect(listed.contains("machine session (client \(machine))"), "list: \(listed)")
        let token = setup.token("m")
        let answer = introspected(token, client: machine)
        #expect(answer.status == 200 && answer.body["active"] as? Bool == true, "\(answer)")
        #expect(answer.body["client_id"] as? String == machine)
        let status = setup.runner.run(["status", "m"])
        #expect(status.stdout.contains("machine session"), "stdout: \(status.stdout)")

        let refreshed = setup.runner.run(["refresh", "m"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let renewed = setup.token("m")
        #expect(renewed != token && introspected(renewed, client: machine).body["active"] as? Bool == true)
        // `token` asks again when the token would not last as long as asked (glewlwyd's live 3600 s).
        Thread.sleep(forTimeInterval: 1.5)
        let again = setup.runner.run(["token", "m", "--min-valid", "3599"])
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let third = again.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(third != renewed && introspected(third, client: machine).body["active"] as? Bool == true)

        try configureGrants(client: machine, secret: false)
        let publicClient = setup.login(["--grant", "client-credentials", "--session-key", "p"])
        #expect(publicClient.status == 4, "stderr: \(publicClient.stderr)")
        #expect(publicClient.stderr.contains("needs a confidential client"), "stderr: \(publicClient.stderr)")
        #expect(try setup.session("p") == nil)
    }

    /// New sign-in's `m` picks client credentials for an OpenID Connect provider: under tmux, the real TUI signs a
    /// machine session in at glewlwyd, and glewlwyd's introspection says its token is active.
    @Test(TmuxPane.required) func newSignInsMethodChoiceMakesAMachineSession() throws {
        let machine = try #require(info.machineClient)
        try configureGrants(client: machine)
        let pane = try setup.runner.startTUI(in: setup.folder.path, cols: 120, rows: 40)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Sign in with")
        for _ in 0..<4 { pane.send("Right") }
        try pane.waitFor("Client id")
        try pane.press("m", until: "device grant")
        try pane.press("m", until: "CIBA")
        try pane.press("m", until: "client credentials: a machine session")
        try pane.press(
            "Enter", until: "Signed in with OIDC as machine session (client \(machine))", timeout: 30)
        try pane.press("Enter", until: "1 session")
        try pane.quit()
        let session = try #require(try setup.listed().first)
        #expect(session["subject"] as? String == machine)
        let key = try #require(session["key"] as? String)
        let answer = introspected(setup.token(key), client: machine)
        #expect(answer.status == 200 && answer.body["active"] as? Bool == true, "\(answer)")
    }

    /// Starts ciba-user.py, which signs in to glewlwyd as the user and approves (or denies) the first CIBA request
    /// that reaches them; returns where its one JSON line goes.
    func cibaUser(_ verdict: String) throws -> (process: SpawnedProcess, output: String) {
        let output = setup.folder.path + "/ciba-user-\(verdict).json"
        let process = try setup.runner.spawn(
            executable: "/usr/bin/python3",
            [
                CLIRunner.repositoryRoot + "/Tests/Interop/glewlwyd/ciba-user.py", info.baseURL, "oidcgrants",
                info.user, info.cibaClient ?? "", verdict,
            ],
            environment: ["CIBA_USER_PASSWORD": "alice-password-1"], stdoutPath: output)
        return (process, output)
    }

    /// CIBA in poll mode: authdeck asks glewlwyd to reach the user named by `--login-hint`, shows the binding
    /// message and the time left, and polls; glewlwyd shows the user the same binding message, the user approves
    /// through glewlwyd's API, and the session is stored with the ID token's identity, its token accepted by
    /// glewlwyd's UserInfo. A denial ends the attempt with exit 4 and nothing stored.
    @Test func cibaPollModeApprovedThroughGlewlwydsUserAPI() throws {
        let client = try #require(info.cibaClient)
        try configureGrants(client: client)
        let user = try cibaUser("approve")
        let hint = "{\"username\":\"\(info.user)\"}"
        let result = setup.login(
            [
                "--grant", "ciba", "--login-hint", hint, "--binding-message", "authdeck 4271", "--session-key", "c",
                "--trace", setup.folder.path + "/ciba.jsonl",
            ], timeout: 90)
        _ = user.process.wait(timeout: 30)
        let seen = (try? String(contentsOfFile: user.output, encoding: .utf8)) ?? ""
        #expect(result.status == 0, "stderr: \(result.stderr)\nuser: \(seen)")
        #expect(result.stderr.contains("authdeck 4271") && result.stderr.contains("left"), "stderr: \(result.stderr)")
        #expect(seen.contains("\"bindingMessage\": \"authdeck 4271\""), "user: \(seen)")
        let session = try #require(try setup.session("c"))
        #expect(session["email"] as? String == info.email)
        // The request's handle is polled with like a device code: the trace names it only redacted.
        let handles = InteropLogin.values(
            named: "auth_req_id", in: setup.trace(setup.folder.path + "/ciba.jsonl").steps)
        #expect(!handles.isEmpty && handles.allSatisfy { $0.hasPrefix("[redacted") }, "\(handles)")
        let answer = server.userinfo((info.grantsIssuer ?? "") + "/userinfo", token: setup.token("c"))
        #expect(answer.status == 200)
        #expect(answer.body["sub"] as? String == session["subject"] as? String)

        let denier = try cibaUser("deny")
        let denied = setup.login(["--grant", "ciba", "--login-hint", hint, "--session-key", "d"], timeout: 90)
        _ = denier.process.wait(timeout: 30)
        #expect(denied.status == 4, "stderr: \(denied.stderr)")
        #expect(denied.stderr.contains("declined"), "stderr: \(denied.stderr)")
        #expect(try setup.session("d") == nil)
    }

    /// A provider without CIBA (the first instance names no backchannel_authentication_endpoint): one line saying
    /// so, exit 4, nothing sent to it for CIBA and nothing stored.
    @Test func cibaAtAProviderWithoutItIsRefused() throws {
        try setup.configure([
            "issuer": info.issuer, "clientID": info.confidentialClient,
            "clientSecretFile": setup.secretFile(info.clientSecret), "redirectURI": info.redirectURI,
            "scopes": ["openid"],
        ])
        let result = setup.login(["--grant", "ciba", "--login-hint", "{\"username\":\"alice\"}", "--session-key", "x"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("names no backchannel_authentication_endpoint"), "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
        #expect(try setup.listed().isEmpty)
    }
}
