import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the real `authdeck` binary (built next to the test bundle) as a child process: arguments, environment and
/// standard input in, stdout, stderr and the exit status out, with a timeout that kills a hung child.
struct CLIRunner: Sendable {
    /// What one run produced.
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// `.build/<config>/authdeck`, found next to the running test bundle.
    static let binary: String = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        // The test binary sits inside authdeckPackageTests.xctest on some layouts; climb out of it.
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("authdeck").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return "authdeck"
    }()

    /// Whether this process's user keyring answers (`keyctl show @u`): without it no master key or token is cached,
    /// and the tests of the cached path say they skipped.
    static let kernelKeyringWorks: Bool = {
        CLIRunner(home: "/nonexistent").run(executable: "/usr/bin/keyctl", ["show", "@u"]).status == 0
    }()

    /// The repository root, for scripts/with-keyring.sh.
    static let repositoryRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// The environment every run starts from: this process's, minus what would leak the user's own store in.
    var environment: [String: String]

    /// The temporary folder of a runner that made its own (`passphraseStore()`), kept for as long as the runner.
    private var ownFolder: TemporaryFolder?

    /// Whether `run(_:)` calls the commands in this process (`inProcess`) instead of starting the binary.
    var runsInProcess = false

    /// A runner whose store lives in `home`; no passphrase file, the inherited session bus.
    init(home: String, extra: [String: String] = [:]) {
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "AUTHDECK_SESSION", "AUTHDECK_PASSPHRASE_FILE", "AUTHDECK_EXPORT_PASSPHRASE_FILE",
            "AUTHDECK_CONFIG",
        ] {
            environment[name] = nil
        }
        environment["AUTHDECK_HOME"] = home
        environment.merge(extra) { _, new in new }
        self.environment = environment
    }

    /// A runner whose store in `home` the passphrase in `passphraseFile` unlocks, with no session bus (so no Secret
    /// Service: the same on every machine), then `extra`.
    init(home: String, passphraseFile: String, extra: [String: String] = [:]) {
        self.init(
            home: home,
            extra: ["AUTHDECK_PASSPHRASE_FILE": passphraseFile, "DBUS_SESSION_BUS_ADDRESS": ""].merging(extra) { $1 })
    }

    /// Runs authdeck with `arguments`.
    func run(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String?] = [:],
        timeout: TimeInterval = 30
    ) -> Result {
        if runsInProcess { return runInProcess(arguments, stdin: stdin, environment: extra, timeout: timeout) }
        return run(executable: Self.binary, arguments, stdin: stdin, environment: extra, timeout: timeout)
    }

    /// Runs any program (bash scripts that drive authdeck in a loop, with-keyring.sh).
    func run(
        executable: String, _ arguments: [String], stdin: String? = nil,
        environment extra: [String: String?] = [:], timeout: TimeInterval = 30
    ) -> Result {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0, pipe(&errors) == 0 else {
            return Result(status: -1, stdout: "", stderr: "cannot create pipes", timedOut: false)
        }
        // Only the child's dup2'd copies may survive exec; stray copies would keep a pipe from ever ending.
        for descriptor in input + output + errors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let child: SpawnedProcess
        do {
            child = try spawn(
                executable: executable, arguments, environment: extra,
                descriptors: (input[0], output[1], errors[1]))
        } catch {
            for descriptor in input + output + errors { close(descriptor) }
            return Result(status: -1, stdout: "", stderr: "cannot start \(executable): \(error)", timedOut: false)
        }
        close(input[0])
        close(output[1])
        close(errors[1])
        let stdoutReader = PipeReader(output[0])
        let stderrReader = PipeReader(errors[0])
        if let stdin {
            var bytes = Array(stdin.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes {
                    write(input[1], $0.baseAddress! + offset, $0.count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }
                offset += written
            }
        }
        close(input[1])
        let (status, timedOut) = child.wait(timeout: timeout)
        // A grandchild (a background listener) may hold the pipes open; do not wait for it for long.
        return Result(
            status: status, stdout: stdoutReader.finish(within: 2), stderr: stderrReader.finish(within: 2),
            timedOut: timedOut)
    }

    /// Starts a program and returns at once, its standard output going to `stdoutPath` (else nowhere); waited for
    /// with waitpid (see `spawn`).
    func spawn(
        executable: String, _ arguments: [String], environment extra: [String: String?] = [:],
        stdoutPath: String? = nil
    ) throws -> SpawnedProcess {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        let out = stdoutPath.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } ?? null
        defer {
            close(null)
            if out != null { close(out) }
        }
        return try spawn(executable: executable, arguments, environment: extra, descriptors: (null, out, null))
    }

    /// Starts a program with Foundation's Process and returns at once (long-running servers such as the sandbox).
    func start(
        executable: String, _ arguments: [String], environment extra: [String: String?] = [:],
        stdout: FileHandle? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        environment["AUTHDECK_BIN"] = Self.binary
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts a server with `start`, its standard output kept in the file `output`, and waits (10 s at most) for
    /// the first line it prints, a `http://127.0.0.1:PORT` base URL, and for `ready`; else stops it and throws,
    /// naming it as `what`.
    func startServer(
        executable: String, _ arguments: [String], environment extra: [String: String?] = [:], output: String,
        what: String, ready: () -> Bool = { true }
    ) throws -> (process: Process, baseURL: String) {
        FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = try start(executable: executable, arguments, environment: extra, stdout: handle)
        var first: String?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: output, encoding: .utf8), text.contains("\n"), ready() {
                first = text.split(separator: "\n").first.map(String.init)
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let first, first.hasPrefix("http://127.0.0.1:") else {
            process.terminate()
            process.waitUntilExit()
            throw CLIFailure("the \(what) printed no base URL")
        }
        return (process, first)
    }

    /// posix_spawn and waitpid, not Foundation's Process: once GLib is loaded in this process (the Secret Service
    /// tests share it), Process stopped reporting some exits and its waits hung; polling waitpid cannot miss one.
    private func spawn(
        executable: String, _ arguments: [String], environment extra: [String: String?],
        descriptors: (Int32, Int32, Int32)
    ) throws -> SpawnedProcess {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        environment["AUTHDECK_BIN"] = Self.binary
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors.0, 0)
        posix_spawn_file_actions_adddup2(&actions, descriptors.1, 1)
        posix_spawn_file_actions_adddup2(&actions, descriptors.2, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard status == 0 else { throw SpawnError(code: status) }
        return SpawnedProcess(pid: pid)
    }
}

