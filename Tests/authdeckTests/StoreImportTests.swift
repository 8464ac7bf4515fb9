import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `store import` against files Python's json.dumps wrote (Fixtures/import-lines.py), large enough for the bulk
/// path (indexes built after the rows, a larger page cache): what `list --json` and `token` answer is what Python
/// wrote, and a failed import leaves the store as it was. The commands run in this process
/// (`CLIRunner.inProcess`), the refusal of two selected lines also through the real binary.
@Suite struct StoreImportTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }
    static let script = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/import-lines.py"

    func runner() -> CLIRunner {
        let passphrase = folder.write("passphrase", "import passphrase\n")
        return CLIRunner(home: home, passphraseFile: passphrase).inProcess
    }

    /// Writes `count` plain sessions after the odd ones; returns the lines file and Python's expectations.
    func pythonFile(_ name: String, count: Int, badLine: Int? = nil) throws -> (lines: String, expected: String) {
        let lines = folder.path + "/\(name).jsonl"
        let expected = folder.path + "/\(name).expected.json"
        let arguments = [Self.script, String(count), lines, expected] + (badLine.map { [String($0)] } ?? [])
        let made = runner().run(executable: "/usr/bin/python3", arguments)
        try #require(made.status == 0, "import-lines.py: \(made.stderr)")
        return (lines, expected)
    }

    /// The store's indexes and triggers as SQLite lists them (name and definition), and its integrity check.
    func schema(_ runner: CLIRunner, home: String? = nil) -> (indexes: String, integrity: String) {
        let database = (home ?? self.home) + "/sessions.db"
        let indexes = runner.run(
            executable: "/usr/bin/sqlite3",
            [database, "SELECT name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger') ORDER BY name"]
        ).stdout
        let integrity = runner.run(executable: "/usr/bin/sqlite3", [database, "PRAGMA integrity_check"]).stdout
        return (indexes, integrity)
    }

    func digest() -> String? {
        FileManager.default.contents(atPath: home + "/sessions.db").map { Digest.of([UInt8]($0)) }
    }

    @Test func whatPythonWroteIsWhatListAndTokenAnswer() throws {
        let runner = runner()
        let file = try pythonFile("sessions", count: 1_200)
        let imported = runner.run(["store", "import", file.lines])
        try #require(imported.status == 0, "import: \(imported.stderr)")
        #expect(imported.stderr.contains("imported 1207 sessions"))

        let listed = runner.run(["list", "--json"])
        try #require(listed.status == 0)
        let listFile = folder.write("listed.json", listed.stdout)
        let compared = runner.run(executable: "/usr/bin/python3", [Self.script, "compare", file.expected, listFile])
        #expect(compared.stdout == "ok\n", "\(compared.stdout)\(compared.stderr)")

        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file.expected)))
                as? [String: Any])
        let tokens = try #require(expected["tokens"] as? [String: String])
        #expect(tokens.count == 1_207)
        let checked = tokens.keys.filter { !$0.hasPrefix("s") || ($0.hasPrefix("s0001") && $0.hasSuffix("7")) }
        #expect(checked.count > 10)
        for key in checked.sorted() {
            let token = runner.run(["token", key])
            #expect(token.status == 0 && token.stdout == tokens[key]! + "\n", "token \(key): \(token.stderr)")
        }
        #expect(runner.run(["token"]).stdout == "AT-endpoints\n", "the line marked selected is selected")

        // The indexes the bulk path dropped and built again are those of a store filled one session at a time.
        let small = CLIRunner(home: folder.path + "/small", passphraseFile: folder.write("p2", "other\n")).inProcess
        #expect(small.run(["store", "import", "-"], stdin: #"{"key":"one","accessToken":"t"}"#).status == 0)
        let built = schema(runner)
        let reference = schema(small, home: folder.path + "/small")
        #expect(built.indexes == reference.indexes)
        #expect(built.indexes.contains("sessions_by_"), "\(built.indexes)")
        #expect(built.indexes.contains("sessions_search_"), "the search index's triggers are back: \(built.indexes)")
        #expect(built.integrity == "ok\n")
        // The search index, built in one pass after the rows, finds what a scan of the same text finds (SQLite's
        // LIKE over the index's content view is the peer), and passes FTS5's own check.
        let search = runner.run(
            executable: "/usr/bin/sqlite3",
            [
                home + "/sessions.db",
                """
                INSERT INTO session_search (session_search) VALUES ('integrity-check');
                SELECT (SELECT count(*) FROM session_search WHERE session_search MATCH '"s00"'),
                       (SELECT count(*) FROM session_search_text WHERE text LIKE '%s00%');
                """,
            ])
        #expect(search.stderr.isEmpty, "\(search.stderr)")
        let counts = search.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[0] != "0", "\(search.stdout)")

        // A second bulk import into the filled store keeps its sessions and checks every key against them.
        let again = try pythonFile("again", count: 1_500)
        let refused = runner.run(["store", "import", again.lines])
        #expect(refused.status == 1 && refused.stderr.contains("--replace"), "\(refused.stderr)")
        let skipped = runner.run(["store", "import", again.lines, "--skip-existing"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("imported 300 sessions, skipped 1207 whose key is taken"), "\(skipped.stderr)")
        let last = "ya29.bench-access-token-001499-" + String(repeating: "x", count: 100)
        #expect(runner.run(["token", "s001499"]).stdout == last + "\n")
        #expect(schema(runner).integrity == "ok\n")
    }

    @Test func aMalformedLineInTheMiddleOfALargeFileLeavesTheStoreAsItWas() throws {
        let runner = runner()
        #expect(runner.run(["store", "import", "-"], stdin: #"{"key":"kept","accessToken":"AT-kept"}"#).status == 0)
        #expect(runner.run(["store", "lock"]).status == 0)
        let before = try #require(digest())
        let file = try pythonFile("broken", count: 3_000, badLine: 1_500)
        let result = runner.run(["store", "import", file.lines])
        #expect(result.status == 1)
        #expect(result.stderr == "authdeck store import: line 1500: not a JSON object\n", "\(result.stderr)")
        #expect(!result.stderr.contains("SECRET"))
        #expect(digest() == before, "the database file changed")
        #expect(runner.run(["token", "kept"]).stdout == "AT-kept\n")
        let listed = runner.run(["list", "--json"]).stdout
        #expect(listed.contains("\"kept\"") && !listed.contains("s000001"))
    }

    /// A bulk import into an empty store drops the indexes first; when it then fails (a full disk), the rollback
    /// brings them back with the rest.
    @Test func aBulkImportThatFailsLeavesTheIndexesAsTheyWere() throws {
        let mountPoint = folder.path + "/small-disk"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = CLIRunner(home: folder.path).run(
            executable: "/bin/mount", ["-t", "tmpfs", "-o", "size=700k", "tmpfs", mountPoint])
        guard mounted.status == 0 else {
            #expect(ProcessInfo.processInfo.environment["CI"] != "true", "CI can mount a tmpfs: \(mounted.stderr)")
            print("skipped: cannot mount a tmpfs (\(mounted.stderr))")
            return
        }
        defer { _ = CLIRunner(home: folder.path).run(executable: "/bin/umount", [mountPoint]) }
        var runner = runner()
        let storeHome = mountPoint + "/home"
        runner.environment["AUTHDECK_HOME"] = storeHome
        #expect(runner.run(["store", "import", "-"], stdin: #"{"key":"gone","accessToken":"t"}"#).status == 0)
        #expect(runner.run(["logout", "--all", "--yes"]).status == 0)
        let before = schema(runner, home: storeHome)
        #expect(before.indexes.contains("sessions_by_"))

        let file = try pythonFile("big", count: 2_000)
        let full = runner.run(["store", "import", file.lines])
        #expect(full.status == 5, "stderr: \(full.stderr)")
        #expect(full.stderr.lowercased().contains("full"), "stderr: \(full.stderr)")
        let after = schema(runner, home: storeHome)
        #expect(after.indexes == before.indexes)
        #expect(after.integrity == "ok\n")
        #expect(runner.run(["list", "--json"]).stdout == "[]\n")
        #expect(runner.run(["store", "import", "-"], stdin: #"{"key":"after","accessToken":"AT-after"}"#).status == 0)
        #expect(runner.run(["token", "after"]).stdout == "AT-after\n")
    }

    @Test func twoSelectedLinesOrTwoLinesOfOneKeyAreRefusedWithTheirNumbers() throws {
        let runner = runner().realBinary
        #expect(runner.run(["store", "import", "-"], stdin: #"{"key":"kept","accessToken":"AT-kept"}"#).status == 0)
        #expect(runner.run(["store", "lock"]).status == 0)
        let before = try #require(digest())
        let a = #"{"key":"a","accessToken":"t""#
        let b = #"{"key":"b","accessToken":"t""#
        let cases = [
            ([a + #","selected":true}"#, "", b + #","selected":true}"#], "lines 1 and 3 are both marked selected"),
            ([a + "}", b + "}", a + "}"], "lines 1 and 3 both hold session 'a'"),
        ]
        for (lines, message) in cases {
            let result = runner.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(digest() == before, "the database file changed")
    }

    @Test func anEndlessInputOrAnOverlongLineIsRefusedAndNothingImported() throws {
        let runner = runner()
        #expect(runner.run(["store", "import", "-"], stdin: #"{"key":"kept","accessToken":"AT-kept"}"#).status == 0)
        #expect(runner.run(["store", "lock"]).status == 0)
        let before = try #require(digest())
        // /dev/zero never ends: read up to the 256 MiB cap, then refused (it used to take 2 GB and abort).
        let endless = runner.run(["store", "import", "/dev/zero"], timeout: 60)
        #expect(endless.status == 1, "\(endless.stderr)")
        #expect(endless.stderr.contains("more than 256 MiB"), "\(endless.stderr)")
        // A valid line of 2 MiB (Python writes it) passes the 1 MiB line cap.
        let long = folder.path + "/long.jsonl"
        let written = runner.run(
            executable: "/usr/bin/python3",
            [
                "-c",
                "import json,sys; open(sys.argv[1],'w').write(json.dumps({'key':'long','accessToken':'x'*(2<<20)})+'\\n')",
                long,
            ])
        try #require(written.status == 0, "\(written.stderr)")
        let overlong = runner.run(["store", "import", long])
        #expect(overlong.status == 1)
        #expect(overlong.stderr == "authdeck store import: line 1: longer than 1 MiB\n", "\(overlong.stderr)")
        #expect(digest() == before, "the database file changed")
    }
}
