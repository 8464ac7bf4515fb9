import Foundation
import Testing

/// `authdeck logout KEY --end-session` against the sandbox, whose end-session endpoint follows OpenID Connect
/// RP-Initiated Logout 1.0 (the ID token's signature and audience, the exact registered post-logout URI, the state
/// returned): the provider's session ends (its tokens stop working at UserInfo), then the session here; a forged or
/// missing state, a provider without the endpoint, or no fixed post-logout address change nothing.
@Suite(.serialized) struct EndSessionLogoutTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup
    let logoutURI: String

    init() throws {
        let uri = "http://127.0.0.1:\(try PortHolder.freePort())/logout"
        setup = try SandboxLoginSetup(sandboxArguments: ["--post-logout-redirect-uri", uri])
        logoutURI = uri
    }

    func signIn(_ key: String, provider: String = "oidc") throws {
        let result = runner.run(["login", provider, "--session-key", key], stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(browserSteps)")
    }

    var browserSteps: String { (try? String(contentsOfFile: folder.path + "/browser.log", encoding: .utf8)) ?? "" }

    /// The lines of stderr that say what went wrong (a usage error is followed by the usage line, progress lines
    /// come before).
    func errorLines(_ stderr: String) -> Int {
        stderr.split(separator: "\n").filter { $0.hasPrefix("authdeck logout:") }.count
    }

    /// The sandbox's UserInfo status for an access token (given on standard input, never in arguments).
    func userinfoStatus(_ token: String, profile: String = "generic") -> Int {
        let script = CLIRunner.repositoryRoot + "/Tests/Interop/userinfo.py"
        let result = runner.run(
            executable: "/usr/bin/python3", [script, sandbox.baseURL + "/oidc/\(profile)/userinfo"], stdin: token)
        return Int(result.stdout.split(separator: "\n").first ?? "") ?? -1
    }

    @Test func theProviderSessionEndsThenTheSessionHere() throws {
        try signIn("here")
        let token = runner.run(["token", "here"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(userinfoStatus(token) == 200)
        let result = runner.run(["logout", "here", "--end-session"], stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(browserSteps)")
        #expect(result.stderr.contains("At the provider: signed out · Revoked: not asked · Removed here: yes"))
        // The browser went to the provider's endpoint and came back to the registered address, which took it.
        #expect(browserSteps.contains("open \(sandbox.baseURL)/oidc/generic/end_session"), "\(browserSteps)")
        // The browser logs the page it got after authdeck has taken the redirect and moved on.
        #expect(Poll.until(timeout: 5) { browserSteps.contains("done 200 \(logoutURI)") }, "\(browserSteps)")
        #expect(try setup.listed().isEmpty)
        // The sandbox ended the user's tokens for the client with the session, as its logout does.
        #expect(userinfoStatus(token) == 401)
        // Nothing printed carries the ID token or the access token.
        #expect(!result.stderr.contains(token) && !result.stderr.contains("id_token_hint"))
    }

    @Test func withRevokeTheTokensAreRevokedBeforeTheSessionIsRemoved() throws {
        try signIn("both")
        let result = runner.run(["logout", "both", "--end-session", "--revoke"], stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(browserSteps)")
        #expect(result.stderr.contains("At the provider: signed out · Revoked: yes · Removed here: yes"))
        #expect(try setup.listed().isEmpty)
    }

    /// A page (or another program) that sends the browser to the receiver with a state of its own, or none: the
    /// sign-out ends there with exit 4, nothing is revoked and the session stays.
    @Test func aForgedOrMissingStateKeepsTheSession() throws {
        try signIn("kept")
        for query in ["?state=forged", ""] {
            let browser = folder.writeScript(
                "forging-browser-\(query.count)", "#!/bin/sh\nexec curl -s -o /dev/null '\(logoutURI)\(query)'\n")
            let result = runner.run(
                ["logout", "kept", "--end-session", "--revoke"], stdin: "", environment: ["BROWSER": browser],
                timeout: 30)
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("carried no state or another one"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("Revoked: not tried · Removed here: no"), "stderr: \(result.stderr)")
            #expect(errorLines(result.stderr) == 1, "stderr: \(result.stderr)")
            #expect(try setup.listed().count == 1)
        }
        let token = runner.run(["token", "kept"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(userinfoStatus(token) == 200)
    }

    /// Discord's profile issues no ID token and names no end-session endpoint: one line, exit 4, nothing removed.
    @Test func aProviderWithoutAnEndSessionEndpointRemovesNothing() throws {
        try signIn("d", provider: "discord")
        let result = runner.run(["logout", "d", "--end-session"], stdin: "", timeout: 30)
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("names no end_session_endpoint"), "stderr: \(result.stderr)")
        #expect(errorLines(result.stderr) == 1, "stderr: \(result.stderr)")
        #expect(try setup.listed().count == 1)
        #expect(!browserSteps.contains("end_session"))
    }

    /// Without config.json's postLogoutRedirectURI or listen there is no address a provider could have registered:
    /// one line naming both settings, exit 2, no browser and nothing removed.
    @Test func noFixedPostLogoutAddressIsAUsageError() throws {
        try signIn("nofix")
        try sandbox.configure(provider: "oidc", ["postLogoutRedirectURI": NSNull()])
        let result = runner.run(["logout", "nofix", "--end-session"], stdin: "", timeout: 30)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("set listen (127.0.0.1:PORT) or providers.oidc.postLogoutRedirectURI"))
        #expect(errorLines(result.stderr) == 1, "stderr: \(result.stderr)")
        #expect(try setup.listed().count == 1)

        // `listen` names the port instead: /logout on it, which this sandbox did not register, so it refuses
        // (a page, no redirect) and nothing comes back before the timeout.
        let port = try PortHolder.freePort()
        let config = URL(fileURLWithPath: sandbox.configPath)
        var document = try JSONSerialization.jsonObject(with: Data(contentsOf: config)) as? [String: Any] ?? [:]
        document["listen"] = "127.0.0.1:\(port)"
        try JSONSerialization.data(withJSONObject: document).write(to: config)
        let unregistered = runner.run(
            ["logout", "nofix", "--end-session", "--timeout", "5"], stdin: "", timeout: 30)
        #expect(unregistered.status == 6, "stderr: \(unregistered.stderr)")
        #expect(Poll.until(timeout: 5) { browserSteps.contains("done 400") }, "\(browserSteps)")
        #expect(try setup.listed().count == 1)
    }

    /// The options of the sign-out at the provider mean nothing without it, or with more than one session.
    @Test func endSessionOptionsAloneOrWithSeveralSessionsAreUsageErrors() throws {
        try signIn("opts")
        for arguments in [["opts", "--timeout", "5"], ["opts", "--no-browser"], ["--all", "--end-session"]] {
            let result = runner.run(["logout"] + arguments, stdin: "", timeout: 30)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(errorLines(result.stderr) == 1, "stderr: \(result.stderr)")
        }
        #expect(try setup.listed().count == 1)
    }

    /// `--no-browser` prints the address to open (the ID token in it, as the specification has it) and waits.
    @Test func noBrowserPrintsTheEndSessionAddress() throws {
        try signIn("printed")
        let result = runner.run(
            ["logout", "printed", "--end-session", "--no-browser", "--timeout", "5"], stdin: "", timeout: 30)
        #expect(result.status == 6, "stderr: \(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("/end_session?") })
        let query = try #require(URLComponents(string: String(line))?.queryItems)
        let names = Set(query.map(\.name))
        #expect(names == ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
        #expect(query.first { $0.name == "post_logout_redirect_uri" }?.value == logoutURI)
        #expect(try setup.listed().count == 1)
    }
}
