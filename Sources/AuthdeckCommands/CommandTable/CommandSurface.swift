import Foundation

/// What the command table generates: `authdeck-full --generate completions bash|zsh|fish` prints a completion
/// script, `--generate man` reads the man page on standard input and prints it with its command entries' headers
/// and option lists, and its global options, rewritten from the table. `make completions` writes them to
/// Resources/; SupportToolingTests checks the committed files are exactly what the table generates.
enum CommandSurface {
    /// One place in the command tree a shell completes: a command, or a command and one of its subcommands.
    struct Scope {
        /// `token`, `totp list`.
        let path: String
        let command: Command
        /// The subcommands a bare parent offers (empty for a subcommand or a command without any).
        var subcommands: [Command] { path.contains(" ") ? [] : command.subcommands }
    }

    /// Every command, each followed by its subcommands, in the table's order.
    static var scopes: [Scope] {
        Commands.all.flatMap { command in
            [Scope(path: command.name, command: command)]
                + command.subcommands.map { Scope(path: command.name + " " + $0.name, command: $0) }
        }
    }

    /// `totp add`, `store lock`…: every command-and-subcommand path.
    static var subcommandPaths: [String] { scopes.map(\.path).filter { $0.contains(" ") } }

    static func generate(_ words: [String], _ environment: CommandEnvironment) -> Int32 {
        switch (words.first, words.count) {
        case ("completions", 2):
            switch words[1] {
            case "bash": environment.output.write(BashCompletion.script)
            case "zsh": environment.output.write(ZshCompletion.script)
            case "fish": environment.output.write(FishCompletion.script)
            default:
                environment.errors.write("authdeck: --generate completions takes bash, zsh or fish\n")
                return ExitCode.usage.rawValue
            }
            return ExitCode.done.rawValue
        case ("man", 1):
            let page = String(decoding: (try? environment.input.readToEnd()) ?? [], as: UTF8.self)
            do throws(CommandFailure) {
                environment.output.write(try ManPageSections.rewrite(page))
            } catch {
                environment.errors.write("authdeck --generate man: \(error.message)\n")
                return error.code.rawValue
            }
            return ExitCode.done.rawValue
        default:
            environment.errors.write(
                "authdeck: usage: authdeck-full --generate completions bash|zsh|fish | --generate man < PAGE\n")
            return ExitCode.usage.rawValue
        }
    }

    /// The summary as a short description: without its final full stop.
    static func description(_ summary: String) -> String {
        summary.hasSuffix(".") ? String(summary.dropLast()) : summary
    }
}