/// posix_spawn failed with this errno.
struct SpawnError: Error {
    let code: Int32
}

/// A child process this test started; waited for by polling waitpid, which no signal handler can intercept.
struct SpawnedProcess: Sendable {
    let pid: pid_t

    /// Waits for the exit, killing the child after `timeout`. Returns the exit status (128 + signal when killed).
    func wait(timeout: TimeInterval = 3600) -> (status: Int32, timedOut: Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return (Self.decode(status), false) }
            if result < 0 && errno != EINTR { return (-1, false) }
            if Date() >= deadline {
                Glibc.kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return (Self.decode(status), true)
            }
            usleep(2_000)
        }
    }

    func kill(_ signal: Int32) {
        _ = Glibc.kill(pid, signal)
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
    private let lock = NSLock()
    private var data: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)
    private let descriptor: Int32

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                lock.lock()
                data += buffer[0..<count]
                lock.unlock()
            }
            done.signal()
        }
    }

    func finish(within seconds: Int) -> String {
        let ended = done.wait(timeout: .now() + .seconds(seconds)) == .success
        lock.lock()
        defer { lock.unlock() }
        if ended { close(descriptor) }
        return String(decoding: data, as: UTF8.self)
    }
}

extension CLIRunner {
    /// A runner on a passphrase store of its own in `folder` (no session bus, so no Secret Service: the same on every
    /// machine): `passphrase` in a file, `config` written as config.json (nil: none named), a runtime folder unless
    /// `runtime` is false, then `extra`. With the defaults, what the TUI suites start from.
    static func passphraseStore(
        in folder: TemporaryFolder, passphrase: String = "correct horse battery staple", config: String? = "{}",
        runtime: Bool = true, extra: [String: String] = [:]
    ) -> CLIRunner {
        var runner = CLIRunner(
            home: folder.path + "/home",
            extra: ["AUTHDECK_PASSPHRASE_FILE": folder.write("passphrase", passphrase + "\n")])
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        if let config { runner.environment["AUTHDECK_CONFIG"] = folder.write("config.json", config) }
        if runtime { runner.environment["XDG_RUNTIME_DIR"] = folder.path + "/run" }
        runner.environment.merge(extra) { _, new in new }
        return runner
    }

