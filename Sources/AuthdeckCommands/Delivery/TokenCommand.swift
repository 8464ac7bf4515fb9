import AuthCore
import SessionStorage

/// `authdeck token [KEY] [--id-token] [--json] [--min-valid DUR] [--format plain|json|exec-credential]`.
enum TokenCommand {
    enum Format: String {
        case plain, json
        case execCredential = "exec-credential"
    }

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try global.session(or: arguments.positionals(atMost: 1).first)
        var format = Format.plain
        if let name = arguments.value("format") {
            guard let chosen = Format(rawValue: name) else {
                throw .usage("--format must be plain, json or exec-credential")
            }
            if arguments.has("json") && chosen != .json { throw .usage("--json and --format \(name) disagree") }
            format = chosen
        } else if arguments.has("json") {
            format = .json
        }
        let requirement = try TokenRequirement.parse(arguments, key: key)
        // Checked before the token is fetched, so a bad KUBERNETES_EXEC_INFO refreshes nothing.
        let apiVersion =
            format == .execCredential
            ? try ExecCredential.apiVersion(environment: global.environment.variables) : ""
        let issued = try TokenSource.issue(requirement, global)
        switch format {
        case .plain:
            global.out(issued.token + "\n")
        case .json:
            let object = SessionJSON.tokenObject(key: issued.key, token: issued.token, expiresAt: issued.expiresAt)
            global.out(object + "\n")
        case .execCredential:
            global.out(ExecCredential.json(issued, apiVersion: apiVersion))
        }
        return .done
    }
}
