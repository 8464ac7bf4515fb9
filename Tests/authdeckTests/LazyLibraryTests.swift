import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libsecret, libmicrohttpd, libcurl and libfido2 are loaded with dlopen by the processes that use them, never at start: the dynamic
/// loader's own report (LD_DEBUG=files) says what a process loaded, and a private mount namespace hides a library
/// from one process to show what a missing one looks like.
@Suite struct LazyLibraryTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    /// The libraries the dynamic loader reports loading (LD_DEBUG=files), by file name. The lean binary is static
    /// and says nothing; authdeck-full, which it hands `list` and unlocking over to, does.
    static func loaded(_ result: CLIRunner.Result) -> Set<String> {
        var names: Set<String> = []
        for line in result.stderr.split(separator: "\n") {
            guard let start = line.range(of: "file=") else { continue }
            let name = line[start.upperBound...].prefix { $0 != " " && $0 != "\t" && $0 != "[" }
            names.insert(String(name.split(separator: "/").last ?? name))
        }
        return names
    }

    @Test func listingAPassphraseStoreLoadsNoLibraryItDoesNotUse() throws {
        let runner = CLIRunner(home: home)
        let passphrase = folder.write("pass", "never the secret service\n")
        var environment: [String: String?] = ["AUTHDECK_PASSPHRASE_FILE": passphrase, "DBUS_SESSION_BUS_ADDRESS": ""]
        let line = "{\"key\":\"a\",\"provider\":\"google\",\"accessToken\":\"AT-p\"}\n"
        #expect(runner.run(["store", "import", "-"], stdin: line, environment: environment).status == 0)
        #expect(runner.run(["store", "lock"], environment: environment).status == 0)
        environment["LD_DEBUG"] = "files"
        let listed = runner.run(["list"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr.suffix(400))")
        let names = Self.loaded(listed)
        #expect(names.contains("libsqlite3.so.0"), "the loader's report was not read: \(names.sorted())")
        for library in ["libsecret-1.so.0", "libglib-2.0.so.0", "libmicrohttpd.so.12", "libcurl.so.4", "libfido2.so.1"]
        {
            #expect(!names.contains(library), "\(library) was loaded")
        }
        // The same probe sees libcurl come in once a request goes out (discovery, to a port nobody listens on).
        environment["XDG_RUNTIME_DIR"] = folder.path + "/run"
        environment["AUTHDECK_CONFIG"] = folder.write("config.json", "{}")
        environment["BROWSER"] = "/bin/true"
        let login = runner.run(Self.loginAgainstNobody(try Self.closedPort()), environment: environment, timeout: 60)
        #expect(login.status == 1, "\(login.stderr.suffix(400))")
        #expect(Self.loaded(login).contains("libcurl.so.4"))
    }

    /// `token` with the master key cached is answered by the lean binary alone, which is static: the loader reports
    /// loading nothing, where authdeck-full (every other case) loads SQLite's library among others. The lean binary
    /// finds the store through `$AUTHDECK_HOME` and the session through `$AUTHDECK_SESSION`, read by itself, and opens
    /// the database read-only through a `file:` URI: the folder's name holds the characters such a URI escapes.
    @Test func aCachedTokenIsAnsweredWithoutTheDynamicLoader() throws {
        guard CLIRunner.kernelKeyringWorks else {
            print("skipped: the kernel keyring (keyctl show @u) is unavailable here, so no key can be cached")
            return
        }
        let passphrase = folder.write("pass", "cached for the lean binary\n")
        let runner = CLIRunner(home: folder.path + "/a store %41?#x", passphraseFile: passphrase)
        let lines =
            "{\"key\":\"lean-a\",\"provider\":\"google\",\"accessToken\":\"AT-a\"}\n"
            + "{\"key\":\"lean-b\",\"provider\":\"google\",\"accessToken\":\"AT-b\"}\n"
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        #expect(runner.run(["token", "lean-a"]).stdout == "AT-a\n")  // unlocks, and caches the key
        let served = runner.run(
            ["token"],
            environment: ["LD_DEBUG": "files", "AUTHDECK_SESSION": "lean-b", "AUTHDECK_PASSPHRASE_FILE": nil])
        #expect(served.stdout == "AT-b\n", "\(served.stderr.suffix(400))")
        #expect(Self.loaded(served).isEmpty, "authdeck-full answered: \(Self.loaded(served).sorted())")
    }

    /// A sign-in whose first request (discovery) goes to a port nobody listens on.
    static func loginAgainstNobody(_ port: UInt16) -> [String] {
        [
            "login", "oidc", "--device", "--issuer", "http://127.0.0.1:\(port)/x", "--client-id", "authdeck-test",
            "--timeout", "10",
        ]
    }

    /// A port that was free a moment ago.
    static func closedPort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed"))
    func theTUIMapsNoLibcurlAfterItsFirstFrame() throws {
        let passphrase = folder.write("pass", "correct horse battery staple\n")
        var runner = CLIRunner(home: home, extra: ["AUTHDECK_PASSPHRASE_FILE": passphrase])
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let lines =
            "{\"key\":\"lazy-1\",\"provider\":\"google\",\"accessToken\":\"AT-1\"}\n"
            + "{\"key\":\"lazy-2\",\"provider\":\"google\",\"accessToken\":\"AT-2\"}\n"
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("2 sessions")
        let pid = try #require(pane.commandPID())
        // Read to the end: /proc reports a size of 0, and a single read returns only the first page.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        handle.closeFile()
        #expect(maps.contains("libncursesw"), "not the TUI's maps?")
        for library in ["libcurl", "libssl.so", "libmicrohttpd", "libsecret", "libglib"] {
            #expect(!maps.contains(library), "\(library) is mapped")
        }
    }

    /// Whether this process may make a private mount namespace and mount in it (root, outside a locked container).
    static let canHide: Bool = {
        guard getuid() == 0 else { return false }
        let probe = CLIRunner(home: "/nonexistent").run(
            executable: "/usr/bin/unshare", ["-m", "bash", "-c", "mount --bind /dev/null /dev/null"])
        return probe.status == 0
    }()

    /// Runs `command` under bash in a private mount namespace where `library` is an empty file, expects it to fail
    /// (exit 1) with exactly one line on stderr, and returns that line; nil (and a printed reason) when this process
    /// may not make a namespace.
    func oneLineFailure(hiding library: String, _ command: String) -> String? {
        guard Self.canHide else {
            print("skipped: hiding \(library) needs a private mount namespace (root, and unshare allowed here)")
            return nil
        }
        let result = CLIRunner(home: home).run(
            executable: "/usr/bin/unshare",
            [
                "-m", "bash", "-c",
                """
                set -u
                path=$(ldconfig -p | awk -v name="\(library)" '$1 == name {print $NF; exit}')
                mount --bind /dev/null "$(readlink -f "$path")" || exit 91
                \(command) 2>"$AUTHDECK_HOME.err"; echo "rc=$?"
                sed 's/^/said: /' "$AUTHDECK_HOME.err"
                """,
            ])
        let said = result.stdout.split(separator: "\n").filter { $0.hasPrefix("said: ") }
        #expect(result.stdout.contains("rc=1"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(said.count == 1, "\(result.stdout)")
        return said.first.map { String($0.dropFirst("said: ".count)) } ?? ""
    }

    @Test func aMissingLibmicrohttpdIsOneLineFromTheSandbox() throws {
        guard let said = oneLineFailure(hiding: "libmicrohttpd.so.12", #""$AUTHDECK_BIN" sandbox --port 0"#) else {
            return
        }
        #expect(said.contains("cannot load libmicrohttpd.so.12"), "\(said)")
    }

    @Test func aMissingLibcurlIsOneLineAndTheSignInFails() throws {
        let port = try Self.closedPort()
        let login = Self.loginAgainstNobody(port).map { "'\($0)'" }.joined(separator: " ")
        let command = """
            printf '{}' > "$AUTHDECK_HOME.config" && AUTHDECK_CONFIG="$AUTHDECK_HOME.config" BROWSER=/bin/true \
                "$AUTHDECK_BIN" \(login)
            """
        guard let said = oneLineFailure(hiding: "libcurl.so.4", command) else { return }
        #expect(said.contains("cannot load libcurl.so.4: "), "\(said)")
        #expect(said.contains("install libcurl4"), "\(said)")
    }
}
