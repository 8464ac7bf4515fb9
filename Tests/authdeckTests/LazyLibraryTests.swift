import Foundation
import Testing

/// libsecret and libmicrohttpd are loaded with dlopen by the processes that use them, never at start: the dynamic
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

    @Test func listingAPassphraseStoreLoadsNeitherLibsecretNorLibmicrohttpd() throws {
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
        for library in ["libsecret-1.so.0", "libglib-2.0.so.0", "libmicrohttpd.so.12"] {
            #expect(!names.contains(library), "\(library) was loaded")
        }
    }

    /// Whether this process may make a private mount namespace and mount in it (root, outside a locked container).
    static let canHide: Bool = {
        guard getuid() == 0 else { return false }
        let probe = CLIRunner(home: "/nonexistent").run(
            executable: "/usr/bin/unshare", ["-m", "bash", "-c", "mount --bind /dev/null /dev/null"])
        return probe.status == 0
    }()

    /// Runs `script` under bash in a private mount namespace where `library` is an empty file; nil (and a printed
    /// reason) when this process may not make one.
    func withHidden(_ library: String, _ script: String) -> CLIRunner.Result? {
        guard Self.canHide else {
            print("skipped: hiding \(library) needs a private mount namespace (root, and unshare allowed here)")
            return nil
        }
        return CLIRunner(home: home).run(
            executable: "/usr/bin/unshare",
            [
                "-m", "bash", "-c",
                """
                set -u
                path=$(ldconfig -p | awk -v name="\(library)" '$1 == name {print $NF; exit}')
                mount --bind /dev/null "$(readlink -f "$path")" || exit 91
                \(script)
                """,
            ])
    }

    @Test func aMissingLibmicrohttpdIsOneLineFromTheSandbox() throws {
        guard
            let result = withHidden(
                "libmicrohttpd.so.12",
                """
                "$AUTHDECK_BIN" sandbox --port 0 2>"$AUTHDECK_HOME.err"; echo "rc=$?"
                sed 's/^/said: /' "$AUTHDECK_HOME.err"
                """)
        else { return }
        let said = result.stdout.split(separator: "\n").filter { $0.hasPrefix("said: ") }
        #expect(result.stdout.contains("rc=1"), "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(said.count == 1, "\(result.stdout)")
        #expect(said.first?.contains("cannot load libmicrohttpd.so.12") == true, "\(said)")
    }
}
