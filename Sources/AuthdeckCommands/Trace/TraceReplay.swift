import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Synchronization

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
    /// The command's standard error.
    let errors: CommandOutput

    /// What one replay produced.
    struct Outcome {
        var exit: Int32
        var error: String?
        /// The error's code (`SignInError.code`), as the replay's own trace recorded it.
        var code: String?
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
        // The proxy's TOTP step is an extension the sandbox runs only when asked; the written config then
        // turns it on for the turnkey backends. A trace that took that step gets it again, one that did not, not.
        configuration.turnkeyTOTPExtension = plan.typesTOTP
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
        guard
            FileManager.default.createFile(
                atPath: passphraseFile, contents: Data((passphrase + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
        else {
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
            errors.write(
                "authdeck trace replay: sandbox at \(server.baseURL); running login \(plan.provider) "
                    + "(up to \(plan.timeout) s)\n")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = plan.loginArguments(trace: tracePath)
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        codes.types(into: input.fileHandleForWriting)
        let totpSecret = plan.typesTOTP ? SandboxUsers.builtIn.first { $0.name == plan.user }?.totpSecret : nil
        do {
            try process.run()
        } catch {
            throw CommandFailure(.failed, "cannot run \(executable): \(error.localizedDescription)")
        }
        // The login's stderr is read by a thread of its own with plain read(2), until the login closes it: what it
        // says tells when to type a code.
        try? errors.fileHandleForWriting.close()
        let finished = DispatchSemaphore(value: 0)
        let descriptor = errors.fileHandleForReading.fileDescriptor
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                codes.read(String(decoding: buffer[0..<count], as: UTF8.self))
                if codes.saw(marker: "Two-factor code required"), let totpSecret {
                    let now = Int64(Date().timeIntervalSince1970)
                    codes.type(TOTP.code(secret: Base32.decode(totpSecret) ?? [], time: now))
                }
            }
            finished.signal()
        }
        reader.start()
        process.waitUntilExit()
        finished.wait()
        codes.close()
        let bytes = FileManager.default.contents(atPath: tracePath).map { Array($0) } ?? []
        let replayed = bytes.isEmpty ? nil : try? TraceDocument(path: tracePath, bytes: bytes)
        return Outcome(
            exit: process.terminationStatus, error: replayed?.finalError, code: replayed?.finalCode,
            steps: replayed?.steps ?? [],
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
/// type them: a one-time code once both the sandbox has sent it and the login has said it was sent (a line typed
/// before that is refused as "not sent yet").
private final class CodeRelay: Sendable {
    private struct Relay {
        var input: FileHandle?
        var seen = ""
        var prompted = false
        var pendingCode: String?
        var typedCodes = 0
    }
    private let relay = Mutex(Relay())

    static let sentMarker = "code was sent to"

    /// Where typed codes go: the replayed login's standard input.
    func types(into input: FileHandle) {
        relay.withLock { $0.input = input }
    }

    func announced(_ line: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
            let code = object["code"] as? String
        else { return }
        relay.withLock { $0.pendingCode = code }
        typeWhenReady()
    }

    /// More of the login's standard error.
    func read(_ text: String) {
        relay.withLock { $0.seen += text }
        typeWhenReady()
    }

    private func typeWhenReady() {
        relay.withLock { relay in
            let announcements = relay.seen.components(separatedBy: Self.sentMarker).count - 1
            guard let code = relay.pendingCode, announcements > relay.typedCodes else { return }
            relay.pendingCode = nil
            relay.typedCodes += 1
            try? relay.input?.write(contentsOf: Data((code + "\n").utf8))
        }
    }

    /// Whether `marker` appeared in the login's output, answered true once.
    func saw(marker: String) -> Bool {
        relay.withLock { relay in
            guard !relay.prompted, relay.seen.contains(marker) else { return false }
            relay.prompted = true
            return true
        }
    }

    func type(_ code: String) {
        relay.withLock { relay in
            try? relay.input?.write(contentsOf: Data((code + "\n").utf8))
        }
    }

    func close() {
        relay.withLock { relay in
            try? relay.input?.close()
            relay.input = nil
        }
    }
}
