import Foundation
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

    /// The repository root, for scripts/with-keyring.sh.
    static let repositoryRoot: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }()

    /// The environment every run starts from: this process's, minus what would leak the user's own store in.
    var environment: [String: String]

    /// A runner whose store lives in `home`; no passphrase file, the inherited session bus.
    init(home: String, extra: [String: String] = [:]) {
        var environment = ProcessInfo.processInfo.environment
        for name in ["AUTHDECK_SESSION", "AUTHDECK_PASSPHRASE_FILE", "AUTHDECK_EXPORT_PASSPHRASE_FILE",
                     "AUTHDECK_CONFIG"] {
            environment[name] = nil
        }
        environment["AUTHDECK_HOME"] = home
        environment.merge(extra) { _, new in new }
        self.environment = environment
    }

    /// Runs authdeck with `arguments`.
    func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String?] = [:],
             timeout: TimeInterval = 30) -> Result {
        run(executable: Self.binary, arguments, stdin: stdin, environment: extra, timeout: timeout)
    }

    /// Runs any program (bash scripts that drive authdeck in a loop, with-keyring.sh).
    func run(executable: String, _ arguments: [String], stdin: String? = nil,
             environment extra: [String: String?] = [:], timeout: TimeInterval = 30) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = self.environment
        for (name, value) in extra { environment[name] = value }
        environment["AUTHDECK_BIN"] = Self.binary
        process.environment = environment
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        let collected = Collected()
        output.fileHandleForReading.readabilityHandler = { collected.append(out: $0.availableData) }
        errors.fileHandleForReading.readabilityHandler = { collected.append(err: $0.availableData) }
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            return Result(status: -1, stdout: "", stderr: "cannot start \(executable): \(error)", timedOut: false)
        }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        collected.append(out: output.fileHandleForReading.readDataToEndOfFile())
        collected.append(err: errors.fileHandleForReading.readDataToEndOfFile())
        return Result(status: process.terminationStatus, stdout: collected.stdout, stderr: collected.stderr,
                      timedOut: timedOut)
    }

    /// Starts a program and returns at once; the caller waits for or kills it.
    func start(executable: String, _ arguments: [String], environment extra: [String: String?] = [:],
               stdout: FileHandle? = nil) throws -> Process {
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
}

/// Output gathered from pipe callbacks on Foundation's threads.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()

    func append(out data: Data) { lock.lock(); out.append(data); lock.unlock() }
    func append(err data: Data) { lock.lock(); err.append(data); lock.unlock() }
    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
}

/// A temporary folder for one test, removed when the test ends.
final class TemporaryFolder: @unchecked Sendable {
    let path: String

    init() {
        var template = Array("/tmp/authdeck-test.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "/tmp/authdeck-test-\(UUID().uuidString)"
        if made == nil { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` in this folder and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        return file
    }

    func bytes(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + name).map { [UInt8]($0) }
    }
}
