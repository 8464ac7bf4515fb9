import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults from below the store: a full disk during a write, and the keyring daemon killed under a running store.
@Suite struct FaultInjectionTests {
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static func line(_ key: String, padding: Int = 0) -> String {
        #"{"key":"\#(key)","backend":"direct","provider":"google","subject":"s","issuer":"https://accounts.google.com","accessToken":"AT-\#(key)-\#(String(repeating: "x", count: padding))","expiresAt":"2099-01-01T00:00:00Z"}"#
    }

    @Test func aFullDiskIsAClearErrorAndTheStoreKeepsWhatItHad() throws {
        let folder = TemporaryFolder()
        let mountPoint = folder.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // A 600 KiB tmpfs: room for the store and a few sessions, not for a big import.
        let mounted = CLIRunner(home: folder.path).run(
            executable: "/bin/mount",
            ["-t", "tmpfs", "-o", "size=600k", "tmpfs", mountPoint])
        guard mounted.status == 0 else {
            #expect(!Self.inCI, "CI runs as root and must be able to mount a tmpfs: \(mounted.stderr)")
            return
        }
        defer { _ = CLIRunner(home: folder.path).run(executable: "/bin/umount", [mountPoint]) }
        let passphrase = folder.write("passphrase", "disk full passphrase\n")
        var runner = CLIRunner(home: mountPoint + "/home", extra: ["AUTHDECK_PASSPHRASE_FILE": passphrase])
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let first = runner.run(
            ["store", "import", "-"], stdin: Self.line("kept-1") + "\n" + Self.line("kept-2") + "\n")
        #expect(first.status == 0, "stderr: \(first.stderr)")

        // One import far larger than the disk: it fails as a whole, with a one-line storage error.
        let big = (0..<400).map { Self.line("big-\($0)", padding: 4000) }.joined(separator: "\n") + "\n"
        let full = runner.run(["store", "import", "-"], stdin: big)
        #expect(full.status == 5, "stdout: \(full.stdout) stderr: \(full.stderr)")
        #expect(full.stderr.lowercased().contains("full"), "stderr: \(full.stderr)")
        #expect(full.stderr.split(separator: "\n").count <= 2)
        #expect(!full.stderr.contains("AT-big"))

        // What was stored before is all still there and readable; nothing of the failed import is.
        let listed = runner.run(["list", "--json"])
        #expect(listed.status == 0, "stderr: \(listed.stderr)")
        let keys = ((try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? [])
            .compactMap { $0["key"] as? String }
        #expect(keys.sorted() == ["kept-1", "kept-2"])
        #expect(runner.run(["token", "kept-2"]).stdout.hasPrefix("AT-kept-2"))
    }

    @Test func aKeyringDaemonKilledUnderTheStoreIsAnErrorNotEmptiness() {
        let folder = TemporaryFolder()
        let runner = CLIRunner(home: folder.path + "/home")
        let result = runner.run(
            executable: CLIRunner.repositoryRoot + "/scripts/with-keyring.sh",
            [
                "bash", "-c",
                """
                set -u
                printf '%s\\n' '\(Self.line("a"))' | "$AUTHDECK_BIN" store import - --unlock-for 0 || exit 90
                before=$(sha256sum "$AUTHDECK_HOME/sessions.db")
                "$AUTHDECK_BIN" token a --unlock-for 0 >/dev/null || exit 91
                # The daemon that holds the master key dies between two commands of a script.
                pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \\
                    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets \\
                    | tr -dc '0-9 ' | awk '{print $NF}')
                [ -n "$pid" ] || exit 92
                kill -9 "$pid"
                "$AUTHDECK_BIN" token a --unlock-for 0 --keyring-timeout 5; echo "rc=$?"
                "$AUTHDECK_BIN" list --json; echo "list-rc=$?"
                after=$(sha256sum "$AUTHDECK_HOME/sessions.db")
                [ "$before" = "$after" ] && echo unchanged
                """,
            ], environment: ["AUTHDECK_IN_KEYRING_SESSION": nil], timeout: 90)
        #expect(result.stdout.contains("rc=5"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(!result.stdout.contains("AT-a"))
        // Listing needs no key: the session is still listed, and the file was not touched.
        #expect(result.stdout.contains("\"key\":\"a\""))
        #expect(result.stdout.contains("list-rc=0"))
        #expect(result.stdout.contains("unchanged"))
    }
}
