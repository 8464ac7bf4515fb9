import Foundation
import Synchronization

@testable import AuthdeckCommands

extension CLIRunner {
    /// This runner, with `run(_:)` calling the commands in the test's own process (`runInProcess`).
    var inProcess: CLIRunner {
        var runner = self
        runner.runsInProcess = true
        return runner
    }

    /// This runner, with `run(_:)` starting the real binary: for the tests that keep the real entry covered.
    var realBinary: CLIRunner {
        var runner = self
        runner.runsInProcess = false
        return runner
    }

    /// `authdeck ARGUMENTS` as `CommandLineApp.main` runs it in `authdeck-full`, but in this process: this runner's
    /// environment (and `extra` over it), `stdin` as the input (none: an empty one), and both outputs captured, the
    /// same shape `run` gives for the binary. Nothing of the process is touched (no variable, folder, mask, signal
    /// handler or descriptor), so parallel tests may call it; commands that take a process over (exec, login, the
    /// TUI, the agent, the sandbox server, trace replay) stop at once here (`CommandEnvironment.requireProcess`).
    /// What the lean `authdeck` serves itself (`token` from the cache, `list --json`) goes the long way here.
    /// A command still running after `timeout` is reported as timed out and left to end on its thread.
    func runInProcess(
        _ arguments: [String], stdin: String? = nil, environment extra: [String: String?] = [:],
        timeout: TimeInterval = 30
    ) -> Result {
        var variables = environment
        for (name, value) in extra { variables[name] = value }
        variables["AUTHDECK_BIN"] = Self.binary
        // libsecret (and libcurl's proxy settings) read this process's own variables, not the command's.
        let bus = variables["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        precondition(
            bus.isEmpty || bus == ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
            "a command in this process reaches only this process's session bus; run the binary for another one")
        let output = Recorded<[UInt8]>()
        let errors = Recorded<[UInt8]>()
        let commandEnvironment = CommandEnvironment(
            variables: variables, input: .given(Array((stdin ?? "").utf8)), output: .captured(output),
            errors: .captured(errors), ownsProcess: false)
        let status = Recorded<Int32>()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            status.append(CommandLineApp.main(arguments, environment: commandEnvironment))
            finished.signal()
        }
        // As much stack as the binary's main thread has (a secondary thread's default is smaller).
        thread.stackSize = 8 << 20
        thread.start()
        let ended = finished.wait(timeout: .now() + timeout) == .success
        func text(_ chunks: Recorded<[UInt8]>) -> String { String(decoding: chunks.all.joined(), as: UTF8.self) }
        return Result(status: status.all.first ?? -1, stdout: text(output), stderr: text(errors), timedOut: !ended)
    }
}

extension CommandOutput {
    /// Keeps what is written, one chunk a write (not a terminal).
    static func captured(_ chunks: Recorded<[UInt8]>) -> CommandOutput {
        CommandOutput(isTerminal: false) { written in
            chunks.append(Array(written))
            return true
        }
    }
}

extension CommandInput {
    /// `bytes` as a command's whole input (not a terminal): lines as Swift's `readLine` gives them, then the rest.
    static func given(_ bytes: [UInt8]) -> CommandInput {
        let unread = UnreadBytes(bytes)
        return CommandInput(
            isTerminal: false, line: { unread.line() },
            rest: { limit throws(BoundedRead.Failure) in
                let rest = unread.rest()
                guard rest.count <= limit else { throw .tooLarge }
                return rest
            })
    }
}

/// The part of a given input not read yet.
private final class UnreadBytes: Sendable {
    private let bytes: Mutex<ArraySlice<UInt8>>

    init(_ bytes: [UInt8]) { self.bytes = Mutex(bytes[...]) }

    /// The next line without its line break (`\n` or `\r\n`); nil at the end.
    func line() -> String? {
        bytes.withLock { rest -> String? in
            guard !rest.isEmpty else { return nil }
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
            var line = rest[..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            rest = end == rest.endIndex ? rest[end...] : rest[(end + 1)...]
            return String(decoding: line, as: UTF8.self)
        }
    }

    func rest() -> [UInt8] {
        bytes.withLock { rest in
            defer { rest = rest[rest.endIndex...] }
            return Array(rest)
        }
    }
}
