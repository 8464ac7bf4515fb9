import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `token --min-valid`, `exec` and `env` end to end: the real binary (the lean `authdeck`, which hands these to
/// authdeck-full), a passphrase store in a temporary folder, real shells.
@Suite struct TokenDeliveryTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    /// A token with every character a shell could trip on.
    static let awkwardToken = "AT-'q\\\"$HOME `x` y;z*"

    func runner() -> CLIRunner {
        let file = folder.write("passphrase", "correct horse\n")
        return CLIRunner(home: home, passphraseFile: file)
    }

    /// An import line; `key` and `token` are written as JSON strings (any text, newlines and controls included).
    static func line(_ key: String, token: String, expires: String = "2099-01-01T00:00:00Z") -> String {
        "{\"key\":\(json(key)),\"backend\":\"direct\",\"provider\":\"oidc\",\"subject\":\(json("s-" + key)),"
            + "\"issuer\":\"https://id.example.com\",\"createdAt\":\"2024-01-02T03:04:05Z\","
            + "\"expiresAt\":\"\(expires)\",\"accessToken\":\(json(token))}\n"
    }

    /// `text` as a JSON string, written by Foundation's encoder.
    static func json(_ text: String) -> String {
        let data = try? JSONSerialization.data(
            withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// The binary's runner on a store seeded in this process.
    func seeded() -> CLIRunner {
        let runner = runner()
        let seeding = runner.inProcess
        let lines =
            Self.line("work", token: Self.awkwardToken) + Self.line("other", token: "AT-other")
            + Self.line("old", token: "AT-old-secret", expires: "2001-01-01T00:00:00Z")
            + Self.line("soon", token: "AT-soon-secret", expires: SessionDates.iso(secondsFromNow: 600))
        let imported = seeding.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        #expect(seeding.run(["use", "work"]).status == 0)
        return runner
    }

    // MARK: - token --min-valid and --format

    @Test func minValidRefusesATokenThatCannotLastAndCannotRefresh() {
        let runner = seeded().inProcess
        // Ten minutes left: enough for the default window and for --min-valid 5m, not for --min-valid 15m.
        #expect(runner.run(["token", "soon"]).stdout == "AT-soon-secret\n")
        #expect(runner.run(["token", "soon", "--min-valid", "5m"]).stdout == "AT-soon-secret\n")
        let long = runner.run(["token", "soon", "--min-valid", "15m"])
        #expect(long.status == 1)
        #expect(long.stdout.isEmpty)
        #expect(long.stderr.contains("--min-valid"))
        #expect(!long.stderr.contains("AT-soon-secret"))
        for bad in ["15x", "-1", "", "8d"] {
            #expect(runner.run(["token", "soon", "--min-valid", bad]).status == 2, "\(bad)")
        }
        #expect(runner.run(["token", "--format", "yaml"]).status == 2)
        #expect(runner.run(["token", "--json", "--format", "plain"]).status == 2)
        #expect(runner.run(["token", "--format", "json"]).stdout.contains("\"key\":\"work\""))
    }

    @Test func minValidRefreshesThroughTheSandbox() throws {
        let setup = try SandboxLoginSetup()
        // Tokens of this sandbox live 600 s: --min-valid 10m always asks for a new one, 11m can never be met.
        let short = TemporaryFolder()
        let sandbox = try SandboxProcess(
            folder: short, runner: setup.runner,
            extraArguments: ["--token-lifetime", "600"])
        let environment: [String: String?] = ["AUTHDECK_CONFIG": sandbox.configPath]
        let login = setup.runner.run(["login", "oidc", "--session-key", "k"], environment: environment)
        #expect(login.status == 0, "login: \(login.stderr)")
        let first = setup.runner.run(["token", "k"], environment: environment)
        #expect(first.status == 0)
        #expect(setup.runner.run(["token", "k", "--min-valid", "5m"], environment: environment).stdout == first.stdout)
        let refreshed = setup.runner.run(["token", "k", "--min-valid", "10m"], environment: environment)
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        #expect(!refreshed.stdout.isEmpty && refreshed.stdout != first.stdout)
        // The refreshed token was stored: the next plain `token` (the lean binary's cache path) prints it.
        #expect(setup.runner.run(["token", "k"], environment: environment).stdout == refreshed.stdout)
        let impossible = setup.runner.run(["token", "k", "--min-valid", "11m"], environment: environment)
        #expect(impossible.status == 1)
        #expect(impossible.stdout.isEmpty)
        #expect(impossible.stderr.contains("less than --min-valid 660 s"), "stderr: \(impossible.stderr)")
    }

    @Test func execCredentialFollowsKubernetesExecInfo() throws {
        let runner = seeded().inProcess
        let plain = runner.run(
            ["token", "other", "--format", "exec-credential"],
            environment: ["KUBERNETES_EXEC_INFO": nil])
        #expect(plain.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(object["apiVersion"] as? String == "client.authentication.k8s.io/v1beta1")
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["token"] as? String == "AT-other")
        #expect(status["expirationTimestamp"] as? String == "2099-01-01T00:00:00Z")
        let info =
            "{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
            + "\"spec\":{\"interactive\":false}}"
        let v1 = runner.run(
            ["token", "other", "--format", "exec-credential"],
            environment: ["KUBERNETES_EXEC_INFO": info])
        #expect(v1.stdout.hasPrefix("{\"apiVersion\":\"client.authentication.k8s.io/v1\","))
        for bad in [
            "not json", "{\"apiVersion\":\"client.authentication.k8s.io/v9\"}",
            "{\"apiVersion\":\"example.com/v1\"}",
        ] {
            let result = runner.run(
                ["token", "other", "--format", "exec-credential"],
                environment: ["KUBERNETES_EXEC_INFO": bad])
            #expect(result.status == 1, "\(bad)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("KUBERNETES_EXEC_INFO"))
        }
    }

    // MARK: - exec

    @Test func execPutsTheTokenInTheEnvironmentAndPassesTheStatusThrough() {
        let runner = seeded()
        let script =
            "printf '%s|%s|%s' \"$AUTHDECK_TOKEN\" \"$AUTHDECK_SESSION\" \"$GH_TOKEN\"; "
            + "tr '\\0' ' ' < /proc/$$/cmdline; tr '\\0' ' ' < /proc/$PPID/cmdline; exit 42"
        let result = runner.run(["exec", "--", "/bin/sh", "-c", script])
        #expect(result.status == 42, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix(Self.awkwardToken + "|work|/bin/sh"), "stdout: \(result.stdout)")
        // The token is in no process's arguments: neither the command's nor authdeck's own.
        #expect(!result.stdout.dropFirst(Self.awkwardToken.count).contains("AT-'q"))
        let named = runner.run([
            "exec", "--session", "other", "--env", "GH_TOKEN", "--", "/bin/sh", "-c",
            "printf '%s|%s' \"$GH_TOKEN\" \"$AUTHDECK_SESSION\"",
        ])
        #expect(named.status == 0)
        #expect(named.stdout == "AT-other|other")
        // Options after -- are the command's, --help included.
        #expect(runner.run(["exec", "--", "/bin/sh", "-c", "echo \"ran $0\"", "--help"]).stdout == "ran --help\n")
        let killed = runner.run(["exec", "--", "/bin/sh", "-c", "kill -KILL $$"])
        #expect(killed.status == 137)
    }

    @Test func execForwardsSignalsToTheCommand() throws {
        let runner = seeded()
        let ready = folder.path + "/ready"
        let output = folder.path + "/exec.out"
        let script = "trap 'echo got-term; exit 7' TERM; echo $$ > '\(ready)'; while :; do sleep 0.05; done"
        let child = try runner.spawn(
            executable: CLIRunner.binary, ["exec", "--", "/bin/sh", "-c", script],
            stdoutPath: output)
        var started = false
        for _ in 0..<400 where !started {
            started = FileManager.default.fileExists(atPath: ready)
            if !started { usleep(25_000) }
        }
        #expect(started)
        child.kill(SIGTERM)
        let (status, timedOut) = child.wait(timeout: 20)
        #expect(!timedOut)
        #expect(status == 7)
        #expect((try? String(contentsOfFile: output, encoding: .utf8)) == "got-term\n")
        // Were the signal lost, the command would outlive this test: end it here.
        if let text = try? String(contentsOfFile: ready, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), Glibc.kill(pid, 0) == 0
        {
            Glibc.kill(pid, SIGKILL)
        }
    }

    @Test func ctrlCAtTheTerminalReachesTheCommandOnce() throws {
        guard TmuxPane.isAvailable else { return Installed.skip("tmux") }
        _ = seeded()
        // The terminal sends SIGINT to the whole foreground group, the command included; authdeck does not pass
        // that one on again. (A duplicate sent at once is usually merged by the kernel, so what this pins down is
        // that Ctrl-C still reaches the command, exactly once as far as the command can tell.)
        // Python's wakeup fd gets one byte per delivery, so two SIGINTs count as two even when one handler runs.
        let script = """
            import os, signal, time
            r, w = os.pipe()
            os.set_blocking(w, False)
            os.set_blocking(r, False)
            signal.signal(signal.SIGINT, lambda *_: None)
            signal.set_wakeup_fd(w)
            print("ready", flush=True)
            time.sleep(2)
            try:
                n = len(os.read(r, 100))
            except BlockingIOError:
                n = 0
            print("ints=%d" % n, flush=True)
            """
        let pane = try TmuxPane(
            command: [CLIRunner.binary, "exec", "--", "/usr/bin/python3", "-c", script],
            environment: [
                "AUTHDECK_HOME": home, "PATH": "/usr/bin:/bin",
                "AUTHDECK_PASSPHRASE_FILE": folder.path + "/passphrase",
            ],
            folder: folder.path)
        defer { pane.close() }
        try pane.waitFor("ready")
        try pane.press("C-c", until: "ints=")
        #expect(pane.capture().contains("ints=1"), "screen: \(pane.capture())")
    }

    @Test func execBadInput() {
        let runner = seeded()
        let marker = folder.path + "/ran"
        let missing = runner.run(["exec", "--", "authdeck-no-such-command-\(getpid())"])
        #expect(missing.status == 127)
        #expect(missing.stderr.contains("command not found"))
        let notExecutable = folder.write("plain.txt", "echo hi\n")
        let denied = runner.run(["exec", "--", notExecutable])
        #expect(denied.status == 126, "stderr: \(denied.stderr)")
        #expect(runner.run(["exec"]).status == 2)
        #expect(runner.run(["exec", "--env", "9BAD", "--", "/bin/true"]).status == 2)
        #expect(runner.run(["exec", "--env", "A-B", "--", "/bin/true"]).status == 2)
        #expect(runner.run(["exec", "--env", "AUTHDECK_SESSION", "--", "/bin/true"]).status == 2)
        let unknown = runner.run(["exec", "--session", "nope", "--", "/bin/sh", "-c", ": > '\(marker)'"])
        #expect(unknown.status == 7)
        let expired = runner.run(["exec", "--session", "old", "--", "/bin/sh", "-c", ": > '\(marker)'"])
        #expect(expired.status == 1)
        #expect(expired.stderr.contains("expired"))
        #expect(!expired.stderr.contains("AT-old-secret"))
        #expect(!FileManager.default.fileExists(atPath: marker), "the command must not run without a token")
        #expect(runner.run(["store", "lock"]).status == 0)
        let locked = CLIRunner(home: home, extra: ["DBUS_SESSION_BUS_ADDRESS": ""])
            .run(["exec", "--", "/bin/sh", "-c", ": > '\(marker)'"])
        #expect(locked.status == 5)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    // MARK: - env

    @Test(arguments: ["/bin/bash", "/usr/bin/zsh", "/bin/sh"])
    func envEvaluatesInPosixShells(_ shell: String) {
        guard Installed.has(shell) else { return Installed.skip(shell) }
        let runner = seeded()
        let script =
            "eval \"$('\(CLIRunner.binary)' env)\" && "
            + "printf '%s|%s' \"$AUTHDECK_TOKEN\" \"$AUTHDECK_SESSION\""
        let result = runner.run(executable: shell, ["-c", script], environment: ["SHELL": shell])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == Self.awkwardToken + "|work")
    }

    @Test func envEvaluatesInFish() {
        guard Installed.has("/usr/bin/fish") else { return Installed.skip("fish") }
        let runner = seeded()
        let script =
            "'\(CLIRunner.binary)' env --env API_TOKEN other | source; and printf '%s|%s' $API_TOKEN "
            + "$AUTHDECK_SESSION; and '\(CLIRunner.binary)' env work | source; and printf '|%s' $AUTHDECK_TOKEN"
        let result = runner.run(
            executable: "/usr/bin/fish", ["--no-config", "-c", script],
            environment: [
                "SHELL": "/usr/bin/fish", "XDG_CONFIG_HOME": folder.path + "/cfg",
                "XDG_DATA_HOME": folder.path + "/data",
            ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "AT-other|other|" + Self.awkwardToken)
    }

    @Test func envBadInput() {
        let runner = seeded()
        #expect(runner.run(["env", "--shell", "powershell"]).status == 2)
        #expect(runner.run(["env", "--env", "A B"]).status == 2)
        let missing = runner.run(["env", "nope"])
        #expect(missing.status == 7)
        #expect(missing.stdout.isEmpty)
        let expired = runner.run(["env", "old"])
        #expect(expired.status == 1)
        #expect(expired.stdout.isEmpty)
    }
}

/// Expiry times relative to now, written as the store's import format wants them.
enum SessionDates {
    static func iso(secondsFromNow: TimeInterval) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date().addingTimeInterval(secondsFromNow))
    }
}
