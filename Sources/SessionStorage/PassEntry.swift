import Foundation

/// One entry of `pass`, the standard Unix password manager, holding a store's master key: the real `pass` program
/// reads and writes it, so gpg-agent unlocks it and a git-synced password store carries it. The key goes in on
/// standard input (`pass insert -m`) and comes back on standard output (`pass show`), never in process arguments.
/// The entry's first line is the key in base64; the second says what it is.
public struct PassEntry: Sendable {
    /// The entry name used when `store migrate --to pass` names none.
    public static let defaultName = "authdeck/master-key"

    public let name: String
    /// The environment `pass` runs with (PASSWORD_STORE_DIR, GNUPGHOME, PATH…).
    let environment: [String: String]

    public init(name: String, environment: [String: String]) {
        self.name = name
        self.environment = environment
    }

    /// A problem with an entry name, as one line; nil when `pass` can take it.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "--pass-entry must not be empty" }
        if name.hasPrefix("-") { return "--pass-entry must not start with '-'" }
        if name.hasPrefix("/") || name.hasSuffix("/") || name.split(separator: "/").contains("..") {
            return "--pass-entry must be a relative name such as authdeck/master-key (no leading /, no ..)"
        }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            return "--pass-entry must not contain a control character"
        }
        return nil
    }

    /// The master key the entry holds.
    func read() throws(StoreError) -> [UInt8] {
        let result = try run(["show", name], input: nil)
        guard result.status == 0 else {
            if result.errors.contains("is not in the password store") {
                throw .locked(
                    "pass has no entry '\(name)' (moved, renamed or not synced yet?); restore it in the password "
                        + "store (pass git pull) and retry")
            }
            throw .locked(
                "pass could not decrypt '\(name)' (\(Self.reason(result.errors))); unlock your GPG key in "
                    + "gpg-agent (run pass show \(name) on a terminal once) and retry")
        }
        let first = result.output.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        guard let key = Data(base64Encoded: first.trimmingCharacters(in: .whitespaces)), key.count == 32 else {
            throw .locked("the pass entry '\(name)' does not hold an authdeck master key")
        }
        return Array(key)
    }

    /// Whether the password store has this entry already (its file, where pass keeps it).
    var exists: Bool {
        let folder =
            environment["PASSWORD_STORE_DIR"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.password-store"
        return FileManager.default.fileExists(atPath: "\(folder)/\(name).gpg")
    }

    /// Puts `key` in the entry, then reads it back through gpg-agent: a key that could not be decrypted again must
    /// never become the store's only copy, so then the entry is removed again and the store keeps its key. An entry
    /// that exists already is refused unless `replacing` (it may be another store's key, in a shared password store).
    func write(_ key: [UInt8], storeID: String, replacing: Bool) throws(StoreError) {
        if !replacing && exists {
            throw .invalidInput(
                "pass already has an entry '\(name)'; name another with --pass-entry (nothing was changed)")
        }
        let text = Data(key).base64EncodedString() + "\nauthdeck store master key (store \(storeID))\n"
        let result = try run(["insert", "--multiline", "--force", name], input: Array(text.utf8))
        guard result.status == 0 else {
            throw .locked("pass could not store '\(name)' (\(Self.reason(result.errors)))")
        }
        let back: [UInt8]
        do {
            back = try read()
        } catch {
            if !replacing { remove() }
            throw error
        }
        guard back == key else {
            if !replacing { remove() }
            throw .locked("pass gave back another key than it was given for '\(name)'; the store keeps its key")
        }
    }

    /// Removes the entry; best effort (the database no longer names it).
    func remove() {
        _ = try? run(["rm", "--force", name], input: nil)
    }

    /// The last line of what pass and gpg said, without control characters, as a short reason.
    static func reason(_ errors: String) -> String {
        let lines = errors.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let last = lines.last { !$0.isEmpty } ?? "no reason given"
        let clean = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        return clean.count > 160 ? String(clean.prefix(160)) + "…" : clean
    }

    private struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    private func run(_ arguments: [String], input: [UInt8]?) throws(StoreError) -> Result {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/pass" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw .locked("the master key is kept by pass, but no pass program is on PATH; install pass")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        let feed = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : feed
        do {
            try process.run()
        } catch {
            throw .locked("cannot run \(path): \(error.localizedDescription)")
        }
        if let input {
            try? feed.fileHandleForWriting.write(contentsOf: Data(input))
            try? feed.fileHandleForWriting.close()
        }
        // pass says little: its standard error is read on another thread so neither pipe can fill and block it.
        let errorText = ErrorCollector(errors.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
            errors: errorText.text())
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
