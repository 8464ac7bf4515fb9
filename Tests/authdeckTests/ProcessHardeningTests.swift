import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A running authdeck is not dumpable and has no core limit, so neither a crash nor another
/// process of the same user can read the master key out of it.
@Suite struct ProcessHardeningTests {
    /// The kernel hands /proc/PID of a non-dumpable process to root; of a dumpable one, to the process's user. So a
    /// command run as `nobody` shows which it is through the owner of its /proc entry.
    @Test func aRunningCommandIsNotDumpableAndWritesNoCore() throws {
        guard try OtherUser.available() else { return }
        let folder = TemporaryFolder()
        OtherUser.own(folder.path)
        let runner = CLIRunner(home: folder.path + "/home", extra: ["HOME": folder.path])
        let output = folder.path + "/sandbox.out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        OtherUser.own(output)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        // `sandbox` waits until stopped; it goes through the lean binary and is exec'd into authdeck-full.
        let process = try runner.start(
            executable: OtherUser.setpriv,
            OtherUser.wrap([CLIRunner.binary, "sandbox", "--port", "0"]), stdout: handle)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var started = false
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: output, encoding: .utf8), text.contains("\n") {
                started = true
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(started, "the sandbox did not start as nobody")
        var info = stat()
        try #require(stat("/proc/\(process.processIdentifier)/status", &info) == 0)
        #expect(info.st_uid == 0, "/proc/PID is owned by uid \(info.st_uid): the process is still dumpable")
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        let fields = core.map { $0.split(separator: " ", omittingEmptySubsequences: true) } ?? []
        #expect(fields.count >= 6 && fields[4] == "0" && fields[5] == "0", "core limit: \(core ?? "none")")
    }

    /// The Swift runtime's crash report prints every register with the memory it points at, key and token
    /// bytes among them, and a non-dumpable process still serves it its own memory. A running authdeck (the lean
    /// binary exec'd into authdeck-full) killed with SIGSEGV dies of the signal and prints no report.
    @Test func aCrashPrintsNoRegistersOrMemory() throws {
        let folder = TemporaryFolder()
        let runner = CLIRunner(home: folder.path + "/home")
        let script = """
            "$1" sandbox --port 0 > "$2" &
            pid=$!
            i=0
            while [ ! -s "$2" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
            kill -SEGV $pid
            wait $pid
            echo "status=$?"
            """
        let result = runner.run(
            executable: "/bin/sh", ["-c", script, "sh", CLIRunner.binary, folder.path + "/sandbox.out"],
            environment: ["SWIFT_BACKTRACE": nil], timeout: 60)
        #expect(result.stdout == "status=139\n", "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("authdeck sandbox: listening on http://127.0.0.1:"), "stderr: \(result.stderr)")
        for word in ["Backtracing", "crashed", "Registers", "rip 0x", "rsp 0x"] {
            #expect(!result.stderr.contains(word), "stderr: \(result.stderr)")
        }
    }
}
