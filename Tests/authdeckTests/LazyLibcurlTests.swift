import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 17: libcurl is opened only when a request is sent. What was loaded comes from the dynamic loader
/// (`LD_DEBUG=files`) and the kernel (/proc/PID/maps), never from authdeck's own account.
@Suite(.serialized) struct LazyLibcurlTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        let passphrase = folder.write("passphrase", "correct horse battery staple\n")
        var base = CLIRunner(
            home: folder.path + "/home",
            extra: [
                "AUTHDECK_PASSPHRASE_FILE": passphrase, "XDG_RUNTIME_DIR": folder.path + "/run",
                "AUTHDECK_CONFIG": folder.write("config.json", "{}"), "BROWSER": "/bin/true",
            ])
        base.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        runner = base
    }

    /// authdeck-full itself, next to the lean `authdeck` (which would exec it).
    static var full: String {
        URL(fileURLWithPath: CLIRunner.binary).deletingLastPathComponent().path + "/authdeck-full"
    }

    func seed() {
        let lines = (1...2).map { index in
            "{\"key\":\"lazy-\(index)\",\"provider\":\"google\",\"subject\":\"s\(index)\",\"accessToken\":\"AT-\(index)\"}\n"
        }
        #expect(runner.run(["store", "import", "-"], stdin: lines.joined()).status == 0)
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

    /// The names of the files the dynamic loader opened for one run of authdeck-full (`file=NAME` lines).
    func loaderFiles(_ arguments: [String]) -> (result: CLIRunner.Result, files: [String]) {
        let result = runner.run(
            executable: Self.full, arguments, environment: ["LD_DEBUG": "files"], timeout: 60)
        let files = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " && $0 != "\t" })
        }
        return (result, files)
    }

    @Test func listNeverLoadsLibcurlWhileASentRequestDoes() throws {
        seed()
        let list = loaderFiles(["list"])
        #expect(list.result.status == 0, "stderr: \(list.result.stderr.suffix(2000))")
        // The loader's report is there (the store's SQLite is a needed library), and libcurl is not in it.
        #expect(list.files.contains { $0.hasPrefix("libsqlite3") }, "\(list.files)")
        #expect(!list.files.contains { $0.contains("libcurl") }, "\(list.files)")
        // The same probe sees libcurl come in once a request goes out.
        let login = loaderFiles(Self.loginAgainstNobody(try Self.closedPort()))
        #expect(login.result.status == 1, "stderr: \(login.result.stderr.suffix(2000))")
        #expect(login.files.contains("libcurl.so.4"), "\(login.files)")
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "tmux is not installed"))
    func theTUIMapsNoLibcurlAfterItsFirstFrame() throws {
        seed()
        let pane = try TmuxPane(
            command: [CLIRunner.binary, "tui"], environment: runner.environment, folder: folder.path)
        defer { pane.close() }
        try pane.waitFor("2 sessions")
        let pid = try #require(pane.commandPID())
        // Read to the end: /proc reports a size of 0, and a single read returns only the first page.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        handle.closeFile()
        #expect(maps.contains("libncursesw"), "not the TUI's maps?")
        #expect(!maps.contains("libcurl"))
        #expect(!maps.contains("libssl.so"), "libcurl's TLS half")
    }

    /// libcurl.so.4 as the loader would find it, symbolic links resolved.
    static func installedLibcurl() -> String? {
        for folder in [
            "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
        ] {
            guard let resolved = realpath(folder + "/libcurl.so.4", nil) else { continue }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return nil
    }

    @Test func aMissingLibcurlIsOneClearLineAndTheCommandFails() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            let library = Self.installedLibcurl()
        else {
            print("skipped: needs root, unshare and an installed libcurl.so.4 to hide")
            return
        }
        // In a mount namespace of its own, the library's file is an empty one: dlopen fails as it would without
        // libcurl4. Nothing outside the namespace sees the mount.
        let result = runner.run(
            executable: "/usr/bin/unshare",
            [
                "--mount", "--propagation", "private", "sh", "-c",
                "mount --bind /dev/null \"$1\" && shift && exec \"$@\"",
                "sh", library, Self.full,
            ] + Self.loginAgainstNobody(try Self.closedPort()), timeout: 60)
        if result.stderr.hasPrefix("unshare:") || result.stderr.hasPrefix("mount:") {
            print("skipped: cannot make a mount namespace here (\(result.stderr))")
            return
        }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        // The loader's own warnings about protected symbols (a debug build: Swift's runtime as shared libraries
        // next to a non-PIE executable) are not authdeck's output.
        let lines = result.stderr.split(separator: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("warning: direct reference to protected")
        }
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("cannot load libcurl.so.4: "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("install libcurl4"), "stderr: \(result.stderr)")
        // The file was left alone for everyone else.
        #expect((try? FileManager.default.attributesOfItem(atPath: library)[.size] as? Int) ?? 0 > 0)
    }
}
