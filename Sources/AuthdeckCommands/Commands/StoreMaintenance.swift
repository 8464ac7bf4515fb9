import AuthClient
import AuthCore
import Foundation
import SessionStorage

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
            return try importSessions(from: operand, arguments, global)
        case "export":
            guard let operand else { throw .usage("store export needs FILE (or - for standard output)") }
            return try export(to: operand, global)
        default:
            throw .usage("unknown store action '\(action)' (lock, migrate, import, export)")
        }
    }

    private static func lock(_ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let store = try StoreCommands.openStore(global, create: false) else {
            if !global.quiet { global.err("no store yet; nothing to lock\n") }
            return .done
        }
        let dropped = store.lockStore()
        if !global.quiet { global.err(dropped ? "store locked\n" : "store was not unlocked\n") }
        return .done
    }

    private static func migrate(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let name = arguments.value("to") else {
            throw .usage("store migrate needs --to secret-service|passphrase|pass")
        }
        guard let target = MasterKeySource(rawValue: name) else {
            throw .usage("--to must be secret-service, passphrase or pass")
        }
        let entry = arguments.value("pass-entry")
        if let entry {
            guard target == .pass else { throw .usage("--pass-entry goes with --to pass") }
            if let problem = PassEntry.nameProblem(entry) { throw .usage(problem) }
        }
        guard let store = try StoreCommands.openStore(global, create: true) else { return .failed }
        try StoreCommands.attempt { () throws(StoreError) in try store.migrateMasterKey(to: target, passEntry: entry) }
        let place = target == .pass ? "pass (entry \(entry ?? PassEntry.defaultName))" : target.rawValue
        if !global.quiet { global.err("the master key is now kept by \(place)\n") }
        return .done
    }

    private static func importSessions(
        from path: String, _ arguments: Arguments,
        _ global: GlobalOptions
    ) throws(CommandFailure) -> ExitCode {
        let replace = arguments.has("replace")
        let skipExisting = arguments.has("skip-existing")
        if replace && skipExisting { throw .usage("give --replace or --skip-existing, not both") }
        var bytes = try readInput(path, global)
        if ExportBundle.isBundle(bytes) {
            let passphrase = try bundlePassphrase(.importBundle, global)
            bytes = try StoreCommands.attempt { () throws(StoreError) in
                try ExportBundle.open(bytes, passphrase: passphrase)
            }
        }
        let transfer = try StoreCommands.attempt { () throws(StoreError) in try SessionJSON.parseTransfer(bytes) }
        guard !transfer.sessions.isEmpty || !transfer.seeds.isEmpty else {
            throw CommandFailure(.failed, "nothing to import in \(path)")
        }
        guard let store = try StoreCommands.openStore(global, create: true) else { return .failed }
        let (records, hadSelection) = try StoreCommands.attempt { () throws(StoreError) in
            let hadSelection = try store.selectedKey() != nil
            let conflict: SessionStore.KeyConflict = replace ? .replace : skipExisting ? .skip : .refuse
            // Tokens issued elsewhere: their lifetime is unknown, so they keep the full refresh window.
            let sessions = transfer.sessions.map { session in
                var imported = session
                imported.record.storedAt = SessionRecord.issueTimeUnknown
                return imported
            }
            return (try store.persist(sessions, onConflict: conflict), hadSelection)
        }
        // The selection travels with the sessions, but never takes over one the user already made here.
        if !hadSelection, let selected = transfer.selectedKey, records.contains(where: { $0.key == selected }) {
            try StoreCommands.attempt { () throws(StoreError) in try store.select(selected) }
        }
        var seedsStored = 0
        for seed in transfer.seeds {
            do throws(StoreError) {
                try store.storeTOTPSeed(seed, replace: replace)
                seedsStored += 1
            } catch .keyTaken {
                if !skipExisting { global.err("authdeck: kept the existing TOTP seed of \(seed.user)\n") }
            } catch {
                throw StoreCommands.failure(error)
            }
        }
        warnUnconfiguredBackends(records, global)
        let imported = Set(records.map(\.key))
        for key in transfer.needingLocalClient where imported.contains(key) {
            global.err(
                "authdeck: '\(key)' came with a client secret setting, which imports never follow; it refreshes only "
                    + "with the client this machine's config.json has for its issuer\n")
        }
        if !global.quiet {
            let skipped = transfer.sessions.count - records.count
            var line = "imported \(records.count) session\(records.count == 1 ? "" : "s")"
            if skipped > 0 { line += ", skipped \(skipped) whose key is taken" }
            if seedsStored > 0 { line += ", \(seedsStored) TOTP seed\(seedsStored == 1 ? "" : "s")" }
            global.err(line + "\n")
        }
        return .done
    }

    /// Imported sessions keep their own endpoints, but sign-ins, status and doctor go by the configured backends:
    /// name any backend the sessions come from that this machine's config does not know.
    private static func warnUnconfiguredBackends(_ records: [SessionRecord], _ global: GlobalOptions) {
        guard
            let configuration = try? ConfigurationFile.load(
                explicit: global.config,
                environment: global.environment.variables)
        else {
            return
        }
        let unknown = Set(records.map(\.backend)).filter { name in
            !Configuration.builtInBackends.contains(name) && configuration.backends?[name] == nil
        }
        for name in unknown.sorted() {
            global.err(
                "authdeck: warning: backend '\(name)' is not configured here; its sessions refresh with the "
                    + "endpoints stored with them, but new sign-ins need it in config.json\n")
        }
    }

    private static func export(to path: String, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let store = try StoreCommands.requireStore(global)
        let (sessions, selected, seeds) = try StoreCommands.attempt { () throws(StoreError) in
            var seeds: [TestAccountSeed] = []
            for listed in try store.totpSeedList() {
                if let seed = try store.totpSeed(user: listed.user) { seeds.append(seed) }
            }
            return (try store.allSessions(), try store.selectedKey(), seeds)
        }
        let now = global.environment.now()
        let lines =
            sessions.map { SessionJSON.transferLine($0, selected: $0.record.key == selected, now: now) }
            + seeds.map(SessionJSON.seedLine)
        let passphrase = try bundlePassphrase(.exportBundle, global)
        let bundle = try StoreCommands.attempt { () throws(StoreError) in
            try ExportBundle.seal(Array(lines.joined(separator: "\n").utf8), passphrase: passphrase)
        }
        try writeOutput(bundle, to: path, global)
        if !global.quiet {
            var line = "exported \(sessions.count) session\(sessions.count == 1 ? "" : "s")"
            if !seeds.isEmpty { line += " and \(seeds.count) TOTP seed\(seeds.count == 1 ? "" : "s")" }
            global.err(line + " to \(path)\n")
        }
        return .done
    }

    // MARK: - Files

    private static func bundlePassphrase(
        _ purpose: PassphraseUnlock.Purpose, _ global: GlobalOptions
    ) throws(CommandFailure) -> [UInt8] {
        let errors = global.environment.errors
        let source = PassphraseUnlock.fromEnvironment(
            global.environment.variables,
            fileVariable: "AUTHDECK_EXPORT_PASSPHRASE_FILE",
            standardInputIsTerminal: global.environment.input.isTerminal, writeError: { errors.write($0) })
        guard let passphrase = try StoreCommands.attempt({ () throws(StoreError) in try source.read(purpose) }) else {
            throw CommandFailure(.store, "the bundle needs a passphrase: \(source.hint)")
        }
        return passphrase
    }

    /// The whole file (or standard input); past `SessionJSON.maximumImportBytes` it stops reading and refuses.
    private static func readInput(_ path: String, _ global: GlobalOptions) throws(CommandFailure) -> [UInt8] {
        do {
            if path == "-" { return try global.environment.input.readToEnd(limit: SessionJSON.maximumImportBytes) }
            return try BoundedRead.bytes(path, limit: SessionJSON.maximumImportBytes)
        } catch .tooLarge {
            throw CommandFailure(
                .failed, "\(path) holds more than \(SessionJSON.maximumImportBytes >> 20) MiB; nothing was imported")
        } catch {
            throw CommandFailure(.failed, "cannot read \(path)")
        }
    }

    /// Writes the bundle with mode 0600 under a temporary name, then renames it into place.
    private static func writeOutput(_ bytes: [UInt8], to path: String, _ global: GlobalOptions) throws(CommandFailure) {
        if path == "-" {
            global.out(String(decoding: bytes, as: UTF8.self))
            return
        }
        try PrivateFile.write(bytes, to: path, failure: "cannot write \(path)")
    }
}
