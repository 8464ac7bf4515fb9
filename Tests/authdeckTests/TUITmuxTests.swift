import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The whole program under tmux: `authdeck tui` in a 100×30 pane, keys sent with send-keys, the screen read with
/// capture-pane. Skipped only when tmux is missing outside CI.
@Suite(
    TmuxPane.required)
struct TUITmuxTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        runner = CLIRunner.passphraseStore(in: folder)
    }

    /// Three sessions in the store, one selected, imported as JSON lines.
    func seed() {
        let now = Date()
        func iso(_ offset: TimeInterval) -> String {
            let formatter = ISO8601DateFormatter()
            return formatter.string(from: now.addingTimeInterval(offset))
        }
        let lines = [
            ("alpha-google", "google", "ada@example.com", iso(3600), true),
            ("bravo-discord", "discord", "grace@example.com", iso(200), false),
            ("charlie-x", "x", "hopper@example.com", iso(-60), false),
        ].map { key, provider, email, expires, selected in
            "{\"key\":\"\(key)\",\"backend\":\"direct\",\"provider\":\"\(provider)\",\"subject\":\"s-\(key)\","
                + "\"email\":\"\(email)\",\"phone\":null,\"issuer\":\"https://issuer.example\","
                + "\"createdAt\":\"\(iso(-600))\",\"expiresAt\":\"\(expires)\",\"status\":\"active\","
                + "\"refreshable\":false,\"selected\":\(selected),\"accessToken\":\"token-\(key)\"}"
        }
        let file = folder.write("seed.jsonl", lines.joined(separator: "\n") + "\n")
        let result = runner.run(["store", "import", file])
        #expect(result.status == 0, "import: \(result.stderr)")
    }

    func listed() throws -> [[String: Any]] {
        let result = runner.run(["list", "--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    func startTUI(_ extra: [String: String] = [:]) throws -> TmuxPane {
        var environment = runner.environment
        environment.merge(extra) { _, new in new }
        return try TmuxPane(command: [CLIRunner.binary, "tui"], environment: environment, folder: folder.path)
    }

    @Test func moveSelectAndSignOutWithConfirmation() throws {
        seed()
        let pane = try startTUI()
        defer { pane.close() }
        try pane.waitFor("3 sessions")
        let screen = pane.capture()
        #expect(screen.contains("alpha-google") && screen.contains("bravo-discord") && screen.contains("charlie-x"))
        #expect(screen.contains("expiring") && screen.contains("expired"))
        pane.send("Down")
        pane.send("Enter")
        try pane.waitFor("Session bravo-discord")
        pane.send("u")
        try pane.waitFor("Scripts now use bravo-discord by default")
        pane.send("d")
        try pane.waitFor("Sign out of bravo-discord?")
        pane.send("n")
        try pane.waitFor("Nothing was signed out")
        pane.send("d")
        try pane.waitFor("Sign out of bravo-discord?")
        pane.send("y")
        try pane.waitFor("Signed out of bravo-discord")
        try pane.waitFor("2 sessions")
        pane.send("q")
        try pane.waitForExit()
        let sessions = try listed()
        #expect(sessions.map { $0["key"] as? String } == ["alpha-google", "charlie-x"])
        #expect(sessions.allSatisfy { $0["selected"] as? Bool == false })
    }

    @Test func escDuringAwaitingCallbackReturnsToTheListWithNothingStored() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        // A browser that never comes back: the screen waits until Esc.
        let pane = try startTUI(["AUTHDECK_CONFIG": sandbox.configPath, "BROWSER": "/bin/true"])
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.waitFor("Sign in with")
        pane.send("g")
        // The screen says it waits as soon as the sign-in starts; the URL comes once the attempt has begun.
        try pane.waitFor("/oidc/google/authorize?")
        let waiting = pane.capture()
        #expect(waiting.contains("Waiting for the redirect"))
        #expect(waiting.contains("loopback http://127.0.0.1:"))
        #expect(waiting.contains("/oidc/google/authorize?"))
        pane.send("g")  // a second press of the same key starts nothing
        pane.send("Escape")
        try pane.waitFor("Sign-in cancelled; nothing was stored.")
        try pane.waitFor("No sessions yet")
        pane.send("n")
        pane.send("e")
        try pane.waitFor("Which address should the code go to?")
        pane.send("Escape")
        pane.send("Escape")
        try pane.waitFor("No sessions yet")
        pane.send("q")
        try pane.waitForExit()
        #expect(try listed().isEmpty)
    }

    @Test func aBrowserSignInAgainstTheSandboxShowsTheWaitThenTheNewSession() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        let browser = folder.write(
            "browser.sh",
            """
            #!/bin/sh
            sleep 1
            curl -s -L -o /dev/null "$1&sandbox_user=ada&sandbox_auto=approve"
            """)
        chmod(browser, 0o755)
        let pane = try startTUI(["AUTHDECK_CONFIG": sandbox.configPath, "BROWSER": browser])
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        pane.send("g")
        try pane.waitFor("Waiting for the redirect from the browser")
        try pane.waitFor("Signed in with Google", timeout: 20)
        pane.send("Enter")
        try pane.waitFor("1 session")
        #expect(pane.capture().contains("google-ada"))
        pane.send("t")
        try pane.waitFor("POST http://127.0.0.1:")
        pane.send("Escape")
        pane.send("q")
        try pane.waitForExit()
        let sessions = try listed()
        #expect(sessions.count == 1)
        #expect((sessions.first?["key"] as? String)?.hasPrefix("google-ada") == true)
    }

    /// A Portal sign-in (its redirect carries no state) stops at a dialog naming the account it
    /// signs in; n stores nothing, y stores the session.
    @Test func aPortalSessionIsStoredOnlyAfterKeepInTheDialog() throws {
        let setup = try SandboxLoginSetup()
        let pane = try TmuxPane(
            command: [CLIRunner.binary, "tui"], environment: setup.runner.environment, folder: setup.folder.path)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        for answer in ["n", "y"] {
            pane.send("n")
            try pane.waitFor("Backend")
            for _ in 0..<8 where !pane.capture().contains("‹ sandbox-portal ›") { pane.send("b") }
            pane.send("g")
            try pane.waitFor("Keep this session?", timeout: 20)
            // Portal names the account by its id alone when no TOTP enrolment link named it.
            let screen = pane.capture()
            #expect(screen.contains("The browser came back signed in as ") && screen.contains("sandbox-portal)."))
            #expect(try setup.listed().isEmpty)
            pane.send(answer)
            try pane.waitFor(answer == "y" ? "Signed in with Google" : "Sign-in cancelled")
            pane.send("Enter")
        }
        try pane.waitFor("1 session")
        pane.send("q")
        try pane.waitForExit()
        #expect(try setup.listed().map { $0["backend"] as? String } == ["sandbox-portal"])
    }

    @Test func anEmailCodeTypedOnScreenThenATOTPCodeSignIn() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        let pane = try startTUI(["AUTHDECK_CONFIG": sandbox.configPath])
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        // Ada: email, code from the outbox typed into the digit boxes.
        pane.send("n")
        pane.send("e")
        try pane.waitFor("Which address should the code go to?")
        pane.send("ada@example.com")
        pane.send("Enter")
        try pane.waitFor("A code was sent to ada@example.com.")
        #expect(pane.capture().contains("Resend in 0:"))
        let adaCode = try #require(sandbox.codes().last { $0.contact == "ada@example.com" }?.code)
        pane.send(adaCode)
        pane.send("Enter")
        try pane.waitFor("Signed in with Email code as ada@example.com")
        pane.send("Enter")
        try pane.waitFor("1 session")
        // Dora: email code, then the TOTP screen; a wrong code keeps it with one attempt less, the right one signs in.
        pane.send("n")
        pane.send("e")
        try pane.waitFor("Which address should the code go to?")
        pane.send("dora@example.com")
        pane.send("Enter")
        try pane.waitFor("A code was sent to dora@example.com.")
        let doraCode = try #require(sandbox.codes().last { $0.contact == "dora@example.com" }?.code)
        pane.send(doraCode)
        pane.send("Enter")
        try pane.waitFor("needs a TOTP code")
        #expect(!pane.capture().contains("JBSWY3DPEHPK3PXP"))  // the enrolment secret is never shown as text
        let secret = Base32.decode("JBSWY3DPEHPK3PXP") ?? []
        let right = TOTP.code(secret: secret, time: Int64(Date().timeIntervalSince1970))
        let wrong = String(right.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
        pane.send(wrong)
        pane.send("Enter")
        try pane.waitFor("That code is not valid.")
        try pane.waitFor("attempts left")
        pane.send(TOTP.code(secret: secret, time: Int64(Date().timeIntervalSince1970)))
        pane.send("Enter")
        try pane.waitFor("Signed in with Email code as dora@example.com")
        pane.send("Enter")
        try pane.waitFor("2 sessions")
        pane.send("q")
        try pane.waitForExit()
        #expect(try listed().count == 2)
    }

    @Test func aResizeStormAndATinyPaneKeepTheProgramAlive() throws {
        seed()
        let pane = try startTUI()
        defer { pane.close() }
        try pane.waitFor("3 sessions")
        for (cols, rows) in [(40, 10), (120, 40), (59, 15), (100, 30), (61, 17), (100, 30)] {
            pane.resize(cols: cols, rows: rows)
        }
        pane.resize(cols: 50, rows: 12)
        try pane.waitFor("Terminal too small")
        pane.resize(cols: 100, rows: 30)
        try pane.waitFor("3 sessions")
        pane.send("C-c")
        try pane.waitForExit()
    }
}

