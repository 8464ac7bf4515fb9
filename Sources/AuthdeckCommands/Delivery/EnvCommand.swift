import AuthCore
import SessionStorage

/// `authdeck env [KEY] [--shell bash|zsh|sh|fish] [--env NAME] [--min-valid DUR]`: the lines that put the token
/// and session key in the calling shell, for `eval "$(authdeck env)"` or `authdeck env | source` in fish.
enum EnvCommand {
    /// How a shell sets an exported variable.
    enum Dialect {
        case posix, fish

        static func named(_ name: String) -> Dialect? {
            switch name {
            case "bash", "zsh", "sh", "dash", "ksh": return .posix
            case "fish": return .fish
            default: return nil
            }
        }

        /// The line that exports `name`, its value quoted by `ShellWord` (on bytes, so no character can end it).
        func export(_ name: String, _ value: String) -> String {
            switch self {
            case .posix: return "export \(name)=" + ShellWord.posix(value) + "\n"
            case .fish: return "set -gx \(name) " + ShellWord.fish(value) + ";\n"
            }
        }
    }

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try global.session(or: arguments.positionals(atMost: 1).first)
        let dialect: Dialect
        if let shell = arguments.value("shell") {
            guard let named = Dialect.named(shell) else { throw .usage("--shell must be bash, zsh, sh or fish") }
            dialect = named
        } else {
            let shell = global.environment.variables["SHELL"] ?? ""
            dialect = shell.split(separator: "/").last == "fish" ? .fish : .posix
        }
        let name = try ExecCommand.variableName(arguments.value("env"))
        let requirement = try TokenRequirement.parse(arguments, key: key)
        let issued = try TokenSource.issue(requirement, global).forEnvironment()
        global.out(dialect.export(name, issued.token) + dialect.export("AUTHDECK_SESSION", issued.key))
        return .done
    }
}
