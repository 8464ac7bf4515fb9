import Foundation
import Testing

/// authdeck as the real clients use it: kubectl running `token --format exec-credential` as its exec plugin against
/// an HTTPS server on 127.0.0.1, and git asking `git-credential` through `git credential fill` and a clone over
/// smart HTTP from a server that requires the token.
@Suite struct ClientProgramTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    func seeded(config: String? = nil) -> CLIRunner {
        var extra = ["HOME": folder.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"]
        if let config { extra["AUTHDECK_CONFIG"] = folder.write("config.json", config) }
        let runner = CLIRunner(home: home, passphraseFile: folder.write("passphrase", "correct horse\n"), extra: extra)
        let lines =
            TokenDeliveryTests.line("kube", token: "AT-kube-1")
            + TokenDeliveryTests.line("git", token: "AT-git-secret")
            + TokenDeliveryTests.line("stale", token: "AT-stale", expires: "2001-01-01T00:00:00Z")
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return runner
    }

    // MARK: - kubectl

    @Test func kubectlSendsTheTokenFromTheExecPlugin() throws {
        guard Installed.has("/usr/bin/kubectl"), Installed.has("/usr/bin/openssl") else {
            return Installed.skip("kubectl or openssl")
        }
        let runner = seeded()
        let cert = folder.path + "/server.crt"
        let key = folder.path + "/server.key"
        let made = runner.run(
            executable: "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
            ])
        #expect(made.status == 0, "openssl: \(made.stderr)")
        let log = folder.path + "/requests.log"
        let server = try ScriptServer(
            fixture: "recording-https.py", arguments: [cert, key, log], folder: folder,
            runner: runner)
        let kubeconfig = folder.write(
            "kubeconfig",
            """
            apiVersion: v1
            kind: Config
            clusters:
            - name: local
              cluster:
                server: https://127.0.0.1:\(server.port)
                certificate-authority: \(cert)
            users:
            - name: authdeck
              user:
                exec:
                  apiVersion: client.authentication.k8s.io/v1beta1
                  command: \(CLIRunner.binary)
                  args: ["token", "--session", "kube", "--format", "exec-credential"]
                  interactiveMode: Never
            contexts:
            - name: local
              context: {cluster: local, user: authdeck}
            current-context: local

            """)
        let result = runner.run(
            executable: "/usr/bin/kubectl",
            ["--kubeconfig", kubeconfig, "get", "--raw", "/api/authdeck-test"], timeout: 60)
        #expect(result.status == 0, "kubectl: \(result.stderr)")
        #expect(result.stdout.contains("recorded"))
        let recorded = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(recorded.contains("/api/authdeck-test Bearer AT-kube-1\n"), "recorded: \(recorded)")
        #expect(!recorded.contains(" -\n"), "every request carried the token")