/// One tmux pane on a private tmux server (its own socket), running a command until closed.
final class TmuxPane: @unchecked Sendable {
    static let isAvailable: Bool = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The trait of every tmux suite: it runs where tmux is installed, and always in CI (where a missing tmux is a
    /// failure, not a skip).
    static var required: ConditionTrait {
        .enabled(if: isAvailable || ProcessInfo.processInfo.environment["CI"] == "true", "tmux is not installed")
    }

    private let socket: String
    private let marker: String

    init(
        command: [String], environment: [String: String], folder: String, cols: Int = 100, rows: Int = 30,
        term: String = "xterm-256color"
    ) throws {
        socket = folder + "/tmux.sock"
        marker = folder + "/exited"
        // The pane's shell line: the environment, the command, then a marker file that says it exited.
        let quoted =
            (["env", "-i"] + environment.map { "\($0.key)=\($0.value)" }.sorted() + ["TERM=" + term]
            + command).map(Self.quote).joined(separator: " ")
        let line = quoted + "; echo $? > " + Self.quote(marker) + "; sleep 30"
        let status = Self.tmux(["-S", socket, "new-session", "-d", "-x", "\(cols)", "-y", "\(rows)", line])
        guard status == 0 else { throw CLIFailure("tmux new-session failed (\(status))") }
    }

    func send(_ key: String) {
        _ = Self.tmux(["-S", socket, "send-keys", "-t", "0", key])
        Thread.sleep(forTimeInterval: 0.15)
    }

    func resize(cols: Int, rows: Int) {
        _ = Self.tmux(["-S", socket, "resize-window", "-t", "0", "-x", "\(cols)", "-y", "\(rows)"])
        Thread.sleep(forTimeInterval: 0.1)
    }

    func capture() -> String {
        Self.tmuxOutput(["-S", socket, "capture-pane", "-p", "-t", "0"])
    }

    /// Waits until the pane shows `text`; fails with the screen as it was.
    func waitFor(
        _ text: String, timeout: TimeInterval = 10,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = ""
        while Date() < deadline {
            screen = capture()
            if screen.contains(text) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the pane never showed “\(text)”; it showed:\n\(screen)", sourceLocation: sourceLocation)
        throw CLIFailure("timed out waiting for \(text)")
    }

    /// Waits for the program to end and checks it left with status 0 and the terminal restored.
    func waitForExit(timeout: TimeInterval = 10, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = try? String(contentsOfFile: marker, encoding: .utf8) {
                #expect(status.trimmingCharacters(in: .whitespacesAndNewlines) == "0", sourceLocation: sourceLocation)
                // Curses left the alternate screen: what the TUI drew is gone from the pane.
                #expect(!capture().contains("authdeck ·"), sourceLocation: sourceLocation)
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("authdeck tui did not exit", sourceLocation: sourceLocation)
        throw CLIFailure("authdeck tui did not exit")
    }

    func close() {
        _ = Self.tmux(["-S", socket, "kill-server"])
    }

    /// The command's exit status once it ended, waiting up to `timeout`; nil if it is still running.
    func exitStatus(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: marker, encoding: .utf8), text.hasSuffix("\n") {
                return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// The pid of the pane's command (the shell line's first child: `env`, which became the program), or nil.
    func commandPID() -> pid_t? {
        guard
            let shell = pid_t(
                Self.tmuxOutput(["-S", socket, "display-message", "-p", "-t", "0", "#{pane_pid}"])
                    .trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t(String($0)) }
    }

    /// Runs a tmux command on this pane's server (`set -s set-clipboard on`).
    func tmuxCommand(_ arguments: [String]) {
        _ = Self.tmux(["-S", socket] + arguments)
    }

    /// The screen with wrapped lines joined (`capture-pane -J`), as a mouse copy in tmux would take them.
    func captureJoined() -> String {
        Self.tmuxOutput(["-S", socket, "capture-pane", "-p", "-J", "-t", "0"])
    }

    /// The newest paste buffer: what an OSC 52 copy put there when `set-clipboard` is on.
    func pasteBuffer() -> String {
        Self.tmuxOutput(["-S", socket, "show-buffer"])
    }

    /// Sends raw bytes to the pane as if the terminal produced them (mouse reports, escape sequences).
    func sendRaw(_ hex: [UInt8]) {
        _ = Self.tmux(["-S", socket, "send-keys", "-t", "0", "-H"] + hex.map { String(format: "%02x", $0) })
        Thread.sleep(forTimeInterval: 0.15)
    }

    private static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @discardableResult
    private static func tmux(_ arguments: [String]) -> Int32 {
        spawn(["tmux"] + arguments, output: "/dev/null")
    }

    private static func tmuxOutput(_ arguments: [String]) -> String {
        let file = "/tmp/authdeck-tmux-capture-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(file) }
        guard spawn(["tmux"] + arguments, output: file) == 0 else { return "" }
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    /// posix_spawn and waitpid: Foundation's Process can wait for ever on a tmux client whose server (a daemon it
    /// forked) keeps running, so the pane is driven without it.
    private static func spawn(_ arguments: [String], output: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test runner's threads block signals; tmux and the TUI under it must get SIGTERM and SIGINT as usual.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