    /// `passphraseStore(in:)` with the defaults, in a temporary folder of its own: `folder`.
    static func passphraseStore() -> CLIRunner {
        let folder = TemporaryFolder()
        var runner = passphraseStore(in: folder)
        runner.ownFolder = folder
        return runner
    }

    /// The folder `passphraseStore()` made for this runner.
    var folder: TemporaryFolder {
        guard let ownFolder else { preconditionFailure("only a runner from passphraseStore() has a folder") }
        return ownFolder
    }
}

extension CLIRunner {
    /// `authdeck ARGUMENTS` (the TUI unless told otherwise) in a tmux pane whose server lives in `folder`, with this
    /// runner's environment and `extra` over it.
    func startTUI(
        in folder: String, _ extra: [String: String] = [:], arguments: [String] = ["tui"], cols: Int = 100,
        rows: Int = 30, term: String = "xterm-256color"
    ) throws -> TmuxPane {
        var environment = self.environment
        environment.merge(extra) { _, new in new }
        return try TmuxPane(
            command: [Self.binary] + arguments, environment: environment, folder: folder, cols: cols, rows: rows,
            term: term)
    }
}

/// Sessions as `store import` takes them, for suites that start from a seeded store.
struct SeedSession {
    var key: String
    var backend = "direct"
    var provider: String
    var email: String
    /// Seconds from now.
    var created: TimeInterval
    var expires: TimeInterval
    var selected = false
    var accessToken: String

    /// The import line: every list field set, the issuer https://issuer.example, not refreshable.
    func line(now: Date) -> String {
        func iso(_ offset: TimeInterval) -> String {
            ISO8601DateFormatter().string(from: now.addingTimeInterval(offset))
        }
        return "{\"key\":\"\(key)\",\"backend\":\"\(backend)\",\"provider\":\"\(provider)\",\"subject\":\"s-\(key)\","
            + "\"email\":\"\(email)\",\"phone\":null,\"issuer\":\"https://issuer.example\","
            + "\"createdAt\":\"\(iso(created))\",\"expiresAt\":\"\(iso(expires))\",\"status\":\"active\","
            + "\"refreshable\":false,\"selected\":\(selected),\"accessToken\":\"\(accessToken)\"}"
    }

    /// Imports `sessions` into `runner`'s store through a file in `folder` (`store import FILE`), expecting success.
    static func importAll(
        _ sessions: [SeedSession], into runner: CLIRunner, via folder: TemporaryFolder,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let now = Date()
        let file = folder.write("seed.jsonl", sessions.map { $0.line(now: now) }.joined(separator: "\n") + "\n")
        let result = runner.run(["store", "import", file])
        #expect(result.status == 0, "import: \(result.stderr)", sourceLocation: sourceLocation)
    }
}

/// A short fingerprint of some bytes (size and FNV-1a 64), for equality checks whose failures stay readable.
enum Digest {
    static func of(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "\(bytes.count):" + String(hash, radix: 16)
    }
}

extension CLIRunner {
    /// What zbarimg (a decoder that is not authdeck's) reads from `modules` drawn as an image in `folder`; nil, with
    /// the skip printed for `suite`, when zbar-tools is not installed.
    func decodeQR(_ modules: [[Bool]], in folder: TemporaryFolder, suite: String) throws -> Result? {
        guard let zbarimg = QRImage.zbarimg else {
            print("\(suite): skipped decoding the QR code, zbarimg (zbar-tools) is not installed")
            return nil
        }
        let image = folder.path + "/screen-qr.pgm"
        try QRImage.pgm(modules).write(to: URL(fileURLWithPath: image))
        return run(executable: zbarimg, ["--raw", "-q", image])
    }
}
