import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Sends `key`, then waits until the pane shows `text` as `waitFor` does.
    func press(
        _ key: String, until text: String, timeout: TimeInterval = 10,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        send(key)
        try waitFor(text, timeout: timeout, sourceLocation: sourceLocation)
    }

    /// Types `text`, presses Enter, then waits until the pane shows `shown` as `waitFor` does.
    func submit(
        _ text: String, until shown: String, timeout: TimeInterval = 10,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        send(text)
        try press("Enter", until: shown, timeout: timeout, sourceLocation: sourceLocation)
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

    /// Presses `key` (q quits the TUI) and waits for the program to end as `waitForExit` does.
    func quit(
        with key: String = "q", timeout: TimeInterval = 10, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        send(key)
        try waitForExit(timeout: timeout, sourceLocation: sourceLocation)
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

    /// The screen with its attributes as escape sequences (`capture-pane -e`): reverse video shows as `ESC[7m`.
    /// Trailing blanks are kept (`-N`): a reversed blank at the end of a row is drawn, not empty.
    func captureStyled() -> String {
        Self.tmuxOutput(["-S", socket, "capture-pane", "-p", "-e", "-N", "-t", "0"])
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
