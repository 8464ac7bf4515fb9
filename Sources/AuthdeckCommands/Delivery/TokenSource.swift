import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// Where `token`, `exec`, `env` and `git-credential` get their token: the agent named by `AUTHDECK_AGENT_SOCK` when
/// it is set, else the local store, refreshing through `SessionCommands.refresh` when the token expires too soon.
enum TokenSource {
    static func issue(_ requirement: TokenRequirement, _ global: GlobalOptions) throws(CommandFailure) -> IssuedToken {
        if let socket = agentSocket(global) {
            return try AgentClient(path: socket).token(requirement)
        }
        // The plain case (key cached, token current) is StoreCore's `TokenRead`, the same read the lean binary
        // serves `token` with; everything else (unlock, refresh, errors) goes through the store below.
        if let cached = TokenRead.cached(
            requirement.key, idToken: requirement.idToken,
            minValidSeconds: requirement.minValidSeconds,
            location: StoreCommands.location(global), now: TokenRead.now())
        {
            return IssuedToken(
                key: cached.key, token: cached.token,
                expiresAt: cached.expiresAt.map { Date(timeIntervalSince1970: $0) })
        }
        let store = try StoreCommands.requireStore(global)
        return try issue(requirement, store: store, config: global.config, variables: global.environment.variables)
    }

    /// The agent socket clients use, when `AUTHDECK_AGENT_SOCK` names one.
    static func agentSocket(_ global: GlobalOptions) -> String? {
        global.environment.variables["AUTHDECK_AGENT_SOCK"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The token from `store` (what the agent serves, too); a refresh reads the configuration `config` names (else
    /// the default one that `variables` point to) for the client of an imported session. The agent, which runs only
    /// as its own process, leaves `variables` to be the process's.
    static func issue(
        _ requirement: TokenRequirement, store: SessionStore, config: String? = nil,
        variables: [String: String] = ProcessEnvironment.current()
    ) throws(CommandFailure) -> IssuedToken {
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(requirement.key) }
        let record = session.record
        if requirement.idToken {
            guard let idToken = session.secrets.idToken else {
                throw CommandFailure(.failed, "session '\(record.key)' has no ID token")
            }
            return IssuedToken(key: record.key, token: idToken, expiresAt: nil)
        }
        guard let bearer = session.secrets.bearer else {
            throw CommandFailure(.failed, "session '\(record.key)' holds no access token or session JWT")
        }
        let now = Date()
        let window = record.refreshWindow(minValidSeconds: requirement.minValidSeconds)
        guard record.needsRefresh(at: now, within: window) else {
            return IssuedToken(key: record.key, token: bearer, expiresAt: record.expiresAt)
        }
        if record.refreshable && session.secrets.endpoints != nil {
            let asked = Date()
            // The locked refresh path: when another process refreshed meanwhile, its token is used.
            let refreshed = try SessionCommands.refresh(
                record.key, store: store,
                refresher: SessionRefresher(
                    transport: CurlTransport(trust: CATrust.loaded(explicit: config, environment: variables)),
                    currentProvider: CurrentEndpoints.lookup(explicit: config, environment: variables)),
                onlyWhenDue: true, minValidSeconds: requirement.minValidSeconds)
            let issued = IssuedToken(
                key: record.key, token: refreshed.secrets.bearer ?? bearer,
                expiresAt: refreshed.record.expiresAt)
            // The provider's lifetime is what --min-valid is held to (counted from the request, so the time the
            // refresh itself took does not count against it).
            if let minimum = requirement.minValidSeconds, let expiresAt = issued.expiresAt,
                expiresAt.timeIntervalSince(asked) < TimeInterval(minimum)
            {
                let lifetime = Int(expiresAt.timeIntervalSince(asked).rounded(.down))
                throw CommandFailure(
                    .failed,
                    "the provider's new token for '\(record.key)' lives \(lifetime) s, "
                        + "less than --min-valid \(minimum) s")
            }
            return issued
        }
        if let expiresAt = record.expiresAt, expiresAt <= now {
            throw CommandFailure(
                .failed,
                "session '\(record.key)' expired at \(SessionJSON.iso8601(expiresAt)) "
                    + "and cannot be refreshed; sign in again")
        }
        if let minimum = requirement.minValidSeconds, let expiresAt = record.expiresAt {
            throw CommandFailure(
                .failed,
                "session '\(record.key)' expires at \(SessionJSON.iso8601(expiresAt)), "
                    + "within --min-valid \(minimum) s, and cannot be refreshed; sign in again")
        }
        return IssuedToken(key: record.key, token: bearer, expiresAt: record.expiresAt)
    }
}
