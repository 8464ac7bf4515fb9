import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The store as scripts share it: refreshes serialised across processes, keys that keep their identity, one key
/// rule at every entry point, export and import that give every session back, and the many-session commands.
@Suite struct SharedStoreTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    func runner(home: String? = nil) -> CLIRunner {
        let file = folder.write("passphrase", "correct horse battery staple\n")
        var runner = CLIRunner(
            home: home ?? self.home,
            extra: [
                "AUTHDECK_PASSPHRASE_FILE": file,
                "XDG_RUNTIME_DIR": folder.path + "/run",
            ])
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return runner
    }

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func line(_ key: String, backend: String = "direct", extra: String = "") -> String {
        "{\"key\":\"\(key)\",\"backend\":\"\(backend)\",\"provider\":\"google\",\"subject\":\"s-\(key)\","
            + "\"issuer\":\"https://issuer.example\",\"accessToken\":\"AT-\(key)\"\(extra)}\n"
    }

    func listedKeys(_ runner: CLIRunner) -> [String] {
        let result = runner.run(["list", "--json"])
        let array = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []
        return array.compactMap { $0["key"] as? String }
    }

    // MARK: - Refresh, once

    /// A token endpoint nobody on this project wrote the client for: Python, rotating refresh tokens and counting
    /// reuse. Eight `token` calls started together on a token about to expire send one refresh and agree.
    @Test func eightParallelTokenCallsRefreshOnce() throws {
        let server = try TokenServer(folder: folder, firstRefreshToken: "RT-0")
        defer { server.stop() }
        let runner = runner()
        let expires = Self.iso(Date().addingTimeInterval(20))
        let endpoints = ",\"endpoints\":{\"clientID\":\"cli\",\"token\":\"\(server.baseURL)/token\"}"
        let line =
            "{\"key\":\"soon\",\"provider\":\"oidc\",\"subject\":\"u1\",\"issuer\":\"\(server.baseURL)\","
            + "\"expiresAt\":\"\(expires)\",\"accessToken\":\"AT-0\",\"refreshToken\":\"RT-0\"\(endpoints)}\n"
        #expect(runner.run(["store", "import", "-"], stdin: line).status == 0)
        let script = """
            for i in 1 2 3 4 5 6 7 8; do "$AUTHDECK_BIN" token soon > "$1/out.$i" 2> "$1/err.$i" & done; wait
            """
        _ = runner.run(executable: "/bin/bash", ["-c", script, "bash", folder.path], timeout: 60)
        var outputs: [String] = []
        for index in 1...8 {
            outputs.append(String(decoding: folder.bytes("out.\(index)") ?? [], as: UTF8.self))
            let errors = String(decoding: folder.bytes("err.\(index)") ?? [], as: UTF8.self)
            #expect(errors.isEmpty, "token \(index): \(errors)")
        }
        #expect(outputs == Array(repeating: "AT-1\n", count: 8))
        let stats = try server.stats()
        #expect(stats.refreshes == 1)
        #expect(stats.reused == 0)
        // The rotated refresh token was kept: the next refresh uses RT-1 and is accepted.
        #expect(runner.run(["refresh", "soon"]).status == 0)
        #expect(try server.stats().refreshes == 2)
        #expect(try server.stats().reused == 0)
    }

    // MARK: - The key rule at every entry point

    @Test func aBadKeyIsAUsageErrorEverywhereAndNothingFallsThrough() throws {
        let runner = runner()
        #expect(runner.run(["store", "import", "-"], stdin: Self.line("good")).status == 0)
        let before = listedKeys(runner)
        let login = runner.run(["login", "google", "--session-key", "has space"])
        #expect(login.status == 2 && login.stderr.contains("whitespace"), "\(login.stderr)")
        for bad in ["has space", "tab\\there", "nul\\u0000byte", "bidi\\u202Eoverride", ""] {
            let imported = runner.run(
                ["store", "import", "-"],
                stdin: "{\"key\":\"\(bad)\",\"accessToken\":\"AT-bad\"}\n")
            #expect(imported.status == 2, "import of \(bad): \(imported.stderr)")
        }
        #expect(listedKeys(runner) == before)
        #expect(runner.run(["use", "has space"]).status == 2)
        let here = folder.path + "/project"
        mkdir(here, 0o755)
        let useHere = runner.run(
            executable: "/bin/bash",
            [
                "-c", "cd \"$1\" && \"$AUTHDECK_BIN\" use --here 'a b'",
                "bash", here,
            ])
        #expect(useHere.status == 2)
        #expect(access(here + "/.authdeck-session", F_OK) != 0)
        // A directory file naming a bad key stops the command: it never falls through to the selected session.
        FileManager.default.createFile(atPath: here + "/.authdeck-session", contents: Data("has space\n".utf8))
        let token = runner.run(executable: "/bin/bash", ["-c", "cd \"$1\" && \"$AUTHDECK_BIN\" token", "bash", here])
        #expect(token.status == 2, "\(token.stderr)")
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains(".authdeck-session"))
        let environment = runner.run(["token"], environment: ["AUTHDECK_SESSION": "has space"])
        #expect(environment.status == 2 && environment.stdout.isEmpty)
        let option = runner.run(["token", "--session", "has\u{1B}[31mred"])
        #expect(option.status == 2 && option.stdout.isEmpty)
        #expect(!option.stderr.contains("\u{1B}"))
        #expect(runner.run(["token"]).stdout == "AT-good\n")
    }

    // MARK: - Many sessions at once

    @Test func logoutAllAsksOnATerminalAndExpiredTakesOnlyTheUnusable() throws {
        let runner = runner()
        let past = Self.iso(Date().addingTimeInterval(-600))
        let future = Self.iso(Date().addingTimeInterval(3600))
        let lines =
            Self.line("live", extra: ",\"expiresAt\":\"\(future)\"")
            + Self.line("dead", extra: ",\"expiresAt\":\"\(past)\"")
            + Self.line("renewable", extra: ",\"expiresAt\":\"\(past)\",\"refreshToken\":\"RT\"")
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        // On a terminal (script(1) gives it one) the answer "n" removes nothing.
        let asked = runner.run(
            executable: "/usr/bin/script",
            ["-qec", "\"$AUTHDECK_BIN\" logout --all", "/dev/null"], stdin: "n\n")
        #expect(asked.status == 3, "\(asked.stdout) \(asked.stderr)")
        #expect(asked.stdout.contains("remove 3 sessions?"))
        #expect(listedKeys(runner).count == 3)
        let expired = runner.run(["logout", "--expired"])
        #expect(expired.status == 0)
        #expect(expired.stderr.contains("removed 1 expired session"))
        #expect(listedKeys(runner) == ["live", "renewable"])
        #expect(runner.run(["logout", "--all", "--expired"]).status == 2)
        let all = runner.run(
            executable: "/usr/bin/script",
            ["-qec", "\"$AUTHDECK_BIN\" logout --all --yes", "/dev/null"], stdin: "")
        #expect(all.status == 0, "\(all.stdout)")
        #expect(listedKeys(runner).isEmpty)
    }

    @Test func refreshAllEndsWithOneSummaryLine() throws {
        let server = try TokenServer(folder: folder, firstRefreshToken: "RT-0")
        defer { server.stop() }
        let runner = runner()
        let endpoints = ",\"endpoints\":{\"clientID\":\"cli\",\"token\":\"\(server.baseURL)/token\"}"
        let lines =
            Self.line("plain") + Self.line("renewable", extra: ",\"refreshToken\":\"RT-0\"\(endpoints)")
            + Self.line("broken", extra: ",\"refreshToken\":\"RT-unknown\"\(endpoints)")
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        let result = runner.run(["refresh", "--all"])
        #expect(result.status == 1)
        let last = result.stderr.split(separator: "\n").last.map(String.init)
        #expect(last == "refreshed 1, skipped 1 (1 no refresh token), failed 1", "\(result.stderr)")
    }

    // MARK: - Export and import

    @Test func exportThenImportGivesEverySessionBackAsItWas() throws {
        let setup = try SandboxLoginSetup()
        var source = setup.runner
        #expect(source.run(["login", "google"]).status == 0)
        #expect(source.run(["login", "discord", "--session-key", "lab"]).status == 0)
        let auto = Self.line("auto", extra: ",\"scopes\":[\"openid\",\"email\"],\"autoRefresh\":true")
        #expect(source.run(["store", "import", "-"], stdin: auto).status == 0)
        #expect(source.run(["use", "lab"]).status == 0)
        #expect(
            source.run(["totp", "add", "dora@example.com", "--secret", "-"], stdin: "JBSWY3DPEHPK3PXP\n").status == 0)
        // Both homes seal and open bundles with this passphrase.
        source.environment["AUTHDECK_EXPORT_PASSPHRASE_FILE"] = folder.write("bundle-passphrase", "bundle words\n")
        let bundle = folder.path + "/backup.bundle"
        let exported = source.run(["store", "export", bundle])
        #expect(exported.status == 0, "\(exported.stderr)")

        var target = source
        target.environment["AUTHDECK_HOME"] = folder.path + "/other-home"
        let imported = target.run(["store", "import", bundle])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("imported 3 sessions, 1 TOTP seed"))
        let before = source.run(["list", "--json"]).stdout
        let after = target.run(["list", "--json"]).stdout
        #expect(after == before)
        #expect(after.contains("\"key\":\"lab\"") && after.contains("\"selected\":true"))
        #expect(
            target.run(["totp", "code", "dora@example.com"]).stdout
                == source.run(["totp", "code", "dora@example.com"]).stdout)
        let detail = target.run(["store", "export", "-"])
        #expect(detail.status == 0)
        // Refresh and revoke work in the new home: the endpoints travelled with the sessions.
        let google = try #require(listedKeys(target).first { $0.hasPrefix("google-") })
        let refreshed = target.run(["refresh", google])
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        let revoked = target.run(["logout", google, "--revoke"])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        // Again, skipping what is there: nothing changes, and it says so; without a flag the taken key fails.
        let again = target.run(["store", "import", bundle, "--skip-existing"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("imported 1 session, skipped 2 whose key is taken"))
        let refused = target.run(["store", "import", bundle])
        #expect(refused.status == 1)
    }

    @Test func importWarnsOfBackendsThisMachineDoesNotConfigure() throws {
        let runner = runner()
        let result = runner.run(
            ["store", "import", "-"], stdin: Self.line("far", backend: "corp-proxy"),
            environment: ["AUTHDECK_CONFIG": folder.write("config.json", "{}")])
        #expect(result.status == 0)
        #expect(result.stderr.contains("backend 'corp-proxy' is not configured here"))
    }

    // MARK: - Identities

    /// The same person through two backends, and through two issuers: two sessions, the selection unchanged, and
    /// the second sign-in says which key it took.
    @Test func theSameEmailThroughAnotherBackendOrIssuerIsAnotherSession() throws {
        let setup = try SandboxLoginSetup()
        let runner = setup.runner
        let first = runner.run(["login", "google"])
        #expect(first.status == 0, "\(first.stderr)")
        let key = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let token = runner.run(["token"]).stdout
        let second = runner.run(["login", "google", "--backend", "sandbox-turnkey"])
        #expect(second.status == 0, "\(second.stderr)")
        let secondKey = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secondKey == key + "-2")
        #expect(second.stderr.contains("stored as '\(secondKey)'"))
        // The same person at the same provider: not "another account's".
        #expect(
            second.stderr.contains("'\(key)' is this account's session on backend 'sandbox'; stored as '\(secondKey)'"),
            "\(second.stderr)")
        #expect(runner.run(["token"]).stdout == token)
        let third = runner.run(["login", "oidc"])
        #expect(third.status == 0, "\(third.stderr)")
        // The same provider name at another issuer: a config whose `oidc` is the sandbox's Google profile.
        let data = try Data(contentsOf: URL(fileURLWithPath: setup.sandbox.configPath))
        var config = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var providers = try #require(config["providers"] as? [String: Any])
        providers["oidc"] = providers["google"]
        config["providers"] = providers
        let otherIssuer = folder.path + "/other-issuer.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: otherIssuer))
        let fourth = runner.run(["login", "oidc"], environment: ["AUTHDECK_CONFIG": otherIssuer])
        #expect(fourth.status == 0, "\(fourth.stderr)")
        let thirdKey = third.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(fourth.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == thirdKey + "-2")
        #expect(listedKeys(runner).count == 4, "\(listedKeys(runner))")
        // A re-login of the first replaces it, and nothing else.
        #expect(runner.run(["login", "google"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == key)
        #expect(listedKeys(runner).count == 4)
        #expect(runner.run(["list", "--json"]).stdout.contains("\"key\":\"\(key)\""))
    }
}

/// `rotating-token-server.py`, started for one test and stopped by closing its standard input.
final class TokenServer: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    let baseURL: String

    init(folder: TemporaryFolder, firstRefreshToken: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/rotating-token-server.py",
            firstRefreshToken,
        ]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw CLIFailure("the token server printed no port")
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    /// The server's counters, fetched by Python's urllib (the tests link no HTTP client of their own).
    func stats() throws -> (refreshes: Int, reused: Int) {
        let fetch = CLIRunner(home: "/nonexistent").run(
            executable: "/usr/bin/python3",
            [
                "-c",
                "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())",
                baseURL + "/stats",
            ])
        guard fetch.status == 0 else { throw CLIFailure("the token server's stats: \(fetch.stderr)") }
        let object = try JSONSerialization.jsonObject(with: Data(fetch.stdout.utf8)) as? [String: Int] ?? [:]
        return (object["refreshes"] ?? -1, object["reused"] ?? -1)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
