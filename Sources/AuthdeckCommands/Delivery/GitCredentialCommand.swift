import AuthClient
import AuthCore
import Foundation
import SessionStorage

/// `authdeck git-credential get|store|erase`: a git credential helper (gitcredentials(7)). `get` answers for the
/// hosts mapped to a session in config.json's `gitCredentials` (or the one `--host` names), with the username the
/// host expects and the session's token as the password; other hosts get no answer, so git asks its next helper.
/// `store` and `erase` change nothing: the store is authdeck's, not git's.
enum GitCredentialCommand {
    /// One host's entry: which session's token to send and under what username.
    struct Mapping: Equatable {
        var session: String
        var username: String
        var allowHTTP: Bool
    }

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let action = try arguments.positionals(atMost: 1).first else {
            throw .usage("git-credential needs get, store or erase")
        }
        guard ["get", "store", "erase"].contains(action) else {
            throw .usage("unknown git-credential action '\(action)' (get, store, erase)")
        }
        // git writes the request and closes the pipe; store and erase read it too, so git never sees a broken pipe.
        let input = parse(Data((try? global.environment.input.readToEnd()) ?? []))
        guard action == "get" else { return .done }
        guard let host = input["host"], !host.isEmpty else { return .done }
        for option in ["host", "username"] where arguments.value(option).map(Configuration.hasControl) == true {
            throw .usage("--\(option) must not contain a control character (a newline, tab or escape)")
        }
        var map = try configuredMap(global)
        if let named = arguments.value("host") {
            guard let session = arguments.value("session") else { throw .usage("--host needs --session") }
            map[named.lowercased()] = Mapping(
                session: session, username: arguments.value("username") ?? defaultUser,
                allowHTTP: false)
        }
        guard let mapping = map[host.lowercased()] else { return .done }
        let scheme = input["protocol"]?.lowercased() ?? ""
        guard scheme == "https" || (scheme == "http" && (mapping.allowHTTP || isLoopback(host))) else {
            global.err(
                "authdeck git-credential: not sending the token of '\(mapping.session)' to \(host) over "
                    + "\(scheme.isEmpty ? "an unnamed protocol" : scheme); use https\n")
            return .done
        }
        if let asked = input["username"], !asked.isEmpty, asked != mapping.username { return .done }
        var requirement = try TokenRequirement.parse(arguments, key: mapping.session)
        requirement.idToken = false
        let issued = try TokenSource.issue(requirement, global)
        guard !issued.token.contains("\n"), !issued.token.contains("\0") else {
            throw CommandFailure(.failed, "the token of '\(issued.key)' cannot be written as a git credential")
        }
        var answer = "username=\(mapping.username)\npassword=\(issued.token)\n"
        if let expiresAt = issued.expiresAt {
            answer += "password_expiry_utc=\(Int(expiresAt.timeIntervalSince1970))\n"
        }
        global.out(answer)
        return .done
    }

    static let defaultUser = "x-access-token"

    /// `key=value` lines up to a blank line (gitcredentials(7)); later lines of one key win.
    static func parse(_ data: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    static func isLoopback(_ host: String) -> Bool {
        let name =
            host.hasPrefix("[")
            ? String(host.dropFirst().prefix { $0 != "]" })
            : String(host.prefix { $0 != ":" })
        return name == "127.0.0.1" || name == "::1" || name.lowercased() == "localhost"
    }

    /// config.json's `gitCredentials` (or `section`, `registryCredentials` for the Docker helper):
    /// `{"HOST": {"session": KEY, "username": NAME, "allowHTTP": BOOL}}`.
    static func configuredMap(
        _ global: GlobalOptions, section name: String = "gitCredentials"
    ) throws(CommandFailure) -> [String: Mapping] {
        let path = ConfigurationFile.path(explicit: global.config, environment: global.environment.variables)
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure(.failed, "\(path): not a JSON object")
        }
        // A newline in a username would add lines of git's credential protocol (a host, a path) to the answer.
        if let problem = Configuration.controlCharacterProblem(in: data) {
            throw CommandFailure(.failed, "\(path): \(problem)")
        }
        guard let section = object[name] else { return [:] }
        guard let hosts = section as? [String: Any] else {
            throw CommandFailure(.failed, "\(path): \(name) must map hosts to {\"session\", \"username\"}")
        }
        var map: [String: Mapping] = [:]
        for (host, value) in hosts {
            guard let entry = value as? [String: Any], let session = entry["session"] as? String, !session.isEmpty,
                entry["username"] == nil || entry["username"] is String,
                entry["allowHTTP"] == nil || entry["allowHTTP"] is Bool
            else {
                throw CommandFailure(
                    .failed,
                    "\(path): \(name).\(host) needs \"session\" (and may have "
                        + "\"username\" and \"allowHTTP\")")
            }
            map[host.lowercased()] = Mapping(
                session: session, username: entry["username"] as? String ?? defaultUser,
                allowHTTP: entry["allowHTTP"] as? Bool ?? false)
        }
        return map
    }
}
