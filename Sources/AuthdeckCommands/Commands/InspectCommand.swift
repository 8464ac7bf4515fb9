import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// `authdeck inspect [KEY] [--json]` and `authdeck introspect [KEY] [--json]`: what a session's tokens say, checked
/// here against the issuer's keys, and what the issuer says of its access token. Neither changes the store.
enum InspectCommand {
    // MARK: - inspect

    static func inspect(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let session = try storedSession(arguments, global)
        let inspection: TokenInspection
        do throws(SignInError) {
            inspection = try inspector(global).inspect(session, now: global.environment.now())
        } catch {
            throw CommandFailure(
                .authenticationFailed,
                "cannot check the signatures of '\(session.record.key)' without the issuer's keys: \(reason(error))")
        }
        global.out(arguments.has("json") ? inspection.json : inspection.text)
        guard inspection.passed else {
            global.err("authdeck inspect: failed: \(inspection.failures.joined(separator: ", "))\n")
            return .authenticationFailed
        }
        return .done
    }

    // MARK: - introspect

    static func introspect(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let session = try storedSession(arguments, global)
        let key = session.record.key
        let now = global.environment.now()
        let answer: [String: JSONValue]
        do throws(SignInError) {
            let refresher = SessionRefresher(
                transport: CurlTransport(trust: global.trust), currentProvider: CurrentEndpoints.lookup(global))
            answer = try introspection(session, inspector: inspector(global), refresher: refresher, now: now)
        } catch {
            throw CommandFailure(.authenticationFailed, "cannot introspect '\(key)': \(reason(error))")
        }
        if arguments.has("json") {
            global.out(JSONValue.object(answer).jsonText + "\n")
        } else {
            global.out(text(answer, now: now))
        }
        guard answer["active"] == .bool(true) else {
            global.err("authdeck introspect: the provider says the access token of '\(key)' is not active\n")
            return .authenticationFailed
        }
        return .done
    }

    /// The issuer's answer about the session's access token, at the introspection endpoint its configured provider
    /// or its discovery names: what `introspect` prints and the TUI's `I` sums up.
    static func introspection(
        _ session: Session, inspector: SessionInspector, refresher: SessionRefresher, now: Date
    ) throws(SignInError) -> [String: JSONValue] {
        let discovered = try inspector.endpoints(session.record, now: now)
        return try refresher.introspect(session, discovered: discovered)
    }

    /// The answer in one line, for the TUI's message line.
    static func summary(_ answer: [String: JSONValue], key: String, now: Date) -> String {
        guard answer["active"] == .bool(true) else {
            return "The provider says the access token of \(key) is not active."
        }
        var parts = ["\(key): active"]
        if let scope = answer["scope"]?.string { parts.append("scope " + scope) }
        if let client = answer["client_id"]?.string { parts.append("client " + client) }
        if let user = answer["username"]?.string ?? answer["sub"]?.string { parts.append("user " + user) }
        if let exp = answer["exp"]?.number {
            parts.append("expires " + DurationText.relative(Int((exp - now.timeIntervalSince1970).rounded())))
        }
        return "Introspection: " + parts.joined(separator: " · ")
    }

    /// The answer as lines: the members RFC 7662 2.2 names first (times as dates), then any others.
    static func text(_ answer: [String: JSONValue], now: Date) -> String {
        let leading = ["active", "scope", "client_id", "username", "sub", "exp", "iat", "nbf", "token_type"]
        let names = leading.filter { answer[$0] != nil } + answer.keys.filter { !leading.contains($0) }.sorted()
        let width = names.map(\.count).max() ?? 0
        return names.map { name in
            let value = answer[name] ?? .null
            let shown =
                TokenInspection.timeClaims.contains(name)
                ? TokenInspection.time(value, now: now) : value.string ?? value.jsonText
            return name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + shown + "\n"
        }.joined()
    }

    // MARK: - Shared

    /// Why a request failed, without the "Sign-in unavailable" a sign-in's message would start with.
    static func reason(_ error: SignInError) -> String {
        if case .unavailable(let reason) = error { return reason }
        return error.message
    }

    /// The session KEY names (or the default one), read whole from the store.
    private static func storedSession(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> Session
    {
        let named = try global.session(or: arguments.positionals(atMost: 1).first)
        let store = try StoreCommands.requireStore(global)
        return try StoreCommands.attempt { () throws(StoreError) in try store.session(try store.resolveKey(named)) }
    }

    private static func inspector(_ global: GlobalOptions) -> SessionInspector {
        inspector(
            environment: global.environment.variables, trust: global.trust,
            currentProvider: CurrentEndpoints.lookup(global))
    }

    /// The inspector both front ends use: the metadata cache in the data folder, today's configured providers.
    static func inspector(
        environment: [String: String], trust: CATrust,
        currentProvider: @escaping @Sendable (SessionRecord) -> CurrentProvider?
    ) -> SessionInspector {
        let folder = ConfigurationFile.dataFolder(environment: environment).appendingPathComponent("cache")
        return SessionInspector(
            metadata: ProviderMetadataCache(transport: CurlTransport(timeout: 10, trust: trust), folder: folder),
            currentProvider: currentProvider)
    }
}
