import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 15 under tmux, the real binary: the first run without a keyring, dumb terminals, and the daily keys.
@Suite(.enabled(if: TmuxPane.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true",
                "tmux is not installed"))
struct TUIDailyUseTmuxTests {
    let folder = TemporaryFolder()
    /// No passphrase file and no session bus: nothing but the screen can give the store a key.
    let runner: CLIRunner

    init() {
        var base = CLIRunner(home: folder.path + "/home", extra: [
            "XDG_RUNTIME_DIR": folder.path + "/run", "AUTHDECK_CONFIG": folder.write("config.json", "{}"),
        ])
        base.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        base.environment["AUTHDECK_PASSPHRASE_FILE"] = nil
        runner = base
    }

    func startTUI(_ extra: [String: String] = [:], term: String = "xterm-256color", cols: Int = 100,
                  rows: Int = 30) throws -> TmuxPane {
        var environment = runner.environment
        environment.merge(extra) { _, new in new }
        return try TmuxPane(command: [CLIRunner.binary, "tui"], environment: environment, folder: folder.path,
                            cols: cols, rows: rows, term: term)
    }

    @Test func aFirstRunChoosesThePassphraseTwiceThenCarriesOnWithTheSignIn() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        let browser = folder.write("browser.sh", """
            #!/bin/sh
            sleep 1
            curl -s -L -o /dev/null "$1&sandbox_user=ada&sandbox_auto=approve"
            """)
        chmod(browser, 0o755)
        let pane = try startTUI(["AUTHDECK_CONFIG": sandbox.configPath, "BROWSER": browser])
        defer { pane.close() }
        try pane.waitFor("Choose a passphrase for the new store.")
        #expect(!pane.capture().contains("store is locked"))
        // Later: the list, then n asks again instead of failing with "the store is locked".
        pane.send("Escape")
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.waitFor("Choose a passphrase for the new store.")
        pane.send("first-try")
        pane.send("Enter")
        try pane.waitFor("Repeat it")
        pane.send("first-tyr")
        pane.send("Enter")
        try pane.waitFor("The two passphrases differ")
        pane.send("plum tree 42")
        pane.send("Enter")
        pane.send("plum tree 42")
        pane.send("Enter")
        // The unlock carries on with what asked for it: the New sign-in screen, not the list.
        try pane.waitFor("Sign in with", timeout: 20)
        pane.send("g")
        try pane.waitFor("Signed in with Google", timeout: 20)
        pane.send("Enter")
        try pane.waitFor("1 session")
        pane.send("q")
        try pane.waitForExit()
        // The key is wrapped by the chosen passphrase: a script with it reads the token, a wrong one cannot.
        let listed = runner.run(["list", "--json"])
        let key = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?
            .first?["key"] as? String)
        _ = runner.run(["store", "lock"])
        let right = runner.run(["token", key], environment: [
            "AUTHDECK_PASSPHRASE_FILE": folder.write("right", "plum tree 42\n")])
        #expect(right.status == 0, "token: \(right.stderr)")
        _ = runner.run(["store", "lock"])
        let wrong = runner.run(["token", key], environment: [
            "AUTHDECK_PASSPHRASE_FILE": folder.write("wrong", "first-try\n")])
        #expect(wrong.status != 0)
    }

    @Test func aDumbTerminalIsRefusedWithAUsageError() throws {
        let pane = try startTUI(term: "dumb")
        defer { pane.close() }
        #expect(pane.exitStatus() == 2)
        let screen = pane.capture()
        #expect(screen.contains("TERM=dumb cannot move the cursor"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/home/sessions.db"))
    }
}
