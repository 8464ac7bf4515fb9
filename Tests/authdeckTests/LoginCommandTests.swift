import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck login` end to end: the real binary, the real sandbox on 127.0.0.1, a real store (passphrase), and a
/// scripted browser as `$BROWSER` that approves at the sandbox and follows the redirect to the loopback receiver.
@Suite(.serialized) struct LoginCommandTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func login(
        _ arguments: [String], environment: [String: String?] = [:], stdin: String? = nil,
        timeout: TimeInterval = 30
    ) -> CLIRunner.Result {
        runner.run(["login"] + arguments, stdin: stdin, environment: environment, timeout: timeout)
    }

    func listed() throws -> [[String: Any]] { try setup.listed() }

    @Test(arguments: ["google", "apple", "discord", "x", "oidc"])
    func browserSignInStoresTheSession(_ provider: String) throws {
        let result = login([provider])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!key.isEmpty)
        let sessions = try listed()
        let session = try #require(sessions.first { $0["key"] as? String == key })
        #expect(session["provider"] as? String == provider)
        #expect(session["backend"] as? String == "sandbox")
        #expect(session["status"] as? String == "active")
        let token = runner.run(["token", key])
        #expect(token.status == 0)
        #expect(!token.stdout.isEmpty)
        // No token ever reaches stderr.
        #expect(!result.stderr.contains(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func deniedConsentIsTheProvidersRefusal() throws {
        // SPEC section 2, rule 2: access_denied at the provider is exit 4 with its words; exit 3 is a cancel here.
        let result = login(["google"], environment: ["SANDBOX_DECISION": "deny"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("access denied at the provider"))
        #expect(try listed().isEmpty)
    }

    @Test func sessionKeyReplaceAndRefresh() throws {
        #expect(login(["oidc", "--session-key", "work"]).status == 0)
        let taken = login(["oidc", "--session-key", "work"])
        #expect(taken.status == 1, "stderr: \(taken.stderr)")
        #expect(taken.stderr.contains("--replace"))
        #expect(login(["oidc", "--session-key", "work", "--replace"]).status == 0)
        let before = runner.run(["token", "work"]).stdout
        let refreshed = runner.run(["refresh", "work"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let after = runner.run(["token", "work"]).stdout
        #expect(before != after)
        #expect(!after.isEmpty)
    }

    @Test func statusAsksTheServerAndRevokeRemoves() throws {
        #expect(login(["google", "--session-key", "g"]).status == 0)
        let status = runner.run(["status", "g", "--json"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"server\":\"valid\""), "status: \(status.stdout)")
        let revoked = runner.run(["logout", "g", "--revoke"])
        #expect(revoked.status == 0, "stderr: \(revoked.stderr)")
        #expect(try listed().isEmpty)
    }

    @Test func deviceGrantWithTheBrowserApproving() throws {
        let result = login(["google", "--device"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("enter the code"))
        #expect(try listed().count == 1)
    }

    @Test func noBrowserPrintsTheURLAndAQRCode() throws {
        let result = login(["google", "--no-browser", "--timeout", "5"], environment: ["LANG": "C.UTF-8"], stdin: "")
        #expect(result.status == 6, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("/oidc/google/authorize?"))
        #expect(result.stderr.contains("▀") || result.stderr.contains("▄"))
        #expect(try listed().isEmpty)
    }

    /// Under `LANG=C` the QR code is ASCII, as the TUI draws it there: two blanks a module, light ones in reverse
    /// video; zbarimg reads the URL back from it.
    @Test func underLANGCTheQRCodeIsASCIIAndStillReads() throws {
        let result = login(
            ["google", "--no-browser", "--timeout", "5"], environment: ["LANG": "C", "LC_ALL": nil, "LC_CTYPE": nil],
            stdin: "")
        #expect(result.status == 6, "stderr: \(result.stderr)")
        #expect(result.stderr.utf8.allSatisfy { $0 < 0x80 }, "\(result.stderr)")
        // The code's lines: blanks between SGR 7 (light) and SGR 27 (dark), two a module.
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("\u{1B}[7m") }
        var modules: [[Bool]] = []
        for line in lines {
            var row: [Bool] = []
            var light = false
            var rest = Substring(line)
            while !rest.isEmpty {
                if rest.hasPrefix("\u{1B}[7m") {
                    light = true
                    rest = rest.dropFirst(4)
                } else if rest.hasPrefix("\u{1B}[27m") {
                    light = false
                    rest = rest.dropFirst(5)
                } else {
                    if rest.hasPrefix("  ") { row.append(!light) }
                    rest = rest.dropFirst(2)
                }
            }
            modules.append(row)
        }
        #expect(modules.count >= 21 && modules.allSatisfy { $0.count == modules.count })
        guard let decoded = try runner.decodeQR(modules, in: folder, suite: "LoginCommandTests") else { return }
        #expect(decoded.status == 0)
        #expect(decoded.stdout.contains("/oidc/google/authorize?response_type=code"), "zbarimg read: \(decoded.stdout)")
    }

    @Test func ctrlCCancelsWithExit3AndStoresNothing() throws {
        let run = try LiveLogin(runner: runner, arguments: ["login", "google", "--no-browser"], environment: [:])
        #expect(run.wait { run.stderr.contains("paste the final URL") })
        run.interrupt()
        let result = run.finish()
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cancelled"))
        #expect(try listed().isEmpty)
    }

    @Test func tokenRefreshesATokenAboutToExpire() throws {
        // A second sandbox whose access tokens live 10 s: their refresh window is half that, 5 s. Whatever token the
        // first call hands out was issued before it returned, so 6 s later it has at most 4 s left and is refreshed.
        let shortFolder = TemporaryFolder()
        let short = try SandboxProcess(folder: shortFolder, runner: runner, extraArguments: ["--token-lifetime", "10"])
        let environment: [String: String?] = ["AUTHDECK_CONFIG": short.configPath]
        #expect(login(["google", "--session-key", "short"], environment: environment).status == 0)
        let first = runner.run(["token", "short"], environment: environment)
        Thread.sleep(forTimeInterval: 6)
        let second = runner.run(["token", "short"], environment: environment)
        #expect(first.status == 0 && second.status == 0, "stderr: \(first.stderr) \(second.stderr)")
        #expect(!first.stdout.isEmpty && first.stdout != second.stdout)
        #expect(try listed().count == 1)
    }

    @Test func badInputIsAUsageError() throws {
        #expect(login([]).status == 2)
        #expect(login(["myspace"]).status == 2)
        #expect(login(["google", "--listen", "0.0.0.0:8080"]).status == 2)
        #expect(login(["google", "--timeout", "abc"]).status == 2)
        let unknownBackend = login(["google", "--backend", "nope"])
        #expect(unknownBackend.status == 1)
        #expect(unknownBackend.stderr.contains("nope"))
    }
}
