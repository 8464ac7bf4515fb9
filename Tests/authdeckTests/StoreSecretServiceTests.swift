import Foundation
import Testing

/// Whether the Secret Service tests can run: they need the D-Bus session of scripts/with-keyring.sh. Outside CI they
/// are skipped (with this reason) when there is no session bus; with CI=true they always run, and fail without one.
enum SecretServiceAvailability {
    static let environment = ProcessInfo.processInfo.environment
    static let inCI = environment["CI"] == "true"
    static let hasSessionBus = !(environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty
    static let runnable = hasSessionBus || inCI
    static let reason: Comment = "needs the Secret Service: run under scripts/with-keyring.sh (make test)"
}

/// The master key in a real Secret Service (gnome-keyring under dbus-run-session).
@Suite struct StoreSecretServiceTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    func databaseBytes() -> [UInt8]? {
        FileManager.default.contents(atPath: home + "/sessions.db").map { [UInt8]($0) }
    }

    /// Size and checksum of the database file: "byte for byte unchanged" checks that print short on failure.
    func databaseDigest() -> String? { databaseBytes().map(Digest.of) }

    static func line(_ key: String, _ token: String) -> String {
        "{\"key\":\"\(key)\",\"provider\":\"google\",\"accessToken\":\"\(token)\","
            + "\"expiresAt\":\"2099-01-01T00:00:00Z\"}\n"
    }

