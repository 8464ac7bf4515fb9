import AuthClient
import AuthCore
import Foundation
import Keyring

/// Commands that talk to providers about stored sessions: `refresh`, and the refresh, revocation and server
/// check that `token`, `logout --revoke` and `status` use.
enum SessionCommands {
    // MARK: - refresh

    static func refresh(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let positional = try arguments.positionals(atMost: 1).first
        let store = try StoreCommands.requireStore(global)
        let refresher = SessionRefresher(transport: URLSessionTransport())
        if arguments.has("all") {
            if positional != nil { throw .usage("give a KEY or --all, not both") }
            let entries = try StoreCommands.attempt { () throws(StoreError) in try store.entries() }
            var failures = 0
            for entry in entries where entry.record.refreshable {
                do throws(CommandFailure) {
                    let refreshed = try refresh(entry.record.key, store: store, refresher: refresher)
                    report(refreshed.record, global)
                } catch {
                    failures += 1
                    Output.err("authdeck refresh: \(entry.record.key): \(error.message)\n")
                }
            }
            return failures == 0 ? .done : .failed
        }
        let key = try StoreCommands.attempt { () throws(StoreError) in try store.resolveKey(positional ?? global.session) }
        report(try refresh(key, store: store, refresher: refresher).record, global)
        return .done
    }

    private static func report(_ record: SessionRecord, _ global: GlobalOptions) {
        guard !global.quiet else { return }
        let until = record.expiresAt.map { " until \(SessionJSON.iso8601($0))" } ?? ""
        Output.err("refreshed '\(record.key)'\(until)\n")
    }

    /// Refreshes one session at its provider and stores the result before returning it.
    static func refresh(_ key: String, store: SessionStore, refresher: SessionRefresher) throws(CommandFailure) -> Session {
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        let refreshed: Session
        do throws(SignInError) {
            refreshed = try refresher.refresh(session)
        } catch {
            throw error.commandFailure
        }
        _ = try StoreCommands.attempt { () throws(StoreError) in try store.persist(refreshed, replace: true) }
        return refreshed
    }

    // MARK: - open-url

    static func openURL(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let url = try arguments.positionals(atMost: 1).first else { throw .usage("open-url needs the authdeck:// URL") }
        guard url.lowercased().hasPrefix(SchemeReceiver.scheme + "://") else {
            throw .usage("open-url takes authdeck:// URLs only")
        }
        let path = SchemeReceiver.defaultSocketPath(environment: ProcessEnvironment.current())
        let verdict: CallbackVerdict
        do throws(SignInError) {
            verdict = try SchemeReceiver.handOver(url, socketPath: path)
        } catch {
            throw error.commandFailure
        }
        switch verdict {
        case .accepted:
            if !global.quiet { Output.err("handed the redirect to the waiting sign-in\n") }
            return .done
        case .refused(let reason):
            throw CommandFailure(.authenticationFailed, "the waiting sign-in refused the redirect: \(reason)")
        }
    }
}
