import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The TUI's event loop sleeps in `poll` until something happens: an idle TUI wakes (next to) never and spends
/// (next to) no CPU, and another process's change still shows without a key press because the store watch wakes
/// the loop. Counts come from /proc with generous bounds; nothing here times anything.
@Suite(.serialized, TmuxPane.required)
struct TUIIdleTmuxTests {
    let runner = CLIRunner.passphraseStore()
    var folder: TemporaryFolder { runner.folder }

    /// Sessions with no expiry, so nothing on screen counts down in seconds.
    func seed(_ count: Int) {
        let lines = (0..<count).map { index in
            "{\"key\":\"idle-\(index)\",\"provider\":\"google\",\"subject\":\"s\(index)\","
                + "\"accessToken\":\"AT-\(index)\"}\n"
        }.joined()
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
    }

    /// The TUI on `count` seeded sessions once it shows them all, and the pid of its process.
    func idleTUI(on count: Int) throws -> (TmuxPane, pid_t) {
        seed(count)
        let pane = try runner.startTUI(in: folder.path)
        do {
            try pane.waitFor("\(count) sessions")
            return (pane, try #require(pane.commandPID()))
        } catch {
            pane.close()
            throw error
        }
    }

    /// The main thread's voluntary context switches (each sleep in `poll` that ended is one) and the process's
    /// user+system CPU in clock ticks.
    static func counters(_ pid: pid_t) -> (wakeups: Int, ticks: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        let wakeups = line.flatMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard let wakeups, fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            return nil
        }
        return (wakeups, user + system)
    }

    @Test func anIdleTUISleepsInsteadOfPolling() throws {
        let (pane, pid) = try idleTUI(on: 3)
        defer { pane.close() }
        // Let the first frame's work settle, then watch for four seconds with no key and no change.
        Thread.sleep(forTimeInterval: 1)
        let before = try #require(Self.counters(pid))
        Thread.sleep(forTimeInterval: 4)
        let after = try #require(Self.counters(pid))
        // A 40 ms key timeout woke the loop ~100 times in four seconds; a sleeping loop wakes at most for the
        // minute of the status bar's clock (and once a second when something counts down, not the case here).
        #expect(after.wakeups - before.wakeups <= 8, "woke \(after.wakeups - before.wakeups) times in 4 s")
        #expect(after.ticks - before.ticks <= 10, "spent \(after.ticks - before.ticks) ticks of CPU in 4 s")
        // A resize wakes the sleeping loop too (SIGWINCH writes to the wake-up pipe): no key is sent.
        pane.resize(cols: 50, rows: 12)
        try pane.waitFor("Terminal too small", timeout: 5)
        pane.resize(cols: 100, rows: 30)
        try pane.waitFor("3 sessions", timeout: 5)
        try pane.quit()
    }

    @Test func anOutsideLogoutShowsWithoutAKeyPress() throws {
        let (pane, pid) = try idleTUI(on: 5)
        defer { pane.close() }
        let before = try #require(Self.counters(pid))
        #expect(runner.run(["logout", "idle-3"]).status == 0)
        try pane.waitFor("4 sessions", timeout: 5)
        #expect(!pane.capture().contains("idle-3"))
        // Another process's import shows too; the loop woke for the writes, not on a timer.
        #expect(
            runner.run(
                ["store", "import", "-"],
                stdin: "{\"key\":\"late\",\"provider\":\"x\",\"subject\":\"l\","
                    + "\"accessToken\":\"AT-late\"}\n"
            ).status == 0)
        try pane.waitFor("late", timeout: 5)
        try pane.waitFor("5 sessions", timeout: 5)
        let after = try #require(Self.counters(pid))
        #expect(after.wakeups - before.wakeups < 60, "woke \(after.wakeups - before.wakeups) times")
        try pane.quit()
    }
}
