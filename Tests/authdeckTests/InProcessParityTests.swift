import Foundation
import Testing

/// The in-process runner (`CLIRunner.inProcess`) against the real binary: one command line gives the same exit
/// status, stdout and stderr byte for byte, so the suites that run their commands in this process check what users
/// get. The binary is the reference here, never the code under test.
@Suite struct InProcessParityTests {
    let runner: CLIRunner

    init() {
        runner = CLIRunner.passphraseStore()
        let hostile = TokenDeliveryTests.json("ada\u{1b}[2J\u{202e}@example.com")
        let lines =
            TokenDeliveryTests.line("work", token: "AT-work")
            + TokenDeliveryTests.line("old", token: "AT-old", expires: "2001-01-01T00:00:00Z")
            + "{\"key\":\"odd\",\"backend\":\"direct\",\"provider\":\"oidc\",\"subject\":\"s-odd\","
            + "\"email\":\(hostile),\"issuer\":\"https://id.example.com\",\"createdAt\":\"2024-01-02T03:04:05Z\","
            + "\"expiresAt\":\"2099-01-01T00:00:00Z\",\"accessToken\":\"AT-odd\"}\n"
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
    }

    @Test(arguments: [
        [], ["--help"], ["--version"], ["token", "--help"], ["list"], ["list", "--json"], ["token", "work"],
        ["token", "old"], ["token", "nope"], ["use", "old"], ["use", "no such key"], ["totp"], ["totp", "list"],
        ["store", "unlock"], ["\u{1b}[2Jboom"], ["token", "--min-valid", "\u{1b}]0;x\u{7}"],
        ["trace", "show", "/nonexistent/trace.jsonl"], ["--generate", "completions", "bash"],
    ])
    func aCommandSaysTheSameInProcessAsTheBinary(_ words: [String]) {
        let binary = runner.run(words)
        let inProcess = runner.inProcess.run(words)
        #expect(!binary.timedOut && !inProcess.timedOut)
        #expect(inProcess.status == binary.status, "\(words): \(inProcess.stderr) vs \(binary.stderr)")
        #expect(inProcess.stdout == binary.stdout, "\(words)")
        #expect(inProcess.stderr == binary.stderr, "\(words)")
        // What a provider or a command line put there reaches neither output raw.
        #expect(!(inProcess.stdout + inProcess.stderr).contains("\u{1b}"), "\(words)")
    }

    @Test func standardInputReachesTheCommandAsTheBinarysDoes() {
        let bad = "{\"key\":\"fine\",\"accessToken\":\"AT-fine\"}\n{\"key\":\"bad key\",\"accessToken\":\"AT-x\"}\n"
        for (words, input) in [
            (["store", "import", "-"], bad), (["totp", "add", "ada", "--secret", "-"], "not base32!\n"),
            (["totp", "add", "ada", "--secret", "-"], ""),
        ] {
            let binary = runner.run(words, stdin: input)
            let inProcess = runner.inProcess.run(words, stdin: input)
            #expect(inProcess.status == binary.status, "\(words): \(inProcess.stderr) vs \(binary.stderr)")
            #expect(inProcess.stdout == binary.stdout, "\(words)")
            #expect(inProcess.stderr == binary.stderr, "\(words)")
        }
    }
}

/// A command that takes its process over (signal handlers, exec, the terminal, a server until a signal) stops at
/// once when a test runs it in its own process, instead of disturbing the test run.
@Suite struct InProcessRefusalTests {
    @Test(arguments: [
        ["exec", "--", "/bin/true"], ["login", "google"], ["tui"], ["agent", "--allow", "*"], ["sandbox"],
    ])
    func aCommandThatTakesItsProcessOverStopsInProcess(_ words: [String]) async {
        await #expect(processExitsWith: .failure) { [words] in
            let runner = CLIRunner.passphraseStore().inProcess
            _ = runner.run(words)
        }
    }
}
