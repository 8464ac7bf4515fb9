import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `list --json` from the lean `authdeck` itself: byte for byte what authdeck-full prints for a store of odd values,
/// those values as stored (read back by Python's json module), and every case it must not serve handed over.
///
/// A copy of the lean binary in a folder of its own cannot hand over (authdeck-full is not next to it): what it
/// prints there it served itself, and a case it hands over fails with "authdeck-full is missing".
@Suite struct ListJSONLeanTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    var full: String { (CLIRunner.binary as NSString).deletingLastPathComponent + "/authdeck-full" }

    /// The lean binary, copied alone into the test's folder. Written through a descriptor closed on exec, and run
    /// once before use: a child another test forks meanwhile must not keep the copy open for writing, which would
    /// make running it fail (ETXTBSY).
    func leanAlone() throws -> String {
        let path = folder.path + "/alone/authdeck"
        try FileManager.default.createDirectory(atPath: folder.path + "/alone", withIntermediateDirectories: true)
        let bytes = try #require(FileManager.default.contents(atPath: CLIRunner.binary))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        try #require(written == bytes.count)
        for _ in 0..<100 {
            if runner().run(executable: path, ["--version"]).status == 0 { return path }
            usleep(50_000)
        }
        Issue.record("the copy of authdeck at \(path) never ran")
        return path
    }

    /// A runner with no Secret Service and, unless `locked`, the passphrase that unlocks the store.
    func runner(locked: Bool = false) -> CLIRunner {
        var extra = ["DBUS_SESSION_BUS_ADDRESS": ""]
        if !locked { extra["AUTHDECK_PASSPHRASE_FILE"] = folder.write("passphrase", "correct horse\n") }
        return CLIRunner(home: home, extra: extra)
    }

    /// Import lines, and the objects `list --json` must show for them (written by hand from what was stored).
    static func sessions(now: Date) -> (lines: [[String: Any]], expected: [[String: Any]]) {
        let soon = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 120)))
        let lines: [[String: Any]] = [
            [
                "key": "quo\"te\\bäck", "backend": "direct", "provider": "Zoë 日本 🙂",
                "subject": "ctl\u{1}\u{1f}\t\n\r end", "issuer": "quote\" back\\slash /", "displayName": "not listed",
                "createdAt": "1969-07-20T20:17:40Z", "accessToken": "AT-odd",
            ],
            [
                "key": "sanitized", "backend": "turnkey", "provider": "email",
                "subject": "a\u{7f}b\u{202e}c\u{85}d\u{9b}31m\"x\u{90}q",
                "email": "é@example.com", "issuer": "https://id.example", "createdAt": "2024-02-29T23:59:59Z",
                "expiresAt": "2001-01-01T00:00:00Z", "sessionJwt": "JWT-sanitized",
            ],
            [
                "key": "soon", "backend": "sandbox", "provider": "google", "subject": "s", "phone": "+15555550100",
                "issuer": "https://accounts.google.com", "createdAt": "2026-11-01T00:00:00Z", "expiresAt": soon,
                "accessToken": "AT-soon",
            ],
            [
                "key": "active", "backend": "direct", "provider": "discord", "subject": "42", "email": "a@example.com",
                "phone": "+15555550101", "issuer": "https://discord.com", "createdAt": "2026-11-01T00:00:00Z",
                "expiresAt": "2099-01-01T00:00:00Z", "accessToken": "AT-active", "refreshToken": "RT-active",
                "selected": true,
            ],
        ]
        let null = NSNull()
        // Sorted by key as SQLite's BINARY collation sorts UTF-8: "active" < "quo…" < "sanitized" < "soon".
        let expected: [[String: Any]] = [
            [
                "key": "active", "backend": "direct", "provider": "discord", "subject": "42", "email": "a@example.com",
                "phone": "+15555550101", "issuer": "https://discord.com", "createdAt": "2026-11-01T00:00:00Z",
                "expiresAt": "2099-01-01T00:00:00Z", "status": "active", "refreshable": true, "selected": true,
            ],
            [
                "key": "quo\"te\\bäck", "backend": "direct", "provider": "Zoë 日本 🙂",
                "subject": "ctl\u{1}\u{1f}\t\n\r end",
                "email": null, "phone": null, "issuer": "quote\" back\\slash /", "createdAt": "1969-07-20T20:17:40Z",
                "expiresAt": null, "status": "active", "refreshable": false, "selected": false,
            ],
            [
                // DEL, a bidi override and C1 controls (CSI, DCS) reach the terminal only as JSON escapes: the
                // value is kept whole, and nothing after a CSI or DCS is swallowed.
                "key": "sanitized", "backend": "turnkey", "provider": "email",
                "subject": "a\u{7f}b\u{202e}c\u{85}d\u{9b}31m\"x\u{90}q",
                "email": "é@example.com", "phone": null, "issuer": "https://id.example",
                "createdAt": "2024-02-29T23:59:59Z", "expiresAt": "2001-01-01T00:00:00Z", "status": "expired",
                "refreshable": false, "selected": false,
            ],
            [
                "key": "soon", "backend": "sandbox", "provider": "google", "subject": "s", "email": null,
                "phone": "+15555550100", "issuer": "https://accounts.google.com", "createdAt": "2026-11-01T00:00:00Z",
                "expiresAt": soon, "status": "expiring", "refreshable": false, "selected": false,
            ],
        ]
        return (lines, expected)
    }

    /// What Python's json module makes of `output`, compared with `expected`: "same", or what differs.
    func pythonCompares(_ output: String, with expected: [[String: Any]]) throws -> String {
        let expectedPath = folder.path + "/expected.json"
        try JSONSerialization.data(withJSONObject: expected).write(to: URL(fileURLWithPath: expectedPath))
        let outputPath = folder.write("output.json", output)
        let script = """
            import json, sys
            got = json.load(open(sys.argv[1], encoding="utf-8"))
            want = json.load(open(sys.argv[2], encoding="utf-8"))
            if got == want:
                print("same")
            else:
                for index, (a, b) in enumerate(zip(got, want)):
                    for name in sorted(set(a) | set(b)):
                        if a.get(name, "<absent>") != b.get(name, "<absent>"):
                            print(index, name, ascii(a.get(name, "<absent>")), "!=", ascii(b.get(name, "<absent>")))
                print(len(got), "objects for", len(want))
            """
        let result = runner().run(executable: "/usr/bin/python3", ["-c", script, outputPath, expectedPath])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + result.stderr
    }

    @Test func theLeanBinaryPrintsWhatAuthdeckFullPrints() throws {
        let now = Date()
        let (lines, expected) = Self.sessions(now: now)
        let text =
            try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            .joined(separator: "\n") + "\n"
        let imported = runner().run(["store", "import", "-"], stdin: text)
        try #require(imported.status == 0, "\(imported.stderr)")
        let lean = try leanAlone()

        // Listing reads no secret: a locked store (no passphrase, no Secret Service) lists all the same.
        let served = runner(locked: true).run(executable: lean, ["list", "--json"])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stderr.isEmpty, "\(served.stderr)")
        let fromFull = runner(locked: true).run(executable: full, ["list", "--json"])
        #expect(fromFull.status == 0, "\(fromFull.stderr)")
        #expect(served.stdout == fromFull.stdout)
        #expect(try pythonCompares(served.stdout, with: expected) == "same")
        #expect(!served.stdout.contains("AT-") && !served.stdout.contains("JWT-"), "list must not print tokens")

        // The options authdeck-full takes for `list --json` are served alike.
        for options in [
            ["--quiet"], ["--session", "soon"], ["--session=nope nope"], ["--config", "/nonexistent"],
            ["--unlock-for", "0"], ["--keyring-timeout=300"],
        ] {
            let withOptions = runner(locked: true).run(executable: lean, ["list"] + options + ["--json"])
            #expect(withOptions.status == 0, "\(options): \(withOptions.stderr)")
            #expect(withOptions.stdout == fromFull.stdout, "\(options)")
        }
    }

    /// 6,000 sessions (about 1.8 MB of JSON) are written in chunks of 1 MiB as they are made: Python reads every
    /// object back, once each and in key order, with the fields each line was imported with; and the bytes are
    /// authdeck-full's, which writes its listing whole.
    @Test func aListingLargerThanAChunkIsWrittenWhole() throws {
        let count = 6_000
        try importNumbered(count)
        let lean = try leanAlone()
        let served = runner(locked: true).run(executable: lean, ["list", "--json"])
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.stdout.utf8.count > 1 << 20, "smaller than a chunk: \(served.stdout.utf8.count) bytes")
        let fromFull = runner(locked: true).run(executable: full, ["list", "--json"])
        #expect(served.stdout == fromFull.stdout)
        let outputPath = folder.write("chunked.json", served.stdout)
        let script = """
            import json, sys
            got = json.load(open(sys.argv[1], encoding="utf-8"))
            count = int(sys.argv[2])
            keys = [entry["key"] for entry in got]
            assert keys == ["k%05d" % n for n in range(count)], "keys out of order or missing"
            for entry in got:
                index = count - 1 - int(entry["key"][1:])
                assert entry["subject"] == "subject-%d" % index, entry
                assert entry["email"] == "u%d@example.com" % index, entry
                assert entry["createdAt"] == "2026-01-02T03:04:05Z", entry
            print(len(got))
            """
        let python = runner().run(executable: "/usr/bin/python3", ["-c", script, outputPath, String(count)])
        #expect(python.stdout == "\(count)\n", "\(python.stderr)")
    }

    /// A page that turns out damaged once a chunk is written cannot be handed to authdeck-full any more: the
    /// listing stops there, says so in one line, and exits 1. The damaged page is the table leaf holding the first
    /// row imported (the last key listed), found by SQLite's own `dbstat` through Python.
    @Test func damageFoundAfterTheFirstChunkCutsTheListingShort() throws {
        let count = 6_000
        try importNumbered(count)
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            size = db.execute("PRAGMA page_size").fetchone()[0]
            rowid = db.execute("SELECT rowid FROM sessions WHERE key = ?", ("k%05d" % (int(sys.argv[2]) - 1),)).fetchone()[0]
            leaves = db.execute("SELECT pageno FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY path")
            page = [row[0] for row in leaves][0]
            db.close()
            assert rowid == 1, rowid
            with open(sys.argv[1], "r+b") as handle:
                handle.seek((page - 1) * size)
                handle.write(b"\\xff" * 8)
            print(page)
            """
        let damaged = runner().run(
            executable: "/usr/bin/python3", ["-c", script, home + "/sessions.db", String(count)])
        try #require(damaged.status == 0, "\(damaged.stderr)")
        let lean = try leanAlone()
        let served = runner(locked: true).run(executable: lean, ["list", "--json"])
        #expect(served.status == 1)
        #expect(served.stdout.hasPrefix("[\n  {\"key\":\"k00000\""))
        #expect(served.stdout.utf8.count > 1 << 20)
        #expect(!served.stdout.hasSuffix("]\n"))
        let lines = served.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("authdeck list: the listing was cut short"), "\(served.stderr)")
    }

    /// Imports sessions `k00000`…: `count - 1 - n` for line n, so the first row imported is the last key listed.
    func importNumbered(_ count: Int) throws {
        let text =
            (0..<count).map { index in
                #"{"key":"k\#(String(format: "%05d", count - 1 - index))","backend":"direct","provider":"google","#
                    + #""subject":"subject-\#(index)","email":"u\#(index)@example.com","#
                    + #""createdAt":"2026-01-02T03:04:05Z","accessToken":"AT-\#(index)"}"#
            }.joined(separator: "\n") + "\n"
        let imported = runner().run(["store", "import", "-"], stdin: text)
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    @Test func anEmptyOrMissingStoreListsNothing() throws {
        let lean = try leanAlone()
        let missing = runner().run(executable: lean, ["list", "--json"])
        #expect(missing.status == 0, "\(missing.stderr)")
        #expect(missing.stdout == "[]\n")
        #expect(!FileManager.default.fileExists(atPath: home + "/sessions.db"), "listing creates no store")
        let imported = runner().run(["store", "import", "-"], stdin: StoreCommandTests.line("gone", access: "AT"))
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(runner().run(["logout", "gone"]).status == 0)
        let empty = runner().run(executable: lean, ["list", "--json"])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == "[]\n")
    }

    /// What only authdeck-full can do right (repair and warn, migrate, explain, show help, refuse an option) is
    /// handed over: alone, the lean binary then fails for want of authdeck-full rather than answer differently.
    @Test func whatItCannotServeAloneIsHandedOver() throws {
        let imported = runner().run(["store", "import", "-"], stdin: StoreCommandTests.line("one", access: "AT"))
        try #require(imported.status == 0, "\(imported.stderr)")
        let lean = try leanAlone()
        for words in [
            ["list"], ["list", "--json", "--help"], ["list", "--json", "--session", "-h"], ["list", "--json", "x"],
            ["list", "--json=yes"], ["list", "--json", "--unlock-for", "10081"],
            ["list", "--json", "--keyring-timeout"],
            ["list", "--json", "--"], ["list", "--json", "--verbose"],
        ] {
            let result = runner().run(executable: lean, words)
            #expect(result.status == 1 && result.stderr.contains("authdeck-full is missing"), "\(words)")
        }
        // A store with the wrong mode: authdeck-full repairs it and warns, so the lean binary leaves it alone.
        try #require(chmod(home + "/sessions.db", 0o644) == 0)
        let wrongMode = runner().run(executable: lean, ["list", "--json"])
        #expect(wrongMode.status == 1 && wrongMode.stderr.contains("authdeck-full is missing"))
        let repaired = runner().run(["list", "--json"])
        #expect(repaired.status == 0 && repaired.stderr.contains("had mode 0644"), "\(repaired.stderr)")
        #expect(runner().run(executable: lean, ["list", "--json"]).stdout.contains("\"one\""))
        // A damaged file is authdeck-full's to explain.
        let database = home + "/sessions.db"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: database))
        let damaged = runner().run(executable: lean, ["list", "--json"])
        #expect(damaged.status == 1 && damaged.stderr.contains("authdeck-full is missing"))
        let explained = runner().run(["list", "--json"])
        #expect(explained.status == 5 && explained.stdout.isEmpty, "\(explained.stderr)")
    }
}
