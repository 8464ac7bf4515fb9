import AuthCore
import Foundation
import Keyring

/// `authdeck store lock | migrate --to SOURCE | import FILE|- | export FILE`.
enum StoreMaintenance {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = try arguments.positionals(atMost: 2)
        guard let action = words.first else { throw .usage("store needs lock, migrate, import or export") }
        let operand = words.count > 1 ? words[1] : nil
        switch action {
        case "lock":
            if operand != nil { throw .usage("store lock takes no argument") }
            return try lock(global)
        case "migrate":
            if operand != nil { throw .usage("store migrate takes --to, not an argument") }
            return try migrate(arguments, global)
        case "import":
            guard let operand else { throw .usage("store import needs FILE or -") }
            return try importSessions(from: operand, replace: arguments.has("replace"), global)
        case "export":
            guard let operand else { throw .usage("store export needs FILE (or - for standard output)") }
            return try export(to: operand, global)
        default:
            throw .usage("unknown store action '\(action)' (lock, migrate, import, export)")
        }
    }

    private static func lock(_ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let store = try StoreCommands.openStore(global, create: false) else {
            if !global.quiet { Output.err("no store yet; nothing to lock\n") }
            return .done
        }
        let dropped = store.lockStore()
        if !global.quiet { Output.err(dropped ? "store locked\n" : "store was not unlocked\n") }
        return .done
    }

    private static func migrate(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let name = arguments.value("to") else {
            throw .usage("store migrate needs --to secret-service|passphrase")
        }
        guard let target = MasterKeySource(rawValue: name) else {
            throw .usage("--to must be secret-service or passphrase")
        }
        guard let store = try StoreCommands.openStore(global, create: true) else { return .failed }
        try StoreCommands.attempt { () throws(StoreError) in try store.migrateMasterKey(to: target) }
        if !global.quiet { Output.err("the master key is now kept by \(target.rawValue)\n") }
        return .done
    }

    private static func importSessions(from path: String, replace: Bool,
                                       _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        var bytes = try readInput(path)
        if ExportBundle.isBundle(bytes) {
            let passphrase = try bundlePassphrase(.importBundle)
            bytes = try StoreCommands.attempt { () throws(StoreError) in
                try ExportBundle.open(bytes, passphrase: passphrase)
            }
        }
        let sessions = try StoreCommands.attempt { () throws(StoreError) in try SessionJSON.parseLines(bytes) }
        guard !sessions.isEmpty else { throw CommandFailure(.failed, "nothing to import in \(path)") }
        guard let store = try StoreCommands.openStore(global, create: true) else { return .failed }
        let records = try StoreCommands.attempt { () throws(StoreError) in
            try store.persist(sessions, replace: replace)
        }
        if !global.quiet { Output.err("imported \(records.count) session\(records.count == 1 ? "" : "s")\n") }
        return .done
    }

    private static func export(to path: String, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let store = try StoreCommands.requireStore(global)
        let (sessions, selected) = try StoreCommands.attempt { () throws(StoreError) in
            (try store.allSessions(), try store.selectedKey())
        }
        let now = Date()
        let lines = sessions.map { SessionJSON.transferLine($0, selected: $0.record.key == selected, now: now) }
        let passphrase = try bundlePassphrase(.exportBundle)
        let bundle = try StoreCommands.attempt { () throws(StoreError) in
            try ExportBundle.seal(Array(lines.joined(separator: "\n").utf8), passphrase: passphrase)
        }
        try writeOutput(bundle, to: path)
        if !global.quiet {
            Output.err("exported \(sessions.count) session\(sessions.count == 1 ? "" : "s") to \(path)\n")
        }
        return .done
    }

    // MARK: - Files

    private static func bundlePassphrase(_ purpose: PassphraseUnlock.Purpose) throws(CommandFailure) -> [UInt8] {
        let source = PassphraseUnlock.fromEnvironment(ProcessEnvironment.current(),
                                                      fileVariable: "AUTHDECK_EXPORT_PASSPHRASE_FILE")
        guard let passphrase = try StoreCommands.attempt({ () throws(StoreError) in try source.read(purpose) }) else {
            throw CommandFailure(.store, "the bundle needs a passphrase: \(source.hint)")
        }
        return passphrase
    }

    private static func readInput(_ path: String) throws(CommandFailure) -> [UInt8] {
        if path == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.failed, "cannot read \(path)")
        }
        return [UInt8](data)
    }

    /// Writes the bundle with mode 0600 under a temporary name, then renames it into place.
    private static func writeOutput(_ bytes: [UInt8], to path: String) throws(CommandFailure) {
        if path == "-" {
            Output.out(String(decoding: bytes, as: UTF8.self))
            return
        }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CommandFailure(.failed, "cannot write \(path)") }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(descriptor)
                unlink(temporary)
                throw CommandFailure(.failed, "cannot write \(path)")
            }
            offset += written
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CommandFailure(.failed, "cannot write \(path)")
        }
    }
}
