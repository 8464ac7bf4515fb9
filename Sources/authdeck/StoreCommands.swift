import AuthCore
import Foundation
import Keyring

/// The store's commands: `list`, `use`, `token`, `logout`, `status` and `store …`. Each opens the store, does one
/// thing, and turns a `StoreError` into the exit code of SPEC section 5.
enum StoreCommands {
    // MARK: - list

    static func list(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 0)
        let entries = try openStore(global, create: false).map { store throws(CommandFailure) in
            try attempt { () throws(StoreError) in try store.entries() }
        } ?? []
        let now = Date()
        if arguments.has("json") {
            Output.out(SessionJSON.listArray(entries, now: now))
            return .done
        }
        guard !entries.isEmpty else {
            if !global.quiet { Output.err("no sessions (sign in with authdeck login PROVIDER)\n") }
            return .done
        }
        Output.out(SessionTable.render(entries, now: now))
        return .done
    }

    // MARK: - use

    static func use(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let key = try arguments.positionals(atMost: 1).first else { throw .usage("use needs a session KEY") }
        let store = try requireStore(global)
        try attempt { () throws(StoreError) in try store.select(key) }
        if !global.quiet { Output.err("selected '\(key)'\n") }
        return .done
    }

    // MARK: - token

    static func token(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try arguments.positionals(atMost: 1).first ?? global.session
        let store = try requireStore(global)
        let session = try attempt { () throws(StoreError) in try store.session(key) }
        let record = session.record
        let token: String
        if arguments.has("id-token") {
            guard let idToken = session.secrets.idToken else {
                throw CommandFailure(.failed, "session '\(record.key)' has no ID token")
            }
            token = idToken
        } else {
            guard let bearer = session.secrets.bearer else {
                throw CommandFailure(.failed, "session '\(record.key)' holds no access token or session JWT")
            }
            if let expiresAt = record.expiresAt, expiresAt <= Date() {
                // Refreshing belongs to the provider clients (issue 4); until then an expired token is an error.
                throw CommandFailure(.failed, "session '\(record.key)' expired at \(SessionJSON.iso8601(expiresAt)); "
                                     + "sign in again (automatic refresh is not built yet)")
            }
            token = bearer
        }
        if arguments.has("json") {
            Output.out("{\"key\":\(SessionJSON.quoted(record.key)),\"token\":\(SessionJSON.quoted(token)),"
                       + "\"expiresAt\":\(SessionJSON.quoted(record.expiresAt.map(SessionJSON.iso8601)))}\n")
        } else {
            Output.out(token + "\n")
        }
        return .done
    }

    // MARK: - logout

    static func logout(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        if arguments.has("revoke") {
            throw CommandFailure(.failed, "--revoke needs the provider clients (issue 4), which are not built yet; "
                                 + "nothing was removed (run without --revoke to remove the session locally)")
        }
        if arguments.has("all") {
            if positional != nil { throw .usage("give a KEY or --all, not both") }
            guard let store = try openStore(global, create: false) else {
                if !global.quiet { Output.err("no sessions to remove\n") }
                return .done
            }
            let removed = try attempt { () throws(StoreError) in try store.removeAll() }
            if !global.quiet { Output.err("removed \(removed) session\(removed == 1 ? "" : "s")\n") }
            return .done
        }
        let store = try requireStore(global)
        let key = try attempt { () throws(StoreError) in try store.resolveKey(positional ?? global.session) }
        try attempt { () throws(StoreError) in try store.remove(key) }
        if !global.quiet { Output.err("removed '\(key)'\n") }
        return .done
    }

    // MARK: - status

    static func status(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        let store = try openStore(global, create: false)
        let entry: StoreEntry? = try store.flatMap { store throws(CommandFailure) in
            try attempt { () throws(StoreError) in
                var key = positional ?? global.session
                if key == nil { key = try store.selectedKey() }
                guard let key else { return nil }
                return try store.entry(key)
            }
        }
        if entry == nil, let key = positional ?? global.session { throw failure(.noSuchSession(key)) }
        let source = try store.flatMap { store throws(CommandFailure) in
            try attempt { () throws(StoreError) in try store.keySource() }
        }
        let unlocked = store?.isUnlockedInCache ?? false
        let now = Date()
        if arguments.has("json") {
            Output.out(StatusReport.json(entry: entry, location: location(), source: source, unlocked: unlocked,
                                         now: now))
        } else {
            Output.out(StatusReport.text(entry: entry, location: location(), source: source, unlocked: unlocked,
                                         now: now))
        }
        return .done
    }

    // MARK: - Opening the store

    static func location() -> StoreLocation {
        StoreLocation.resolve(environment: ProcessEnvironment.current())
    }

    static func storeOptions(_ global: GlobalOptions) -> StoreOptions {
        StoreOptions.fromEnvironment(ProcessEnvironment.current(), unlockForMinutes: global.unlockForMinutes,
                                     keyringTimeoutSeconds: global.keyringTimeoutSeconds,
                                     warn: { Output.err("authdeck: \($0)\n") })
    }

    /// The store, or nil when there is none yet and `create` is false.
    static func openStore(_ global: GlobalOptions, create: Bool) throws(CommandFailure) -> SessionStore? {
        try attempt { () throws(StoreError) in
            try SessionStore.open(location(), options: storeOptions(global), create: create)
        }
    }

    /// The store; no store yet means no session to act on (exit 7).
    static func requireStore(_ global: GlobalOptions) throws(CommandFailure) -> SessionStore {
        guard let store = try openStore(global, create: false) else {
            throw CommandFailure(.noSuchSession, "no sessions stored yet (sign in with authdeck login PROVIDER)")
        }
        return store
    }

    static func attempt<T>(_ body: () throws(StoreError) -> T) throws(CommandFailure) -> T {
        do { return try body() } catch { throw failure(error) }
    }

    /// SPEC section 5's exit codes: 7 for a missing session, 5 for anything that keeps the store locked or unreadable.
    static func failure(_ error: StoreError) -> CommandFailure {
        switch error {
        case .noSuchSession, .noSessionSelected:
            return CommandFailure(.noSuchSession, error.description)
        case .keyTaken, .invalidInput:
            return CommandFailure(.failed, error.description)
        case .locked, .wrongPassphrase, .keyringTimeout, .secretService, .damagedDatabase, .damagedSession,
             .newerSchema, .storage:
            return CommandFailure(.store, error.description)
        }
    }
}