        // A session that cannot give a token: kubectl fails, and the server never sees a token.
        let stale = kubeconfig + ".stale"
        let text = try String(contentsOfFile: kubeconfig, encoding: .utf8)
            .replacingOccurrences(of: "\"kube\"", with: "\"stale\"")
        FileManager.default.createFile(atPath: stale, contents: Data(text.utf8))
        let failed = runner.run(
            executable: "/usr/bin/kubectl", ["--kubeconfig", stale, "get", "--raw", "/api/again"],
            timeout: 60)
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("expired"), "kubectl: \(failed.stderr)")
        let after = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(!after.contains("/api/again Bearer"))
    }

    // MARK: - git

    static func gitConfig(_ port: Int?) -> String {
        let local = port.map { ",\"127.0.0.1:\($0)\":{\"session\":\"git\"}" } ?? ""
        return "{\"gitCredentials\":{\"git.example.com\":{\"session\":\"git\",\"username\":\"oauth2\"},"
            + "\"plain.example.com\":{\"session\":\"git\"},\"stale.example.com\":{\"session\":\"stale\"}\(local)}}"
    }

    func git(_ runner: CLIRunner, _ arguments: [String], stdin: String? = nil) -> CLIRunner.Result {
        runner.run(
            executable: "/usr/bin/git",
            ["-c", "credential.helper=", "-c", "credential.helper=\(CLIRunner.binary) git-credential"]
                + arguments, stdin: stdin, timeout: 60)
    }

    /// The README's configuration line, run exactly as written by a shell with authdeck on PATH, makes the real
    /// git ask authdeck; the form without `!` makes git look for `git credential-authdeck`, and doctor says so.
    @Test func theReadmesGitHelperLineWorksWithRealGit() throws {
        guard Installed.has("/usr/bin/git") else { return Installed.skip("git") }
        let readme = try String(contentsOfFile: CLIRunner.repositoryRoot + "/README.md", encoding: .utf8)
        let line = try #require(
            readme.split(separator: "\n").map(String.init).first {
                $0.hasPrefix("git config --global credential.helper")
            })
        let runner = seeded(config: Self.gitConfig(nil))
        let path = ["PATH": URL(fileURLWithPath: CLIRunner.binary).deletingLastPathComponent().path + ":/usr/bin:/bin"]
        let configured = runner.run(executable: "/bin/sh", ["-c", line], environment: path)
        #expect(configured.status == 0, "\(line): \(configured.stderr)")
        let input = "protocol=https\nhost=git.example.com\n\n"
        let filled = runner.run(executable: "/usr/bin/git", ["credential", "fill"], stdin: input, environment: path)
        #expect(filled.status == 0, "git: \(filled.stderr)")
        #expect(filled.stdout.contains("username=oauth2\npassword=AT-git-secret\n"))
        #expect(runner.run(["doctor"], environment: path).stdout.contains("OK    git"))
        // The form the README once gave: git runs `git credential-authdeck`, finds nothing, and has no password.
        _ = runner.run(
            executable: "/usr/bin/git", ["config", "--global", "credential.helper", "authdeck git-credential"],
            environment: path)
        let broken = runner.run(executable: "/usr/bin/git", ["credential", "fill"], stdin: input, environment: path)
        #expect(!broken.stdout.contains("AT-git-secret"))
        let doctor = runner.run(["doctor"], environment: path).stdout
        #expect(doctor.contains("WARN  git"), "doctor: \(doctor)")
        #expect(doctor.contains("'!authdeck git-credential'"), "doctor: \(doctor)")
    }

    @Test func gitCredentialFillAnswersMappedHostsOnly() {
        guard Installed.has("/usr/bin/git") else { return Installed.skip("git") }
        let runner = seeded(config: Self.gitConfig(nil))
        let filled = git(runner, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(filled.status == 0, "git: \(filled.stderr)")
        #expect(filled.stdout.contains("username=oauth2\n"))
        #expect(filled.stdout.contains("password=AT-git-secret\n"))
        let defaultUser = git(runner, ["credential", "fill"], stdin: "protocol=https\nhost=plain.example.com\n\n")
        #expect(defaultUser.stdout.contains("username=x-access-token\npassword=AT-git-secret\n"))
        // Unmapped host, plain http to a remote host, a username the map does not name: no answer from authdeck,
        // so git (with prompts off) has no credential at all.
        for input in [
            "protocol=https\nhost=other.example.com\n\n", "protocol=http\nhost=git.example.com\n\n",
            "protocol=https\nhost=git.example.com\nusername=someone\n\n",
        ] {
            let result = git(runner, ["credential", "fill"], stdin: input)
            #expect(result.status != 0, "\(input)")
            #expect(!result.stdout.contains("AT-git-secret"))
        }
        let stale = git(runner, ["credential", "fill"], stdin: "protocol=https\nhost=stale.example.com\n\n")
        #expect(stale.status != 0)
        #expect(stale.stderr.contains("expired"))
        #expect(!stale.stdout.contains("password="))
        // store and erase leave the store as it was.
        let before = runner.run(["list", "--json"]).stdout
        #expect(
            git(
                runner, ["credential", "approve"],
                stdin: "protocol=https\nhost=git.example.com\n"
                    + "username=oauth2\npassword=other\n\n"
            ).status == 0)
        #expect(
            git(
                runner, ["credential", "reject"],
                stdin: "protocol=https\nhost=git.example.com\n"
                    + "username=oauth2\npassword=AT-git-secret\n\n"
            ).status == 0)
        #expect(runner.run(["list", "--json"]).stdout == before)
        #expect(runner.run(["token", "git"]).stdout == "AT-git-secret\n")
        #expect(runner.run(["git-credential", "fetch"], stdin: "").status == 2)
        #expect(
            runner.run(["git-credential", "get", "--host", "h.example.com"], stdin: "host=h.example.com\n")
                .status == 2)
    }

    /// The token's expiry goes with it as `password_expiry_utc` (seconds since 1970, the session's 2099-01-01
    /// counted by date(1)), so a git that knows the attribute (2.41 on) drops the credential when it expires; such
    /// a git echoes it from `git credential fill`, an older one ignores it.
    @Test func gitCredentialSendsTheTokensExpiry() {
        guard Installed.has("/usr/bin/git"), Installed.has("/usr/bin/date") else { return Installed.skip("git") }
        let runner = seeded(config: Self.gitConfig(nil))
        let epoch = runner.run(executable: "/usr/bin/date", ["-u", "-d", "2099-01-01T00:00:00Z", "+%s"]).stdout
        let expected = "password_expiry_utc=" + epoch.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
        let direct = runner.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(direct.stdout == "username=oauth2\npassword=AT-git-secret\n" + expected, "\(direct.stdout)")
        let version = runner.run(executable: "/usr/bin/git", ["version"]).stdout
        let numbers = version.split(separator: " ").last.map { $0.split(separator: ".").compactMap { Int($0) } } ?? []
        guard numbers.count >= 2, (numbers[0], numbers[1]) >= (2, 41) else {
            return print("skipped: \(version.trimmingCharacters(in: .newlines)) predates password_expiry_utc")
        }
        let filled = git(runner, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(filled.stdout.contains(expected), "\(filled.stdout)")
    }

    @Test func gitCredentialRejectsABrokenMap() {
        let runner = seeded(config: "{\"gitCredentials\":{\"git.example.com\":{\"user\":\"x\"}}}")
        let result = runner.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("gitCredentials.git.example.com"))
        #expect(result.stdout.isEmpty)
    }

    /// A newline in a configured username would add lines of git's credential protocol (here a host and
    /// a path) to the answer. The config is refused in one line naming the field; git gets nothing from it.
    @Test func gitCredentialRefusesAControlCharacterInAConfigValue() {
        guard Installed.has("/usr/bin/git") else { return Installed.skip("git") }
        let username = TokenDeliveryTests.json("oauth2\nhost=evil.example.com\npath=injected")
        let runner = seeded(
            config: "{\"gitCredentials\":{\"git.example.com\":{\"session\":\"git\",\"username\":\(username)}}}")
        let filled = git(runner, ["credential", "fill"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(filled.status != 0)
        #expect(!filled.stdout.contains("evil.example.com") && !filled.stdout.contains("injected"), "\(filled.stdout)")
        #expect(!filled.stdout.contains("AT-git-secret"))
        let direct = runner.run(["git-credential", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(direct.status == 1)
        #expect(direct.stdout.isEmpty)
        #expect(direct.stderr.split(separator: "\n").count == 1, "\(direct.stderr)")
        #expect(direct.stderr.contains("gitCredentials.git.example.com.username contains a control character"))
        // The same rule for every command that reads the config, and for --username on the command line.
        #expect(
            runner.run(["login", "--no-browser", "oidc"]).stderr.contains("gitCredentials.git.example.com.username"))
        var clean = runner
        clean.environment["AUTHDECK_CONFIG"] = folder.write("clean.json", Self.gitConfig(nil))
        let option = clean.run(
            ["git-credential", "get", "--host", "h.example.com", "--session", "git", "--username", "a\npassword=x"],
            stdin: "protocol=https\nhost=h.example.com\n\n")
        #expect(option.status == 2 && option.stdout.isEmpty, "\(option.stdout)")
    }

    @Test func gitClonesFromAServerThatRequiresTheToken() throws {
        guard Installed.has("/usr/bin/git") else { return Installed.skip("git") }
        let seedRunner = seeded()
        // A bare repository with one commit, served by `git http-backend`.
        let work = folder.path + "/work"
        let bare = folder.path + "/srv/project.git"
        for step in [
            ["init", "-q", "-b", "main", work],
            [
                "-C", work, "-c", "user.name=t", "-c", "user.email=t@e",
                "commit", "-q", "--allow-empty", "-m", "first",
            ],
            ["clone", "-q", "--bare", work, bare],
        ] {
            let result = seedRunner.run(executable: "/usr/bin/git", step)
            #expect(result.status == 0, "git \(step): \(result.stderr)")
        }
        let credentials = folder.write("credentials", "x-access-token:AT-git-secret\n")
        let log = folder.path + "/git-requests.log"
        let server = try ScriptServer(
            fixture: "git-smart-http.py",
            arguments: [folder.path + "/srv", credentials, log], folder: folder,
            runner: seedRunner)
        var runner = seedRunner
        runner.environment["AUTHDECK_CONFIG"] = folder.write("config.json", Self.gitConfig(server.port))
        let url = "http://127.0.0.1:\(server.port)/project.git"
        let cloned = git(runner, ["clone", "-q", url, folder.path + "/clone"])
        #expect(cloned.status == 0, "clone: \(cloned.stderr)")
        let head = runner.run(executable: "/usr/bin/git", ["-C", folder.path + "/clone", "log", "--format=%s"])
        #expect(head.stdout == "first\n")
        let verdicts = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(verdicts.contains("missing\n") && verdicts.contains("ok\n"), "verdicts: \(verdicts)")
        #expect(!verdicts.contains("wrong"))

        // The server now wants another token: git's fetch fails, git says reject, and the store keeps the session.
        FileManager.default.createFile(atPath: credentials, contents: Data("x-access-token:AT-rotated\n".utf8))
        let fetched = git(runner, ["-C", folder.path + "/clone", "fetch", "-q"])
        #expect(fetched.status != 0)
        #expect(!fetched.stderr.contains("AT-git-secret"))
        #expect(runner.run(["token", "git"]).stdout == "AT-git-secret\n")
    }
}
