import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The hostile provider of Tests/authdeckTests/Fixtures/hostile-provider.py, running for one test.
final class HostileProvider: @unchecked Sendable {
    let process: Process
    let baseURL: String
    let logPath: String

    init(folder: TemporaryFolder, runner: CLIRunner) throws {
        logPath = folder.path + "/hostile.log"
        let script = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/hostile-provider.py"
        (process, baseURL) = try runner.startServer(
            executable: "/usr/bin/env", ["python3", script], environment: ["HOSTILE_LOG": logPath],
            output: folder.path + "/hostile.out", what: "hostile provider")
    }

    /// The requests it received, as `METHOD PATH` lines.
    var requests: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Every request it received whole (method and path, headers, body), one string each.
    var wire: [String] {
        let bytes = FileManager.default.contents(atPath: logPath + ".wire") ?? Data()
        return String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n----\n").filter { !$0.isEmpty }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// What a hostile or compromised provider can do to the command line: terminal escapes, URLs for the browser, huge
/// answers, and `--issuer` against config.json endpoints.
@Suite(.serialized) struct HostileProviderTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let provider: HostileProvider

    init() throws {
        let base = CLIRunner.passphraseStore(in: folder, config: nil, extra: ["BROWSER": folder.path + "/browser"])
        runner = base
        provider = try HostileProvider(folder: folder, runner: base)
        // A browser that only notes what it was asked to open.
        let script = "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(folder.path)/opened'\n"
        _ = FileManager.default.createFile(
            atPath: folder.path + "/browser", contents: Data(script.utf8),
            attributes: [.posixPermissions: 0o700])
    }

    /// Bytes no output may carry: C0 controls but newline, DEL, C1 controls, bidi overrides and isolates.
    static func forbidden(in text: String) -> [String] {
        text.unicodeScalars.compactMap { scalar in
            let value = scalar.value
            let bad =
                (value < 0x20 && value != 0x0A) || (0x7F...0x9F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            return bad ? String(format: "U+%04X", value) : nil
        }
    }

    @Test func deviceCodesAndErrorsFromAHostileProviderReachTheTerminalClean() throws {
        let result = runner.run(
            [
                "login", "oidc", "--device", "--issuer", provider.baseURL + "/hostile",
                "--client-id", "authdeck-test", "--timeout", "20",
            ], timeout: 40)
        #expect(result.status == 4, "stderr: \(result.stderr)")
        // The provider's words are still there, minus what would act on the terminal.
        #expect(result.stderr.contains("WDJB"))
        #expect(result.stderr.contains("MJHT"))
        #expect(result.stderr.contains("by policy"))
        #expect(Self.forbidden(in: result.stderr).isEmpty, "stderr carries \(Self.forbidden(in: result.stderr))")
        #expect(Self.forbidden(in: result.stdout).isEmpty, "stdout carries \(Self.forbidden(in: result.stdout))")
        // verification_uri_complete was a file: URL: the browser was never started with it.
        let opened = (try? String(contentsOfFile: folder.path + "/opened", encoding: .utf8)) ?? ""
        #expect(!opened.contains("file:"))
    }

    /// The peak RSS in KiB of `login oidc --device` against `route`, from the kernel's rusage through a small
    /// Python wrapper, and its standard error.
    func peakOfLogin(_ route: String, environment: [String: String?]) throws -> (kib: Int, stderr: String) {
        let wrapper = """
            import resource, subprocess, sys
            done = subprocess.run(sys.argv[1:], capture_output=True, timeout=60)
            sys.stderr.write(done.stderr.decode(errors="replace"))
            print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let result = runner.run(
            executable: "/usr/bin/env",
            [
                "python3", "-c", wrapper, CLIRunner.binary, "login", "oidc", "--device",
                "--issuer", provider.baseURL + "/" + route, "--client-id", "authdeck-test", "--timeout", "20",
            ], environment: environment, timeout: 90)
        let fields = result.stdout.split(separator: " ")
            .map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(fields.count == 2, "wrapper output: \(result.stdout) \(result.stderr)")
        return (Int(fields[1]) ?? Int.max, result.stderr)
    }

    @Test func claimsAProviderSentAreListedClean() throws {
        // As an ID token from a hostile provider would have them (JSON escapes, so the store holds the raw bytes).
        let hostile = "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b1m\\u202e\\u2066"
        let line =
            #"{"key":"k","backend":"direct","provider":"oidc","subject":"s","issuer":"https://id.example.com","#
            + #""accessToken":"t","expiresAt":"2099-01-01T00:00:00Z","#
            + #""displayName":"Mallory \#(hostile)","email":"m\#(hostile)@example.com"}"#
        let imported = runner.run(["store", "import", "-"], stdin: line + "\n")
        try #require(imported.status == 0, "stderr: \(imported.stderr)")
        for command in [["list"], ["list", "--json"], ["status"], ["status", "k"]] {
            let result = runner.run(command)
            #expect(
                result.stdout.contains("Mallory") || result.stdout.contains("example.com"),
                "\(command): \(result.stdout) \(result.stderr)")
            #expect(
                Self.forbidden(in: result.stdout + result.stderr).isEmpty,
                "\(command) carries \(Self.forbidden(in: result.stdout + result.stderr))")
        }
    }

    @Test(arguments: ["big", "bigcl"])
    func aFiftyMegabyteAnswerIsRefusedWithinASmallMemoryBound(_ route: String) throws {
        // A store from before scrypt N = 2^17 (32 MiB to unlock rather than 128), so the answer, not the key
        // derivation, sets the peak.
        let home = folder.path + "/rss-home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/store-scrypt-n15.db",
            toPath: home + "/sessions.db")
        let environment = [
            "AUTHDECK_HOME": home,
            "AUTHDECK_PASSPHRASE_FILE": folder.write("rss-pass", "fixture passphrase 2026\n"),
        ]
        let baseline = try peakOfLogin("hostile", environment: environment)
        let big = try peakOfLogin(route, environment: environment)
        #expect(big.stderr.contains("more than 1 MiB"), "stderr: \(big.stderr)")
        // Buffering took the whole answer and more (659 MB for 300 MB); reading with the cap takes about nothing.
        #expect(big.kib - baseline.kib < 25 * 1024, "peak RSS \(big.kib) KiB against \(baseline.kib) KiB")
    }

    @Test func issuerOnTheCommandLineOverridesEndpointsFromConfig() throws {
        // config.json names the endpoints of another host; --issuer must win over all of them.
        let other = provider.baseURL + "/config-host"
        let config = """
            {"providers": {"oidc": {"clientID": "authdeck-test", "issuer": "\(other)",
              "authorizationEndpoint": "\(other)/authorize", "tokenEndpoint": "\(other)/token",
              "deviceAuthorizationEndpoint": "\(other)/device", "jwksURI": "\(other)/jwks"}}}
            """
        let configPath = folder.write("config.json", config)
        let result = runner.run(
            [
                "login", "oidc", "--device", "--issuer", provider.baseURL + "/hostile",
                "--config", configPath, "--client-id", "authdeck-test", "--timeout", "20",
            ], timeout: 40)
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(provider.requests.contains { $0.hasPrefix("POST /hostile/device") }, "\(provider.requests)")
        #expect(!provider.requests.contains { $0.contains("/config-host/") }, "\(provider.requests)")
    }
}

/// `--trace` never writes through a planted symlink and always leaves a 0600 file.
@Suite(.serialized) struct TraceFileTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let provider: HostileProvider

    init() throws {
        let base = CLIRunner.passphraseStore(in: folder, config: nil, extra: ["BROWSER": "/bin/true"])
        runner = base
        provider = try HostileProvider(folder: folder, runner: base)
    }

    func login(trace: String) -> CLIRunner.Result {
        runner.run(
            [
                "login", "oidc", "--device", "--issuer", provider.baseURL + "/hostile", "--client-id", "x",
                "--timeout", "20", "--trace", trace,
            ], timeout: 40)
    }

    @Test func aSymlinkAtTheTracePathIsRefusedAndItsTargetUntouched() throws {
        let victim = folder.write("victim", "precious\n")
        let trace = folder.path + "/trace.jsonl"
        try #require(symlink(victim, trace) == 0)
        let result = login(trace: trace)
        #expect(result.status != 0)
        #expect(result.stderr.contains("symbolic link"), "stderr: \(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    @Test func anExistingTraceFileEndsUpReadableByTheUserOnly() throws {
        let trace = folder.write("trace.jsonl", "old\n")
        try #require(chmod(trace, 0o644) == 0)
        _ = login(trace: trace)
        var info = stat()
        #expect(lstat(trace, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        #expect(text.contains("\"authorize\"") || text.contains("device"), "trace: \(text)")
        #expect(!text.hasPrefix("old"))
    }
}
