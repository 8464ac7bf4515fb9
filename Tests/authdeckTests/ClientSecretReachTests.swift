import Foundation
import Testing

/// A client secret goes only to the issuer config.json configured it for, and a refreshed ID token is
/// stored only when it verifies. The hostile provider (Tests/authdeckTests/Fixtures/hostile-provider.py) records
/// every request whole, so what reached it is read from its log, not from authdeck.
@Suite(.serialized) struct ClientSecretReachTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let provider: HostileProvider
    /// A file the user can read that must never leave the machine (as `~/.ssh/id_ed25519` would be).
    let canary = "CANARY-" + UUID().uuidString
    let canaryFile: String

    init() throws {
        let passphrase = folder.write("passphrase", "correct horse battery staple\n")
        var base = CLIRunner(
            home: folder.path + "/home",
            extra: ["AUTHDECK_PASSPHRASE_FILE": passphrase, "XDG_RUNTIME_DIR": folder.path + "/run"])
        base.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        base.environment["XDG_CONFIG_HOME"] = folder.path + "/xdg"
        runner = base
        provider = try HostileProvider(folder: folder, runner: base)
        canaryFile = folder.write("id_ed25519", canary + "\n")
    }

    /// An expired, refreshable direct session as an import line.
    func line(_ key: String, issuer: String, token: String, extra: String = "", selected: Bool = false) -> String {
        #"{"key":"\#(key)","backend":"direct","provider":"oidc","subject":"alice","issuer":"\#(issuer)","#
            + #""accessToken":"at-\#(key)","refreshToken":"rt-\#(key)","idToken":"original-id-\#(key)","#
            + #""expiresAt":"2020-01-01T00:00:00Z","selected":\#(selected),"#
            + #""endpoints":{"clientID":"authdeck-test","token":"\#(token)"\#(extra)}}"#
    }

    /// The requests that carried `secret` in any form a client secret travels in (the body, HTTP Basic).
    func requests(carrying secret: String, clientID: String = "authdeck-test") -> [String] {
        let basic = Data("\(clientID):\(secret)".utf8).base64EncodedString()
        return provider.wire.filter { $0.contains(secret) || $0.contains(basic) }
    }

    @Test func anImportNamingAReadableFileNeverSendsIt() throws {
        let hostile = provider.baseURL + "/hostile/token"
        let lines = [
            line(
                "post", issuer: "https://id.example.com", token: hostile,
                extra: #","clientSecretFile":"\#(canaryFile)","tokenAuthMethod":"client_secret_post""#,
                selected: true),
            line(
                "basic", issuer: "https://id.example.com", token: hostile,
                extra: #","clientSecretFile":"\#(canaryFile)","tokenAuthMethod":"client_secret_basic""#),
        ]
        let imported = runner.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        try #require(imported.status == 0, "stderr: \(imported.stderr)")
        #expect(imported.stderr.contains("'post'") && imported.stderr.contains("'basic'"), "\(imported.stderr)")
        #expect(imported.stderr.contains("config.json"), "\(imported.stderr)")

        // The selected, expired session refreshes at once; the other by name, and the TUI's path is the same one.
        let selected = runner.run(["token"])
        let named = runner.run(["token", "basic"])
        #expect(selected.status != 0 && named.status != 0, "\(selected.stderr) \(named.stderr)")
        #expect(provider.requests.filter { $0 == "POST /hostile/token" }.count == 2, "\(provider.requests)")
        #expect(requests(carrying: canary).isEmpty, "the canary file reached the listener")
    }

    /// A config.json whose `oidc` client has a secret (in a file) at an issuer on the provider: the issuer, the
    /// secret and the config's path.
    func configuredClient() -> (issuer: String, secret: String, config: String) {
        let configured = provider.baseURL + "/config-host"
        let secret = "configured-" + UUID().uuidString
        let secretFile = folder.write("client-secret", secret + "\n")
        let config = folder.write(
            "config.json",
            #"{"providers":{"oidc":{"issuer":"\#(configured)","clientID":"authdeck-test","#
                + #""clientSecretFile":"\#(secretFile)","tokenEndpointAuthMethod":"client_secret_post"}}}"#)
        return (configured, secret, config)
    }

    @Test func anImportedSessionTakesTheConfiguredSecretOnlyToTheConfiguredIssuer() throws {
        let (configured, secret, config) = configuredClient()
        let hostile = provider.baseURL + "/hostile/token"
        // One claims the configured issuer but stores a hostile token endpoint; one names another issuer.
        let lines = [
            line("same", issuer: configured, token: hostile), line("other", issuer: provider.baseURL, token: hostile),
        ]
        let imported = runner.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        try #require(imported.status == 0, "stderr: \(imported.stderr)")
        _ = runner.run(["token", "same", "--config", config])
        _ = runner.run(["token", "other", "--config", config])
        let carrying = requests(carrying: secret)
        #expect(carrying.count == 1 && carrying[0].hasPrefix("POST /config-host/token"), "\(provider.requests)")
        #expect(provider.requests.filter { $0 == "POST /hostile/token" }.count == 1, "\(provider.requests)")
    }

    /// The agent refreshes with the config.json its own `--config` names, as `token --config` does: the imported
    /// session's configured client reaches the configured issuer through the agent too.
    @Test func theAgentRefreshesWithTheConfigItWasStartedWith() throws {
        let (configured, secret, config) = configuredClient()
        let imported = runner.run(
            ["store", "import", "-"], stdin: line("same", issuer: configured, token: configured + "/token") + "\n")
        try #require(imported.status == 0, "stderr: \(imported.stderr)")
        let socket = folder.path + "/agent.sock"
        let out = folder.path + "/agent.out"
        let agent = try runner.spawn(
            executable: CLIRunner.binary, ["agent", "--allow", "same", "--socket", socket, "--config", config],
            stdoutPath: out)
        defer {
            agent.kill(SIGTERM)
            _ = agent.wait(timeout: 10)
        }
        var listening = false
        for _ in 0..<400 where !listening {
            listening = (try? String(contentsOfFile: out, encoding: .utf8)) == socket + "\n"
            if !listening { usleep(25_000) }
        }
        try #require(listening, "the agent printed no socket path")
        var client = runner
        client.environment["AUTHDECK_AGENT_SOCK"] = socket
        _ = client.run(["token", "same"])
        let carrying = requests(carrying: secret)
        #expect(carrying.count == 1 && carrying[0].hasPrefix("POST /config-host/token"), "\(provider.requests)")
    }

    @Test func issuerOnTheCommandLineGetsOnlyTheClientGivenWithIt() throws {
        let config = folder.write(
            "config.json",
            #"{"providers":{"oidc":{"issuer":"\#(provider.baseURL)/config-host","clientID":"config-client","#
                + #""clientSecretFile":"\#(canaryFile)"}}}"#)
        let hostile = provider.baseURL + "/hostile"
        let bare = runner.run(["login", "oidc", "--device", "--issuer", hostile, "--config", config])
        #expect(bare.status == 2, "stderr: \(bare.stderr)")
        #expect(bare.stderr.split(separator: "\n").first?.contains("--issuer needs --client-id") == true)
        #expect(provider.requests.isEmpty, "\(provider.requests)")

        let given = runner.run(
            [
                "login", "oidc", "--device", "--issuer", hostile, "--client-id", "given-client", "--config", config,
                "--timeout", "20",
            ], timeout: 40)
        #expect(given.status == 4, "stderr: \(given.stderr)")
        #expect(provider.requests.contains("POST /hostile/device"), "\(provider.requests)")
        #expect(requests(carrying: canary, clientID: "given-client").isEmpty, "config.json's secret was sent")
        #expect(requests(carrying: canary, clientID: "config-client").isEmpty, "config.json's secret was sent")
        #expect(!provider.wire.contains { $0.contains("config-client") }, "config.json's client id was sent")
    }

    @Test func aRefreshedIDTokenThatDoesNotVerifyIsRefusedAndTheSessionKept() throws {
        let forged = provider.baseURL + "/forged"
        let config = folder.write(
            "config.json", #"{"providers":{"oidc":{"issuer":"\#(forged)","clientID":"authdeck-test"}}}"#)
        let imported = runner.run(
            ["store", "import", "-"], stdin: line("k", issuer: forged, token: forged + "/token") + "\n")
        try #require(imported.status == 0, "stderr: \(imported.stderr)")

        // The issuer's keys are known (config.json names it): the unsigned token for "mallory" is refused.
        let refused = runner.run(["refresh", "k", "--config", config])
        #expect(refused.status != 0, "stdout: \(refused.stdout)")
        #expect(refused.stderr.contains("ID token") && refused.stderr.split(separator: "\n").count == 1)
        #expect(runner.run(["token", "--id-token", "k"]).stdout == "original-id-k\n")
        #expect(provider.requests.contains("POST /forged/token"), "\(provider.requests)")

        // Unknown here: the refresh is kept, its ID token is not.
        let dropped = runner.run(["refresh", "k"])
        #expect(dropped.status == 0, "stderr: \(dropped.stderr)")
        #expect(runner.run(["token", "--id-token", "k"]).stdout == "original-id-k\n")
        #expect(runner.run(["token", "k"]).stdout == "forged-access\n")
    }
}
