import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The lean `authdeck token` answers a repeated call from the kernel keyring (TokenCache) without opening the
/// database, as strace (a tracer nobody here wrote) counts, and every change since, by authdeck or by SQLite's own
/// shell, is answered from the database again.
@Suite struct TokenCacheCLITests {
    let folder = TemporaryFolder()

    /// The paths of the store's files `arguments` opened, as strace saw them, and what the command printed.
    func traced(_ runner: CLIRunner, _ arguments: [String]) -> (opened: [String], stdout: String, status: Int32) {
        let log = folder.path + "/strace-\(UUID().uuidString).log"
        let result = runner.run(
            executable: "/usr/bin/strace",
            ["-f", "-qq", "-e", "trace=open,openat", "-o", log, CLIRunner.binary] + arguments)
        let lines = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let opened = lines.split(separator: "\n").filter { $0.contains("sessions.db") && !$0.contains("ENOENT") }
        return (opened.map(String.init), result.stdout, result.status)
    }

    @Test func aRepeatedTokenOpensNoDatabaseUntilTheStoreChanges() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            print("skipped: strace is not installed (make setup installs it)")
            return
        }
        guard CLIRunner.kernelKeyringWorks else {
            print("skipped: the kernel keyring (keyctl show @u) is unavailable here, so nothing can be cached")
            return
        }
        let passphrase = folder.write("pass", "token cache passphrase\n")
        let runner = CLIRunner(home: folder.path + "/home", passphraseFile: passphrase)
        let lines =
            "{\"key\":\"tc-a\",\"provider\":\"google\",\"accessToken\":\"AT-a-1\"}\n"
            + "{\"key\":\"tc-b\",\"provider\":\"google\",\"accessToken\":\"AT-b-1\"}\n"
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        // Unlocks, caches the key and, answering through the same read as the lean binary, leaves a copy.
        #expect(runner.run(["token"]).stdout == "AT-a-1\n")
        let cached = traced(runner, ["token"])
        guard cached.status == 0 else {
            print("skipped: strace cannot trace here (ptrace refused?): exit \(cached.status)")
            return
        }
        #expect(cached.stdout == "AT-a-1\n")
        #expect(cached.opened.isEmpty, "a cached token opened \(cached.opened)")

        // A new token for the session: read from the database again, the new one.
        let replaced = "{\"key\":\"tc-a\",\"provider\":\"google\",\"accessToken\":\"AT-a-2\"}\n"
        #expect(runner.run(["store", "import", "--replace", "-"], stdin: replaced).status == 0)
        let afterImport = traced(runner, ["token"])
        #expect(afterImport.stdout == "AT-a-2\n")
        #expect(!afterImport.opened.isEmpty, "strace saw no open of the database: is it tracing?")
        #expect(traced(runner, ["token"]).opened.isEmpty)
        // Another session selected.
        #expect(runner.run(["use", "tc-b"]).status == 0)
        #expect(runner.run(["token"]).stdout == "AT-b-1\n")
        #expect(runner.run(["token"]).stdout == "AT-b-1\n")
        // Deleted by SQLite's own shell, not by authdeck: not answered from the copy.
        let shell = runner.run(
            executable: "/usr/bin/sqlite3",
            [folder.path + "/home/sessions.db", "DELETE FROM sessions WHERE key = 'tc-b'"])
        #expect(shell.status == 0, "\(shell.stderr)")
        let gone = runner.run(["token", "tc-b"])
        #expect(gone.status != 0 && gone.stdout.isEmpty, "the deleted session's token was answered: \(gone.stdout)")
        // Signed out through authdeck.
        #expect(runner.run(["token", "tc-a"]).stdout == "AT-a-2\n")
        #expect(runner.run(["token", "tc-a"]).stdout == "AT-a-2\n")
        #expect(runner.run(["logout", "tc-a"]).status == 0)
        #expect(runner.run(["token", "tc-a"]).status != 0)
    }
}
