import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
#if canImport(Glibc)
import Glibc
#endif

/// `authdeck trace replay FILE`: starts a sandbox with the plan's faults, runs the same `login` against it in a
/// fresh, throw-away home (its own store with a random passphrase, so no secret of the user's is ever needed),
/// approves in the sandbox as a browser would, types the one-time and TOTP codes the sandbox knows, and ends with
/// the replayed sign-in's exit code, saying whether the error is the customer's.
struct TraceReplay {
    let document: TraceDocument
    let plan: TraceReplayPlan
    let quiet: Bool

    /// What one replay produced.
    struct Outcome {
        var exit: Int32
        var error: String?
        var steps: [TraceStep]
        var traceBytes: [UInt8]

        var exitCode: ExitCode { ExitCode(rawValue: exit) ?? .failed }
    }

    func run() throws(CommandFailure) -> Outcome {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let codes = CodeRelay()
        var configuration = SandboxConfiguration()
        configuration.faults = plan.faults
        configuration.deviceInterval = 1
        configuration.announce = { line in codes.announced(line) }
        let server: SandboxServer
        do {
            server = try SandboxServer(configuration: configuration)
        } catch {
            throw CommandFailure(.failed, "cannot start the sandbox: \(error.description)")
        }
        defer { server.stop() }
        let configPath = folder + "/config.json"
        do {
            try server.writeConfig(to: configPath)
        } catch {
            throw CommandFailure(.failed, error.description)
        }
        let passphrase = Base64URL.encode((try? SecureRandom.bytes(24)) ?? Array("replay passphrase".utf8))
        let passphraseFile = folder + "/passphrase"
        guard FileManager.default.createFile(atPath: passphraseFile, contents: Data((passphrase + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure(.failed, "cannot write in \(folder)")
        }
        let tracePath = folder + "/replay.jsonl"
        let executable = Self.executable
        var environment = ProcessInfo.processInfo.environment
        for name in ["AUTHDECK_SESSION", "DBUS_SESSION_BUS_ADDRESS", "AUTHDECK_EXPORT_PASSPHRASE_FILE"] {
            environment[name] = nil
        }
        environment["AUTHDECK_HOME"] = folder + "/home"
        environment["AUTHDECK_CONFIG"] = configPath
        environment["AUTHDECK_PASSPHRASE_FILE"] = passphraseFile
        environment["XDG_RUNTIME_DIR"] = folder + "/run"
        environment["BROWSER"] = "\(executable) sandbox approve --quiet --user \(plan.user)"

        if !quiet {
            Output.err("authdeck trace replay: sandbox at \(server.baseURL); running login \(plan.provider) "
                + "(up to \(plan.timeout) s)\n")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = plan.loginArguments(trace: tracePath)
        process.environment = environment
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        codes.input = input.fileHandleForWriting
        let totpSecret = plan.typesTOTP ? SandboxUsers.builtIn.first { $0.name == plan.user }?.totpSecret : nil
        errors.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            if codes.saw(text, marker: "Two-factor code required"), let totpSecret {
                let code = TOTP.code(secret: Base32.decode(totpSecret) ?? [], time: Int64(Date().timeIntervalSince1970))
                codes.type(code)
            }
        }
        output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
        do {
            try process.run()
        } catch {
            throw CommandFailure(.failed, "cannot run \(executable): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        errors.fileHandleForReading.readabilityHandler = nil
        output.fileHandleForReading.readabilityHandler = nil
        codes.close()
        let bytes = FileManager.default.contents(atPath: tracePath).map { Array($0) } ?? []
        let replayed = bytes.isEmpty ? nil : try? TraceDocument(path: tracePath, bytes: bytes)
        return Outcome(exit: process.terminationStatus, error: replayed?.finalError, steps: replayed?.steps ?? [],
                       traceBytes: bytes)
    }

    /// The running authdeck-full, which serves `login` and `sandbox approve` itself.
    static var executable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    private static func temporaryFolder() throws(CommandFailure) -> String {
        var template = Array((NSTemporaryDirectory() + "/authdeck-replay.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CommandFailure(.failed, "cannot make a temporary folder for the replay")
        }
        return String(cString: made)
    }
}

/// Hands the sandbox's one-time codes (and TOTP codes) to the replayed login's standard input, as a person would
/// type them once they arrive.
private final class CodeRelay: @unchecked Sendable {
    private let lock = NSLock()
    var input: FileHandle?
    private var seen = ""
    private var prompted = false

    func announced(_ line: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let code = object["code"] as? String else { return }
        // The login says the code was sent after the sandbox wrote it; a moment's wait keeps the line after that.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { self.type(code) }
    }

    /// Whether `marker` appeared in the text so far for the first time.
    func saw(_ text: String, marker: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        seen += text
        guard !prompted, seen.contains(marker) else { return false }
        prompted = true
        return true
    }

    func type(_ code: String) {
        lock.lock()
        defer { lock.unlock() }
        try? input?.write(contentsOf: Data((code + "\n").utf8))
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        try? input?.close()
        input = nil
    }
}
