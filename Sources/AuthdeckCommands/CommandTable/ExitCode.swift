/// The process exit codes of SPEC section 5; scripts depend on them.
enum ExitCode: Int32 {
    case done = 0
    /// Failed; the message is on stderr.
    case failed = 1
    case usage = 2
    /// The user cancelled (`closed`).
    case cancelled = 3
    /// Authentication failed or was refused.
    case authenticationFailed = 4
    /// Store locked, wrong passphrase or storage failure.
    case store = 5
    case timedOut = 6
    case noSuchSession = 7
}

/// A command's failure: a one-line message for stderr and the exit code it maps to.
struct CommandFailure: Error {
    let code: ExitCode
    let message: String
    /// Whether a usage line follows the message: not for exit 2 given to bad input (`trace diff`'s, as diff(1)'s).
    var showsUsage = true

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Exit 2 for input that is not what the command reads, said in its one line with no usage line after it.
    static func badInput(_ message: String) -> CommandFailure {
        var failure = CommandFailure(.usage, message)
        failure.showsUsage = false
        return failure
    }

    static func usage(_ message: String) -> CommandFailure { CommandFailure(.usage, message) }
}
