import AuthClient
import AuthCore
import Foundation
import SecretService
import SessionStorage

/// The store's commands: `list`, `use`, `logout`, `status` and `store …` (`token` is TokenCommand). Each opens the
/// store, does one thing, and turns a `StoreError` into the exit code of SPEC section 5.
enum StoreCommands {
    // MARK: - list

    static func list(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 0)
        let store = try openStore(global, create: false)
        let now = global.environment.now()
        if arguments.has("json") {
            // Written straight from the rows, as the command line prints text (ListJSON, which the lean authdeck
            // serves too): 100,000 sessions must list within SPEC section 8's budget.
            guard let store else {
                global.out("[]\n")
                return .done
            }
            let json = try attempt { () throws(StoreError) in try store.listJSON(now: now) }
            json.withUnsafeBytes { global.environment.output.write(bytes: $0) }
            return .done
        }
        let entries =
            try store.map { store throws(CommandFailure) in
                try attempt { () throws(StoreError) in try store.entries() }
            } ?? []
        guard !entries.isEmpty else {
            if !global.quiet { global.err("no sessions (sign in with authdeck login PROVIDER)\n") }
            return .done
        }
        let here = global.directorySession
        global.out(SessionTable.render(entries, now: now, directorySession: here))
        if let here, entries.contains(where: { $0.record.key == here }), !global.quiet, let path = global.sessionSource
        {
            global.err("@ \(here): chosen for this folder by \(path)\n")
        }
        return .done
    }

    // MARK: - use

    static func use(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let key = try arguments.positionals(atMost: 1).first else { throw .usage("use needs a session KEY") }
        if let problem = SessionKeyRule.problem(key) { throw .usage(problem) }
        let store = try requireStore(global)
        try attempt { () throws(StoreError) in try store.select(key) }
        if !global.quiet { global.err("selected '\(key)'\n") }
        return .done
    }

    // MARK: - logout

    static func logout(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        let revoke = arguments.has("revoke")
        let all = arguments.has("all")
        let expired = arguments.has("expired")
        if arguments.has("end-session") {
            if all || expired { throw .usage("--end-session ends one session: give a KEY, not --all or --expired") }
            return try EndSessionCommand.run(positional, arguments, global)
        }
        if arguments.has("no-browser") || arguments.value("timeout") != nil {
            throw .usage("--no-browser and --timeout go with --end-session")
        }
        if all || expired {
            if positional != nil || (all && expired) { throw .usage("give a KEY, --all or --expired, not two of them") }
            guard let store = try openStore(global, create: false) else {
                if !global.quiet { global.err("no sessions to remove\n") }
                return .done
            }
            let now = global.environment.now()
            let entries = try attempt { () throws(StoreError) in try store.entries() }
                .filter { !expired || $0.isUnusable(at: now) }
            guard !entries.isEmpty else {
                if !global.quiet { global.err(expired ? "no expired sessions\n" : "no sessions to remove\n") }
                return .done
            }
            let what = "\(entries.count) \(expired ? "expired " : "")session\(entries.count == 1 ? "" : "s")"
            if !arguments.has("yes"), all, !global.environment.input.isTerminal {
                // A script or a pipe cannot be asked; removing every session must have been meant.
                throw .usage("logout --all removes \(what) and there is no terminal to ask: add --yes")
            }
            if !arguments.has("yes"), global.environment.input.isTerminal {
                guard
                    Confirmation.ask(
                        global.environment, "remove \(what)\(revoke ? " and revoke their tokens" : "")? [y/N] ")
                else {
                    throw CommandFailure(.cancelled, "nothing was removed")
                }
            }
            if revoke {
                for entry in entries { try revokeAtProvider(entry.record.key, store: store, global: global) }
            }
            // Only the sessions listed (and confirmed) go: one another process stored meanwhile stays.
            let removed = try attempt { () throws(StoreError) in try store.remove(entries.map(\.record.key)) }
            if !global.quiet {
                global.err("removed \(removed) \(expired ? "expired " : "")session\(removed == 1 ? "" : "s")\n")
            }
            return .done
        }
        let store = try requireStore(global)
        let named = try global.session(or: positional)
        let key = try attempt { () throws(StoreError) in try store.resolveKey(named) }
        if revoke { try revokeAtProvider(key, store: store, global: global) }
        try attempt { () throws(StoreError) in try store.remove(key) }
        if !global.quiet { global.err("removed '\(key)'\n") }
        return .done
    }

    /// Revokes a session's tokens at its provider; a refusal keeps the session (nothing is removed on failure).
    private static func revokeAtProvider(
        _ key: String, store: SessionStore,
        global: GlobalOptions
    ) throws(CommandFailure) {
        let session = try attempt { () throws(StoreError) in try store.session(key) }
        do throws(SignInError) {
            try SessionRefresher(
                transport: CurlTransport(trust: global.trust), currentProvider: CurrentEndpoints.lookup(global)
            ).revoke(session)
        } catch {
            throw CommandFailure(error.exitCode, "could not revoke '\(key)': \(error.message); nothing was removed")
        }
    }

    // MARK: - status

    static func status(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        let named = try global.session(or: positional)
        // Where the session came from, so a folder's `.authdeck-session` or a stale variable is never a surprise.
        let chosenBy =
            positional != nil
            ? "the command line" : global.sessionSource ?? "the store's selected session (authdeck use)"
        let store = try openStore(global, create: false)
        let entry: StoreEntry? = try store.flatMap { store throws(CommandFailure) in
            try attempt { () throws(StoreError) in
                var key = named
                if key == nil { key = try store.selectedKey() }
                guard let key else { return nil }
                return try store.entry(key)
            }
        }
        if entry == nil, let key = named { throw failure(.noSuchSession(key)) }
        let source = try store.flatMap { store throws(CommandFailure) in
            try attempt { () throws(StoreError) in try store.keySource() }
        }
        let server = serverCheck(entry, store: store, global: global)
        let unlocked = store?.isUnlockedInCache ?? false
        // The token type is sealed with the secrets: shown when they can be read now and name one (DPoP).
        let secrets = entry.flatMap { entry in try? store?.session(entry.record.key) }?.secrets
        let tokenType = secrets?.tokenType
        let now = global.environment.now()
        if arguments.has("json") {
            global.out(
                StatusReport.json(
                    entry: entry, location: location(global), source: source, unlocked: unlocked,
                    now: now, server: server, tokenType: tokenType, endpoints: secrets?.endpoints, chosenBy: chosenBy))
        } else {
            global.out(
                StatusReport.text(
                    entry: entry, location: location(global), source: source, unlocked: unlocked,
                    now: now, server: server, tokenType: tokenType, endpoints: secrets?.endpoints, chosenBy: chosenBy))
        }
        return .done
    }

    /// What the user endpoint says of the session's token: "valid", "refused (HTTP 401)", or an error; nil when
    /// the session has no endpoint to ask or its secrets cannot be read now.
    private static func serverCheck(_ entry: StoreEntry?, store: SessionStore?, global: GlobalOptions) -> String? {
        guard let entry, let store, let session = try? store.session(entry.record.key) else { return nil }
        do throws(SignInError) {
            let refresher = SessionRefresher(
                transport: CurlTransport(timeout: 5, trust: global.trust),
                currentProvider: CurrentEndpoints.lookup(global))
            switch try refresher.check(session) {
            case .valid: return "valid"
            case .refused(let status): return "refused (HTTP \(status))"
            case .unknown: return nil
            }
        } catch {
            return "not reachable (\(error.message))"
        }
    }

    // MARK: - Opening the store

    static func location(_ global: GlobalOptions) -> StoreLocation {
        global.environment.storeLocation
    }

    static func storeOptions(_ global: GlobalOptions) -> StoreOptions {
        let errors = global.environment.errors
        return StoreOptions.fromEnvironment(
            global.environment.variables, unlockForMinutes: global.unlockForMinutes,
            keyringTimeoutSeconds: global.keyringTimeoutSeconds,
            secretService: SecretServiceKeyring(timeoutSeconds: global.keyringTimeoutSeconds),
            standardInputIsTerminal: global.environment.input.isTerminal, writeError: { errors.write($0) },
            warn: { errors.write("authdeck: \($0)\n") })
    }

    /// The store, or nil when there is none yet and `create` is false.
    static func openStore(_ global: GlobalOptions, create: Bool) throws(CommandFailure) -> SessionStore? {
        try attempt { () throws(StoreError) in
            try SessionStore.open(location(global), options: storeOptions(global), create: create)
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
        case .invalidKey:
            return CommandFailure(.usage, error.description)
        case .locked, .wrongPassphrase, .keyringTimeout, .secretService, .damagedDatabase, .damagedSession,
            .newerSchema, .storage:
            return CommandFailure(.store, error.description)
        }
    }
}
