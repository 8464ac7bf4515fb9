import AuthBase

#if canImport(Glibc)
    import Glibc
#endif

/// Where a passphrase comes from when one is needed: a file named by an environment variable (scripts), else the
/// terminal with echo off (people), else nowhere, which leaves the store locked with a message saying how to unlock.
public struct PassphraseUnlock: Sendable {
    /// Why a passphrase is asked for; a new one is typed twice.
    public enum Purpose: Sendable, Equatable {
        /// Unlock the store's master key.
        case unlock
        /// Choose the passphrase that will wrap the master key from now on.
        case create
        /// Choose the passphrase of an export bundle.
        case exportBundle
        /// Open an export bundle.
        case importBundle

        var prompt: String {
            switch self {
            case .unlock: return "authdeck store passphrase: "
            case .create: return "new authdeck store passphrase: "
            case .exportBundle: return "passphrase for the export bundle: "
            case .importBundle: return "passphrase of the bundle: "
            }
        }

        var isNew: Bool { self == .create || self == .exportBundle }
    }

    /// Returns the passphrase, nil when this source has none to give.
    public let read: @Sendable (Purpose) throws(StoreError) -> [UInt8]?
    /// Says how the user could provide one, for the "store is locked" message.
    public let hint: String

    public init(hint: String, read: @escaping @Sendable (Purpose) throws(StoreError) -> [UInt8]?) {
        self.hint = hint
        self.read = read
    }

    /// No passphrase at all.
    public static let unavailable = PassphraseUnlock(hint: "no passphrase source") { _ in nil }

    /// A fixed passphrase (tests, and callers that asked for it their own way, like the TUI).
    public static func fixed(_ passphrase: String) -> PassphraseUnlock {
        PassphraseUnlock(hint: "a given passphrase") { _ in Array(passphrase.utf8) }
    }

    /// `$<fileVariable>` when set (read once; one trailing newline dropped), else the terminal when standard input
    /// is one (`standardInputIsTerminal`: a command run inside a test has none), else nothing. Warnings go to
    /// `writeError`.
    public static func fromEnvironment(
        _ environment: [String: String],
        fileVariable: String = "AUTHDECK_PASSPHRASE_FILE",
        standardInputIsTerminal: Bool = isatty(STDIN_FILENO) == 1,
        writeError: @escaping @Sendable (String) -> Void = writeError
    ) -> PassphraseUnlock {
        let hint = "set \(fileVariable)=FILE or run on a terminal to type the passphrase"
        if let path = environment[fileVariable], !path.isEmpty {
            return PassphraseUnlock(hint: hint) { purpose throws(StoreError) in
                warnIfWeak(try readFile(path, variable: fileVariable), purpose: purpose, writeError: writeError)
            }
        }
        guard standardInputIsTerminal else { return PassphraseUnlock(hint: hint) { _ in nil } }
        return PassphraseUnlock(hint: hint) { purpose throws(StoreError) in
            try prompt(purpose).map { warnIfWeak($0, purpose: purpose, writeError: writeError) }
        }
    }

    /// Passphrases shorter than this draw a warning when chosen (a new store or export bundle), not when used.
    public static let recommendedLength = PassphraseRule.recommendedLength

    /// `passphrase`, after `PassphraseRule`'s warning on standard error when a new one is too short.
    static func warnIfWeak(
        _ passphrase: [UInt8], purpose: Purpose, writeError: (String) -> Void = writeError
    ) -> [UInt8] {
        if purpose.isNew, let warning = PassphraseRule.warning(String(decoding: passphrase, as: UTF8.self)) {
            writeError("authdeck: warning: \(warning)\n")
        }
        return passphrase
    }

    static func readFile(_ path: String, variable: String) throws(StoreError) -> [UInt8] {
        var bytes: [UInt8]
        do {
            bytes = try SecretFile.read(
                path, subject: "the passphrase file named by \(variable)", regularOnly: false)
        } catch {
            throw .locked(error.message)
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw .locked("the passphrase file named by \(variable) is empty") }
        return bytes
    }

    /// Reads a line from the terminal with echo off, restoring the terminal whatever happens.
    static func prompt(_ purpose: Purpose) throws(StoreError) -> [UInt8]? {
        let first = try readHidden(purpose.prompt)
        guard purpose.isNew else { return first }
        let second = try readHidden("repeat it: ")
        guard first == second else { throw .invalidInput("the two passphrases differ") }
        return first
    }

    private static func readHidden(_ prompt: String) throws(StoreError) -> [UInt8] {
        writeError(prompt)
        var saved = termios()
        let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer { if hasTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) } }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard !line.isEmpty else { throw .locked("no passphrase given") }
        return line
    }

    /// Writes `text` to descriptor 2 as it is.
    public static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}
