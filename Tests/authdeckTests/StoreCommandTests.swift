import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// End-to-end tests of the store commands against a store in a temporary folder, run in this process
/// (`CLIRunner.inProcess`); `token` and `list --json` on a fresh machine run the real binary too, as users do.
/// Stores here are passphrase-wrapped (no session bus) unless a test is about the Secret Service.
@Suite struct StoreCommandTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    /// A runner with no session bus (so no Secret Service) and a passphrase file.
    func passphraseRunner(_ passphrase: String = "correct horse") -> CLIRunner {
        let file = folder.write("passphrase-\(abs(passphrase.hashValue))", passphrase + "\n")
        return CLIRunner(home: home, passphraseFile: file).inProcess
    }

    static func line(
        _ key: String, access: String? = nil, expires: String = "2099-01-01T00:00:00Z",
        extra: String = ""
    ) -> String {
        let token = access.map { ",\"accessToken\":\"\($0)\"" } ?? ""
        return "{\"key\":\"\(key)\",\"backend\":\"direct\",\"provider\":\"google\",\"subject\":\"sub-\(key)\","
            + "\"email\":\"\(key)@example.com\",\"issuer\":\"https://accounts.example.com\","
            + "\"createdAt\":\"2024-01-02T03:04:05Z\",\"expiresAt\":\"\(expires)\"\(token)\(extra)}\n"
    }

    /// Imports `lines` and checks it worked.
    func seed(_ runner: CLIRunner, _ lines: String, arguments: [String] = []) {
        let result = runner.run(["store", "import", "-"] + arguments, stdin: lines)
        #expect(result.status == 0, "import failed: \(result.stderr)")
    }

    func databaseBytes() -> [UInt8]? {
        FileManager.default.contents(atPath: home + "/sessions.db").map { [UInt8]($0) }
    }

    /// Size and checksum of the database file: "byte for byte unchanged" checks that print short on failure.
    func databaseDigest() -> String? { databaseBytes().map(Digest.of) }

    // MARK: - Commands

    @Test func listJSONHasExactlyTheSpecFields() throws {
        let runner = passphraseRunner()
        seed(
            runner,
            Self.line("work", access: "AT-work")
                + Self.line(
                    "old", access: "AT-old",
                    expires: "2001-01-01T00:00:00Z"))
        let result = runner.run(["list", "--json"])
        #expect(result.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(array.count == 2)
        let expected: Set = [
            "key", "backend", "provider", "subject", "email", "phone", "issuer", "createdAt",
            "expiresAt", "status", "refreshable", "selected",
        ]
        for object in array { #expect(Set(object.keys) == expected) }
        let work = try #require(array.first { $0["key"] as? String == "work" })
        #expect(work["status"] as? String == "active")
        #expect(work["selected"] as? Bool == true)
        #expect(work["phone"] is NSNull)
        #expect(work["createdAt"] as? String == "2024-01-02T03:04:05Z")
        #expect(work["refreshable"] as? Bool == false)
        let old = try #require(array.first { $0["key"] as? String == "old" })
        #expect(old["status"] as? String == "expired")
        #expect(old["selected"] as? Bool == false)
        #expect(!result.stdout.contains("AT-"), "list must not print tokens")

        let table = runner.run(["list"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("* work"))
        #expect(table.stdout.contains("expired"))
    }

    @Test func listOnAFreshMachineIsEmptyAndNeedsNoKey() {
        let result = CLIRunner(home: home, extra: ["DBUS_SESSION_BUS_ADDRESS": ""]).run(["list", "--json"])
        #expect(result.status == 0)
        #expect(result.stdout == "[]\n")
    }

    @Test func tokenPrintsTheSelectedOrChosenSession() {
        let runner = passphraseRunner().realBinary
        seed(
            runner,
            Self.line("a", access: "AT-a", extra: ",\"idToken\":\"ID-a\"")
                + Self.line("b", extra: ",\"sessionJwt\":\"JWT-b\""))
        #expect(runner.run(["token"]).stdout == "AT-a\n")
        #expect(runner.run(["token", "b"]).stdout == "JWT-b\n")
        #expect(runner.run(["token", "--session", "b"]).stdout == "JWT-b\n")
        #expect(runner.run(["token"], environment: ["AUTHDECK_SESSION": "b"]).stdout == "JWT-b\n")
        #expect(runner.run(["token", "--id-token"]).stdout == "ID-a\n")
        let noIDToken = runner.run(["token", "b", "--id-token"])
        #expect(noIDToken.status == 1)
        let json = runner.run(["token", "--json"])
        #expect(json.stdout == "{\"key\":\"a\",\"token\":\"AT-a\",\"expiresAt\":\"2099-01-01T00:00:00Z\"}\n")
        #expect(runner.run(["use", "b"]).status == 0)
        #expect(runner.run(["token"]).stdout == "JWT-b\n")
        let missing = runner.run(["token", "nope"])
        #expect(missing.status == 7)
        #expect(missing.stderr.contains("nope"))
        #expect(runner.run(["use", "nope"]).status == 7)
        #expect(runner.run(["use"]).status == 2)
    }

    @Test func anExpiredTokenWithNoRefreshIsAnError() {
        let runner = passphraseRunner()
        seed(runner, Self.line("gone", access: "AT-gone-secret", expires: "2001-01-01T00:00:00Z"))
        let result = runner.run(["token", "gone"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("expired"))
        #expect(!result.stderr.contains("AT-gone-secret"))
    }

    @Test func tokenWithNoStoreOrNoSelectionExits7() {
        let runner = passphraseRunner()
        #expect(runner.run(["token"]).status == 7)
        seed(runner, Self.line("a", access: "AT-a"))
        #expect(runner.run(["logout", "a"]).status == 0)
        let result = runner.run(["token"])
        #expect(result.status == 7)
        #expect(result.stderr.contains("no session selected"))
    }

    @Test func logoutRemovesOneOrAll() throws {
        let runner = passphraseRunner()
        seed(runner, Self.line("a", access: "AT-a") + Self.line("b", access: "AT-b") + Self.line("c", access: "AT-c"))
        // Imported sessions carry no revocation endpoint: revoking fails, and a failed revocation removes nothing.
        let revoke = runner.run(["logout", "a", "--revoke"])
        #expect(revoke.status != 0)
        #expect(revoke.stderr.contains("nothing was removed"))
        #expect(runner.run(["list", "--json"]).stdout.contains("\"a\""))
        #expect(runner.run(["logout", "b"]).status == 0)
        #expect(runner.run(["logout", "b"]).status == 7)
        #expect(runner.run(["logout"]).status == 0, "logout with no key removes the selected session")
        #expect(runner.run(["list", "--json"]).stdout.contains("\"c\""))
        #expect(!runner.run(["list", "--json"]).stdout.contains("\"a\""))
        // Without a terminal to ask, removing every session takes --yes; refused, nothing goes.
        let unasked = runner.run(["logout", "--all"])
        #expect(unasked.status == 2)
        #expect(unasked.stderr.contains("add --yes"), "stderr: \(unasked.stderr)")
        // The real binary with its standard input a pipe, as a script runs it.
        var binary = runner
        binary.runsInProcess = false
        let scripted = binary.run(["logout", "--all"], stdin: "")
        #expect(scripted.status == 2 && scripted.stderr.contains("add --yes"), "stderr: \(scripted.stderr)")
        #expect(runner.run(["list", "--json"]).stdout.contains("\"c\""))
        #expect(runner.run(["logout", "--all", "--yes"]).status == 0)
        #expect(runner.run(["list", "--json"]).stdout == "[]\n")
    }

    @Test func importRefusesATakenKeyUnlessReplace() {
        let runner = passphraseRunner()
        seed(runner, Self.line("a", access: "AT-1"))
        let again = runner.run(["store", "import", "-"], stdin: Self.line("a", access: "AT-2"))
        #expect(again.status == 1)
        #expect(again.stderr.contains("--replace"))
        #expect(runner.run(["token", "a"]).stdout == "AT-1\n")
        seed(runner, Self.line("a", access: "AT-2"), arguments: ["--replace"])
        #expect(runner.run(["token", "a"]).stdout == "AT-2\n")
    }

    @Test func importErrorsNameTheLineNeverTheToken() {
        let runner = passphraseRunner()
        let bad = "{\"key\":\"x\",\"accessToken\":\"SECRET-IN-BAD-LINE\",\"expiresAt\":12}\n"
        let result = runner.run(["store", "import", "-"], stdin: Self.line("ok", access: "AT-ok") + bad)
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 2"))
        #expect(!result.stderr.contains("SECRET-IN-BAD-LINE"))
        #expect(runner.run(["list", "--json"]).stdout == "[]\n", "a failed import stores nothing")
    }

    @Test func statusReportsLocalExpiryAndStoreState() throws {
        let runner = passphraseRunner()
        seed(runner, Self.line("a", access: "AT-a", extra: ",\"refreshToken\":\"RT-a\""))
        let text = runner.run(["status"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("session:        a (selected)"))
        #expect(text.stdout.contains("master key:     passphrase"))
        let json = runner.run(["status", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let session = try #require(object["session"] as? [String: Any])
        #expect(session["refreshable"] as? Bool == true)
        #expect(session["status"] as? String == "active")
        #expect(!json.stdout.contains("RT-a"))
        #expect(runner.run(["status", "nope"]).status == 7)
    }

    @Test func exportBundleImportsIntoAnotherStore() throws {
        let runner = passphraseRunner()
        seed(
            runner,
            Self.line("a", access: "AT-export-a", extra: ",\"refreshToken\":\"RT-export-a\"")
                + Self.line(
                    "b",
                    extra: ",\"sessionJwt\":\"JWT-export-b\","
                        + "\"privateKeyHex\":\"\(String(repeating: "ab", count: 32))\""))
        let bundlePassphrase = folder.write("bundle-pass", "bundle secret\n")
        let bundle = folder.path + "/sessions.bundle"
        let export = runner.run(
            ["store", "export", bundle],
            environment: ["AUTHDECK_EXPORT_PASSPHRASE_FILE": bundlePassphrase])
        #expect(export.status == 0, "\(export.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: bundle))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("AT-export-a") && !text.contains("RT-export-a") && !text.contains("JWT-export-b"))
        var info = stat()
        #expect(stat(bundle, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let otherHome = folder.path + "/other"
        var other = CLIRunner(home: otherHome, passphraseFile: folder.write("p2", "other\n")).inProcess
        other.environment["AUTHDECK_EXPORT_PASSPHRASE_FILE"] = folder.write("wrong", "not it\n")
        let wrong = other.run(["store", "import", bundle])
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("passphrase"))
        other.environment["AUTHDECK_EXPORT_PASSPHRASE_FILE"] = bundlePassphrase
        let imported = other.run(["store", "import", bundle])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(other.run(["token", "a"]).stdout == "AT-export-a\n")
        #expect(other.run(["token", "b"]).stdout == "JWT-export-b\n")
        #expect(other.run(["status", "a", "--json"]).stdout.contains("\"refreshable\":true"))
    }

    // MARK: - Bad input and faults

    @Test func wrongPassphraseExits5AndLeavesTheFileUnchanged() throws {
        seed(passphraseRunner("right one"), Self.line("a", access: "AT-a"))
        #expect(passphraseRunner("right one").run(["store", "lock"]).status == 0)
        let before = try #require(databaseDigest())
        let result = passphraseRunner("wrong one").run(["token", "a"])
        #expect(result.status == 5)
        #expect(result.stderr.contains("wrong passphrase"))
        #expect(result.stdout.isEmpty)
        #expect(databaseDigest() == before)
        #expect(passphraseRunner("right one").run(["token", "a"]).stdout == "AT-a\n")
    }

    @Test func missingPassphraseFileExits5AndLeavesTheFileUnchanged() throws {
        seed(passphraseRunner(), Self.line("a", access: "AT-a"))
        #expect(passphraseRunner().run(["store", "lock"]).status == 0)
        let before = try #require(databaseDigest())
        let runner = CLIRunner(home: home, passphraseFile: folder.path + "/no-such-file").inProcess
        let result = runner.run(["token", "a"])
        #expect(result.status == 5)
        #expect(result.stderr.contains("AUTHDECK_PASSPHRASE_FILE"))
        #expect(databaseDigest() == before)
        // No passphrase source at all (standard input is a pipe): still locked, with how to unlock.
        let none = CLIRunner(home: home, extra: ["DBUS_SESSION_BUS_ADDRESS": ""]).inProcess.run(["token", "a"])
        #expect(none.status == 5)
        #expect(none.stderr.contains("AUTHDECK_PASSPHRASE_FILE=FILE"))
        #expect(databaseDigest() == before)
    }

    @Test(arguments: ["truncated", "zeroed", "garbage", "empty"])
    func damagedDatabaseIsAClearErrorAndStaysUntouched(_ damage: String) throws {
        let runner = passphraseRunner()
        var lines = ""
        for index in 0..<40 {
            lines += Self.line("s\(index)", access: "AT-\(index)-" + String(repeating: "x", count: 300))
        }
        seed(runner, lines)
        let path = home + "/sessions.db"
        let original = try #require(databaseBytes())
        let damaged: [UInt8]
        switch damage {
        case "truncated": damaged = Array(original[..<(original.count / 2)])
        case "zeroed": damaged = [UInt8](repeating: 0, count: original.count)
        case "garbage": damaged = (0..<original.count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        default: damaged = []
        }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
        chmod(path, 0o600)
        for command in [["list"], ["token", "s1"], ["store", "import", "-"]] {
            let result = runner.run(command, stdin: Self.line("new", access: "AT-new"))
            #expect(result.status == 5, "\(command) with a \(damage) file: \(result.stderr)")
            #expect(result.stderr.contains(path), "the error names the file: \(result.stderr)")
            #expect(result.stderr.contains("damaged"))
            #expect(databaseDigest() == Digest.of(damaged), "the damaged file was rewritten")
        }
    }

    @Test func oneFlippedBitDamagesOnlyThatSession() throws {
        let runner = passphraseRunner()
        seed(
            runner,
            Self.line("good", access: "AT-good")
                + Self.line("bad", access: "AT-bad-" + String(repeating: "y", count: 64)))
        // Find the sealed blob of "bad" on disk (the WAL was checkpointed when the importer exited) and flip a bit.
        let hex = runner.run(
            executable: "/usr/bin/sqlite3",
            [home + "/sessions.db", "SELECT hex(secret) FROM sessions WHERE key = 'bad'"])
        let blob = try #require(Self.bytes(fromHex: hex.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        var file = try #require(databaseBytes())
        let offset = try #require(Self.find(blob, in: file))
        file[offset + blob.count / 2] ^= 0x10
        #expect(FileManager.default.createFile(atPath: home + "/sessions.db", contents: Data(file)))
        chmod(home + "/sessions.db", 0o600)

        let bad = runner.run(["token", "bad"])
        #expect(bad.status == 5)
        #expect(bad.stderr.contains("'bad'"))
        #expect(bad.stderr.contains("damaged"))
        #expect(runner.run(["token", "good"]).stdout == "AT-good\n")
        #expect(runner.run(["list", "--json"]).stdout.contains("\"bad\""), "metadata of the damaged one still lists")
        #expect(databaseDigest() == Digest.of(file))
    }

    @Test func permissionsAreRepairedWithAWarning() throws {
        let runner = passphraseRunner()
        seed(runner, Self.line("a", access: "AT-a"))
        chmod(home, 0o755)
        chmod(home + "/sessions.db", 0o644)
        let result = runner.run(["list"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning"))
        #expect(result.stderr.contains("0755") && result.stderr.contains("0644"))
        var info = stat()
        #expect(stat(home, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(home + "/sessions.db", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!runner.run(["list"]).stderr.contains("warning"), "a repaired store warns no more")
    }

    @Test func noSecretIsWrittenInClear() throws {
        let runner = passphraseRunner()
        let secrets = [
            "ACCESS-0123456789-plain", "REFRESH-0123456789-plain", "IDTOKEN-0123456789-plain",
            "SESSIONJWT-0123456789-plain", String(repeating: "c0ffee", count: 10) + "beef",
        ]
        seed(
            runner,
            Self.line(
                "a", access: secrets[0],
                extra: ",\"refreshToken\":\"\(secrets[1])\","
                    + "\"idToken\":\"\(secrets[2])\",\"sessionJwt\":\"\(secrets[3])\","
                    + "\"privateKeyHex\":\"\(secrets[4])\""))
        for name in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
            guard let bytes = FileManager.default.contents(atPath: home + "/" + name) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "\(name) holds a secret in clear") }
        }
        #expect(runner.run(["token", "a"]).stdout == secrets[0] + "\n", "and the store does hold it")
    }

    @Test func migrateRewrapsOnlyTheMasterKey() throws {
        let runner = passphraseRunner("first")
        seed(runner, Self.line("a", access: "AT-a") + Self.line("b", access: "AT-b"))
        let query = [home + "/sessions.db", "SELECT key, hex(secret) FROM sessions ORDER BY key"]
        let before = runner.run(executable: "/usr/bin/sqlite3", query).stdout
        #expect(before.contains("A|") || before.contains("a|"))
        #expect(runner.run(["store", "lock"]).status == 0)
        // The new passphrase is read from the same variable: point it at the new file for the migration.
        let second = folder.write("second", "second\n")
        let migrate = runner.run(
            ["store", "migrate", "--to", "passphrase"],
            environment: ["AUTHDECK_PASSPHRASE_FILE": second])
        #expect(migrate.status == 5, "unlocking needs the old passphrase first when nothing is cached")
        #expect(runner.run(["token", "a"]).status == 0, "unlock with the old one (cached)")
        let migrated = runner.run(
            ["store", "migrate", "--to", "passphrase"],
            environment: ["AUTHDECK_PASSPHRASE_FILE": second])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect(runner.run(executable: "/usr/bin/sqlite3", query).stdout == before, "session blobs were rewritten")
        #expect(runner.run(["store", "lock"]).status == 0)
        #expect(runner.run(["token", "a"]).status == 5, "the old passphrase no longer unlocks")
        #expect(passphraseRunner("second").run(["token", "b"]).stdout == "AT-b\n")
    }

    static func bytes(fromHex text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes.isEmpty ? nil : bytes
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}
