import AuthCore
import Foundation

/// `docker-credential-authdeck get|store|erase|list` (or `authdeck docker-credential …`): a credential helper in
/// docker/docker-credential-helpers' protocol, which Docker, skopeo and podman run for the registries their
/// `credHelpers` name. `get` reads a registry on stdin and answers `{"ServerURL", "Username", "Secret"}` with the
/// token of the session config.json's `registryCredentials` maps it to; `list` prints `{registry: username}`.
/// `store` and `erase` change nothing: the password is the session's token, which the store keeps. As the protocol
/// asks, a refusal is one line on stdout (what the client shows) and a non-zero exit.
enum DockerCredentialCommand {
    /// The protocol's text for "nothing stored for this registry"; clients compare it literally.
    static let notFound = "credentials not found in native keychain"
    /// The protocol's verbs, the one word a client passes.
    enum Action: String {
        case get, store, erase, list
    }

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let word = try arguments.positionals(atMost: 1).first else {
            throw .usage("docker-credential needs get, store, erase or list")
        }
        guard let action = Action(rawValue: word) else {
            throw .usage("unknown docker-credential action '\(word)' (get, store, erase, list)")
        }
        let input = Data((try? global.environment.input.readToEnd()) ?? [])
        do throws(CommandFailure) {
            var map: [String: GitCredentialCommand.Mapping] = [:]
            for (registry, mapping) in try GitCredentialCommand.configuredMap(global, section: "registryCredentials") {
                map[self.registry(registry)] = mapping
            }
            switch action {
            case .list:
                global.out(json(map.mapValues { $0.username }))
                return .done
            case .get:
                let asked = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                let registry = self.registry(asked)
                guard let mapping = map[registry] else {
                    throw CommandFailure(
                        .failed,
                        "no session is mapped to the registry '\(TerminalText.sanitized(registry))'; add it to "
                            + "config.json's registryCredentials")
                }
                var requirement = try TokenRequirement.parse(arguments, key: mapping.session)
                requirement.idToken = false
                let issued = try TokenSource.issue(requirement, global)
                global.out(
                    json(["ServerURL": asked, "Username": mapping.username, "Secret": issued.token]))
                return .done
            case .store, .erase:
                let object = try? JSONSerialization.jsonObject(with: input) as? [String: Any]
                let named = action == .erase ? String(decoding: input, as: UTF8.self) : object?["ServerURL"] as? String
                guard let named else {
                    throw CommandFailure(.usage, "store reads {\"ServerURL\", \"Username\", \"Secret\"} on stdin")
                }
                let registry = self.registry(named)
                guard map[registry] == nil else { return .done }
                guard action == .store else { throw CommandFailure(.failed, notFound) }
                throw CommandFailure(
                    .failed,
                    "authdeck keeps no registry passwords: map '\(TerminalText.sanitized(registry))' to a session "
                        + "in config.json's registryCredentials")
            }
        } catch {
            // The protocol's clients read a helper's error from its stdout; the token is never part of one.
            global.out(error.message + "\n")
            return error.code
        }
    }

    /// A registry as clients name it (`host[:port]`, or a URL such as `https://index.docker.io/v1/`): the host and
    /// port, lowercased, for looking it up in the map.
    static func registry(_ text: String) -> String {
        var name = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        for scheme in ["https://", "http://"] where name.lowercased().hasPrefix(scheme) {
            name = name.dropFirst(scheme.count)
        }
        return String(name.prefix { $0 != "/" }).lowercased()
    }

    private static func json(_ object: [String: String]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}
