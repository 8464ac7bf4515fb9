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
        let result = login(["google", "--no-browser", "--timeout", "5"], stdin: "")
        #expect(result.status == 6, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("/oidc/google/authorize?"))
        #expect(result.stderr.contains("▀") || result.stderr.contains("▄"))
        #expect(try listed().isEmpty)
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
