import AuthCore
import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Everything a command reads or writes outside its arguments: the environment variables, the clock, the three
/// standard streams and the store's location (from the variables). `main.swift` passes the process's own
/// (`process()`); tests pass one with variables of their choosing and captured streams, and run the command in
/// their own process. Commands reach it as `global.environment`.
public struct CommandEnvironment: Sendable {
    /// The environment variables (`$AUTHDECK_HOME`, `$AUTHDECK_SESSION`, `$SHELL`…).
    var variables: [String: String]
    /// Now, for what a command prints or compares against expiry.
    var now: @Sendable () -> Date
    var input: CommandInput
    var output: CommandOutput
    var errors: CommandOutput
    /// Whether this is the process's own environment. Only then may a command take the process over: exec,
    /// signal handlers, the terminal (the TUI), a server that runs until a signal. Such commands call
    /// `requireProcess`, so a test that runs one in its own process stops at once instead of disturbing it.
    let ownsProcess: Bool

    init(
        variables: [String: String], now: @escaping @Sendable () -> Date = { Date() }, input: CommandInput,
        output: CommandOutput, errors: CommandOutput, ownsProcess: Bool
    ) {
        self.variables = variables
        self.now = now
        self.input = input
        self.output = output
        self.errors = errors
        self.ownsProcess = ownsProcess
    }

    /// This process's: its variables, the system clock, and descriptors 0, 1 and 2.
    public static func process() -> CommandEnvironment {
        CommandEnvironment(
            variables: ProcessEnvironment.current(), input: .standardInput, output: .descriptor(STDOUT_FILENO),
            errors: .descriptor(STDERR_FILENO), ownsProcess: true)
    }

    /// Where the store lives, from `$AUTHDECK_HOME` or the XDG folders.
    var storeLocation: StoreLocation { StoreLocation.resolve(environment: variables) }

    /// Stops a command that would take the process over when it runs inside another program (a test).
    func requireProcess(_ command: String) {
        precondition(ownsProcess, "authdeck \(command) takes its process over and runs only as its own process")
    }
}

/// Standard input, or what a test gives a command as its input.
struct CommandInput: Sendable {
    /// Whether a person may be typing (a terminal): questions are asked only then.
    let isTerminal: Bool
    private let line: @Sendable () -> String?
    private let rest: @Sendable (_ limit: Int) throws(BoundedRead.Failure) -> [UInt8]

    init(
        isTerminal: Bool, line: @escaping @Sendable () -> String?,
        rest: @escaping @Sendable (_ limit: Int) throws(BoundedRead.Failure) -> [UInt8]
    ) {
        self.isTerminal = isTerminal
        self.line = line
        self.rest = rest
    }

    /// The next line without its newline; nil at the end of input.
    func readLine() -> String? { line() }

    /// Everything left, up to `limit` bytes (BoundedRead's rules).
    func readToEnd(limit: Int = .max) throws(BoundedRead.Failure) -> [UInt8] { try rest(limit) }

    /// Descriptor 0: lines through the C library's buffered reader, the rest read straight from the descriptor.
    static let standardInput = CommandInput(
        isTerminal: isatty(STDIN_FILENO) == 1, line: { Swift.readLine(strippingNewline: true) },
        rest: { limit throws(BoundedRead.Failure) in
            try BoundedRead.bytes("-", limit: limit, standardInput: true)
        })
}

/// Standard output or error, or what a test captures of them. Text goes through `TerminalText.sanitizedLines`:
/// error descriptions, device codes, names and emails come from providers, and none of their escape sequences,
/// control characters or bidi overrides may reach the user's terminal.
struct CommandOutput: Sendable {
    let isTerminal: Bool
    /// Takes bytes as they are; false when they could not all be written.
    private let sink: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool

    init(isTerminal: Bool, sink: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Bool) {
        self.isTerminal = isTerminal
        self.sink = sink
    }

    /// Writes `text`, sanitised.
    func write(_ text: String) {
        var text = TerminalText.sanitizedLines(text)
        text.withUTF8 { _ = sink($0) }
    }

    /// Writes bytes that are already safe as they are (`list --json`, whose writer escapes them itself).
    @discardableResult
    func write(bytes: UnsafeBufferPointer<UInt8>) -> Bool { sink(bytes) }

    /// Writes to `descriptor` without Foundation, 1 MiB at a time, retrying after a signal.
    static func descriptor(_ descriptor: Int32) -> CommandOutput {
        CommandOutput(isTerminal: isatty(descriptor) == 1) { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, min(bytes.count - offset, 1 << 20))
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
