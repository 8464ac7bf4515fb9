import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// Commands that talk to providers about stored sessions: `refresh`, and the refresh, revocation and server
/// check that `token`, `logout --revoke` and `status` use.
enum SessionCommands {
    // MARK: - refresh

    static func refresh(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        let store = try StoreCommands.requireStore(global)
        let refresher = SessionRefresher(
            transport: CurlTransport(trust: global.trust), currentProvider: CurrentEndpoints.lookup(global))
        if arguments.has("all") {
            if positional != nil { throw .usage("give a KEY or --all, not both") }
            let entries = try StoreCommands.attempt { () throws(StoreError) in try store.entries() }
            var refreshed = 0
            var failed = 0
            var skipped: [String: Int] = [:]
            for entry in entries {
                guard entry.record.refreshable else {
                    skipped["no refresh token", default: 0] += 1
                    continue
                }
                do throws(CommandFailure) {
                    report(try refresh(entry.record.key, store: store, refresher: refresher).record, global)
                    refreshed += 1
                } catch {
                    failed += 1
                    global.err("authdeck refresh: \(entry.record.key): \(error.message)\n")
                }
            }
            // One line that sums it up, so a script's log says what happened to every session.
            var summary = "refreshed \(refreshed), skipped \(skipped.values.reduce(0, +))"
            if !skipped.isEmpty {
                summary +=
                    " ("
                    + skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                    .joined(separator: ", ") + ")"
            }
            summary += ", failed \(failed)"
            global.err(summary + "\n")
            return failed == 0 ? .done : .failed
        }
        let named = try global.session(or: positional)
        let key = try StoreCommands.attempt { () throws(StoreError) in try store.resolveKey(named) }
        report(try refresh(key, store: store, refresher: refresher).record, global)
        return .done
    }

    private static func report(_ record: SessionRecord, _ global: GlobalOptions) {
        guard !global.quiet else { return }
        let until = record.expiresAt.map { " until \(SessionJSON.iso8601($0))" } ?? ""
        global.err("refreshed '\(record.key)'\(until)\n")
    }

    /// Refreshes one session at its provider and stores the result before returning it. With `onlyWhenDue`, only
    /// when the token is within its refresh window (`SessionRecord.refreshWindow`, widened to `minValidSeconds`);
    /// otherwise the session as it is.
    ///
    /// The read, the request and the write happen under the session's refresh lock, shared by every authdeck
    /// process (CLI and TUI alike), and the session is read again once the lock is held, its window taken from that
    /// read: a refresh another process finished while this one waited satisfies this caller too, so eight `token`
    /// calls at once send one refresh request, and a rotated refresh token is never sent twice.
    static func refresh(
        _ key: String, store: SessionStore, refresher: SessionRefresher,
        onlyWhenDue: Bool = false, minValidSeconds: Int? = nil
    ) throws(CommandFailure) -> Session {
        let lock = try StoreCommands.attempt { () throws(StoreError) in try store.refreshLock(key) }
        defer { lock.release() }
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        let window = session.record.refreshWindow(minValidSeconds: minValidSeconds)
        if onlyWhenDue, !session.record.needsRefresh(at: Date(), within: window) { return session }
        let refreshed: Session
        do throws(SignInError) {
            refreshed = try refresher.refresh(session)
        } catch {
            throw error.commandFailure
        }
        try StoreCommands.attempt { () throws(StoreError) in try store.update(refreshed) }
        return refreshed
    }

    // MARK: - open-url

    static func openURL(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let url = try arguments.positionals(atMost: 1).first else {
            throw .usage("open-url needs the authdeck:// URL")
        }
        guard url.lowercased().hasPrefix(SchemeReceiver.scheme + "://") else {
            throw .usage("open-url takes authdeck:// URLs only")
        }
        try handOver(url, global)
        if !global.quiet { global.err("handed the redirect to the waiting sign-in\n") }
        return .done
    }

    /// Hands an authdeck:// redirect to the sign-in waiting on this user's socket (`open-url`, and `sandbox approve`
    /// when a redirect ends there); a refusal is the sign-in's reason.
    static func handOver(_ url: String, _ global: GlobalOptions) throws(CommandFailure) {
        let path = SchemeReceiver.defaultSocketPath(environment: global.environment.variables)
        let verdict: CallbackVerdict
        do throws(SignInError) {
            verdict = try SchemeReceiver.handOver(url, socketPath: path)
        } catch {
            throw error.commandFailure
        }
        switch verdict {
        case .accepted:
            return
        case .refused(let reason):
            throw CommandFailure(.authenticationFailed, "the waiting sign-in refused the redirect: \(reason)")
        }
    }
}