    @Test(.enabled(if: SecretServiceAvailability.runnable, SecretServiceAvailability.reason))
    func aNewStoreKeepsItsKeyInTheSecretService() throws {
        #expect(
            SecretServiceAvailability.hasSessionBus,
            "CI must provide the Secret Service (scripts/with-keyring.sh)")
        let runner = CLIRunner(home: home)
        #expect(runner.run(["store", "import", "-"], stdin: Self.line("a", "AT-ss-a")).status == 0)
        #expect(runner.run(["status"]).stdout.contains("master key:     secret-service"))
        #expect(runner.run(["store", "lock"]).stderr.contains("store locked"))
        // Locked: without the bus nothing can unlock it, so the key was neither cached nor kept anywhere else.
        let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        #expect(runner.run(["token", "a"], environment: noBus).status == 5)
        // Unlocked again from the Secret Service, with no passphrase anywhere.
        let token = runner.run(["token", "a"])
        #expect(token.status == 0, "\(token.stderr)")
        #expect(token.stdout == "AT-ss-a\n")
        // The kernel keyring serves the next one: it works with the bus gone.
        let cached = runner.run(["token", "a"], environment: noBus)
        #expect(cached.stdout == "AT-ss-a\n")
    }

    @Test(.enabled(if: SecretServiceAvailability.runnable, SecretServiceAvailability.reason))
    func anAbsentSecretServiceExits5AndLeavesTheFileUnchanged() throws {
        let runner = CLIRunner(home: home)
        #expect(runner.run(["store", "import", "-"], stdin: Self.line("a", "AT-a")).status == 0)
        #expect(runner.run(["store", "lock"]).status == 0)
        let before = try #require(databaseDigest())
        for address in ["unix:path=/nonexistent/bus", ""] {
            let result = runner.run(
                ["token", "a"],
                environment: [
                    "DBUS_SESSION_BUS_ADDRESS": address,
                    "XDG_RUNTIME_DIR": folder.path,
                ])
            #expect(result.status == 5, "bus '\(address)': \(result.stderr)")
            #expect(result.stderr.contains("Secret Service"))
            #expect(!result.stderr.contains("no session"), "a locked store must not look empty")
            #expect(databaseDigest() == before)
        }
    }

    @Test(.enabled(if: SecretServiceAvailability.runnable, SecretServiceAvailability.reason))
    func migrateBetweenSecretServiceAndPassphraseRewritesNoSession() throws {
        let runner = CLIRunner(home: home)
        let lines = Self.line("a", "AT-a") + Self.line("b", "AT-b")
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        let query = [home + "/sessions.db", "SELECT key, hex(secret) FROM sessions ORDER BY key"]
        let blobs = runner.run(executable: "/usr/bin/sqlite3", query).stdout
        #expect(blobs.split(separator: "\n").count == 2)
        let passphrase = folder.write("pass", "moved\n")
        let toPassphrase = runner.run(
            ["store", "migrate", "--to", "passphrase"],
            environment: ["AUTHDECK_PASSPHRASE_FILE": passphrase])
        #expect(toPassphrase.status == 0, "\(toPassphrase.stderr)")
        #expect(runner.run(executable: "/usr/bin/sqlite3", query).stdout == blobs)
        #expect(runner.run(["store", "lock"]).status == 0)
        // No bus at all: the passphrase alone unlocks now.
        let viaPassphrase = runner.run(
            ["token", "b"],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": "",
                "AUTHDECK_PASSPHRASE_FILE": passphrase,
            ])
        #expect(viaPassphrase.stdout == "AT-b\n", "\(viaPassphrase.stderr)")
        let back = runner.run(["store", "migrate", "--to", "secret-service"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(runner.run(executable: "/usr/bin/sqlite3", query).stdout == blobs)
        #expect(runner.run(["store", "lock"]).status == 0)
        #expect(runner.run(["token", "a"]).stdout == "AT-a\n")
        #expect(runner.run(["status"]).stdout.contains("master key:     secret-service"))
    }

    // MARK: - libsecret is loaded only when a store asks the Secret Service

    @Test(.enabled(if: SecretServiceAvailability.runnable, SecretServiceAvailability.reason))
    func aSecretServiceStoreLoadsLibsecretWhenItUnlocks() throws {
        let runner = CLIRunner(home: home)
        #expect(runner.run(["store", "import", "-"], stdin: Self.line("a", "AT-ss")).status == 0)
        #expect(runner.run(["store", "lock"]).status == 0)
        let token = runner.run(["token", "a"], environment: ["LD_DEBUG": "files"])
        #expect(token.stdout == "AT-ss\n", "\(token.stderr.suffix(400))")
        #expect(LazyLibraryTests.loaded(token).contains("libsecret-1.so.0"))
    }

    /// libsecret hidden from this process alone (a private mount namespace puts an empty file over it): the store
    /// stays locked with one line saying why, and nothing is written. Needs root for the mount.
    @Test func aMissingLibsecretIsOneLineAndChangesNothing() throws {
        guard LazyLibraryTests.canHide else {
            print("skipped: hiding libsecret needs a private mount namespace (root, and unshare allowed here)")
            return
        }
        let runner = CLIRunner(home: home)
        let result = runner.run(
            executable: "/usr/bin/unshare",
            [
                "-m", "bash", "-c",
                """
                set -u
                printf '%s' '\(Self.line("a", "AT-hidden"))' | "$AUTHDECK_BIN" store import - || exit 90
                "$AUTHDECK_BIN" store lock
                before=$(sha256sum "$AUTHDECK_HOME/sessions.db")
                library=$(ldconfig -p | awk '/libsecret-1\\.so\\.0 /{print $NF; exit}')
                mount --bind /dev/null "$(readlink -f "$library")" || exit 91
                "$AUTHDECK_BIN" token a 2>"$AUTHDECK_HOME/../token.err"; echo "rc=$?"
                sed 's/^/said: /' "$AUTHDECK_HOME/../token.err"
                after=$(sha256sum "$AUTHDECK_HOME/sessions.db")
                [ "$before" = "$after" ] && echo unchanged
                """,
            ])
        #expect(result.stdout.contains("rc=5"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("unchanged"))
        #expect(!result.stdout.contains("AT-hidden"))
        let said = result.stdout.split(separator: "\n").filter { $0.hasPrefix("said: ") }
        #expect(said.count == 1, "\(result.stdout)")
        #expect(said.first?.contains("cannot load libsecret-1.so.0") == true, "\(said)")
    }

    // MARK: - Faults in a private keyring of their own (they lock it or replace its bus)

    /// Runs `script` in a fresh dbus-run-session + gnome-keyring of its own (scripts/with-keyring.sh started anew),
    /// so locking that keyring cannot disturb tests sharing the outer one.
    func inPrivateKeyring(_ script: String) -> CLIRunner.Result {
        let runner = CLIRunner(home: home)
        return runner.run(
            executable: CLIRunner.repositoryRoot + "/scripts/with-keyring.sh", ["bash", "-c", script],
            environment: ["AUTHDECK_IN_KEYRING_SESSION": nil, "HOME_UNDER_TEST": home],
            timeout: 60)
    }

    /// `inPrivateKeyring` on a store holding session `a` (`token`) whose key is no longer cached: `steps` run on it,
    /// then `unchanged` is printed if the store's file is as it was before them.
    func onLockedStore(token: String, _ steps: String) -> CLIRunner.Result {
        inPrivateKeyring(
            """
            set -u
            printf '%s' '\(Self.line("a", token))' | "$AUTHDECK_BIN" store import - || exit 90
            "$AUTHDECK_BIN" store lock
            before=$(sha256sum "$AUTHDECK_HOME/sessions.db")
            \(steps)
            after=$(sha256sum "$AUTHDECK_HOME/sessions.db")
            [ "$before" = "$after" ] && echo unchanged
            """)
    }

    @Test func aLockedSecretServiceExits5AndLeavesTheFileUnchanged() {
        let result = onLockedStore(
            token: "AT-locked",
            """
            gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \\
                --method org.freedesktop.Secret.Service.Lock \\
                "['/org/freedesktop/secrets/collection/login']" >/dev/null \\
                || exit 91
            "$AUTHDECK_BIN" token a --keyring-timeout 10; echo "rc=$?"
            """)
        #expect(result.stdout.contains("rc=5"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("unchanged"))
        #expect(!result.stdout.contains("AT-locked"))
        #expect(result.stderr.contains("locked"))
    }

    @Test func aSecretServiceThatDoesNotAnswerTimesOutAsAnError() {
        let result = onLockedStore(
            token: "AT-hang",
            """
            # A "bus" that accepts connections and never says a word.
            socket="$AUTHDECK_HOME/../hang.sock"
            python3 -c 'import socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16); time.sleep(20)' "$socket" &
            listener=$!
            for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.05; done
            DBUS_SESSION_BUS_ADDRESS="unix:path=$socket" "$AUTHDECK_BIN" token a --keyring-timeout 1; echo "rc=$?"
            kill "$listener"
            """)
        #expect(result.stdout.contains("rc=5"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stderr.contains("did not answer within 1 s"))
        #expect(result.stdout.contains("unchanged"))
        // The message names the 1 s timeout: the keyring call was abandoned, not waited out (tests assert no wall
        // times; the runner's own timeout catches a hang).
    }
}
