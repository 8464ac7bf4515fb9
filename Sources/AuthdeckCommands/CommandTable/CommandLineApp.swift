import AuthCore

#if canImport(Glibc)
    import Glibc
#endif

/// The command line: picks the command, parses its options, runs it, and turns failures into exit codes.
public enum CommandLineApp {
    static let version = AuthdeckVersion.current

    public static func main(_ words: [String], environment: CommandEnvironment) -> Int32 {
        let output = environment.output
        guard let first = words.first else {
            // With no arguments on a terminal, authdeck opens the TUI; elsewhere it shows the help.
            if environment.input.isTerminal && output.isTerminal, let tui = Commands.named("tui") {
                return run(tui, [], environment: environment)
            }
            output.write(overview)
            return ExitCode.done.rawValue
        }
        switch first {
        case "--version", "-V", "version":
            output.write("authdeck \(version)\n")
            return ExitCode.done.rawValue
        case "--help", "-h", "help":
            if words.count > 1, let command = Commands.named(words[1]) {
                output.write((command.subcommand(words.count > 2 ? words[2] : nil) ?? command).help)
            } else {
                output.write(overview)
            }
            return ExitCode.done.rawValue
        case "--generate":
            return CommandSurface.generate(Array(words.dropFirst()), environment)
        default:
            guard let command = Commands.named(first) else {
                environment.errors.write("authdeck: unknown command '\(first)' (see authdeck --help)\n")
                return ExitCode.usage.rawValue
            }
            return run(command, Array(words.dropFirst()), environment: environment)
        }
    }

    /// Runs `command`, or the subcommand named first among its positionals, with the options that one takes.
    private static func run(_ command: Command, _ words: [String], environment: CommandEnvironment) -> Int32 {
        // Only before `--`: what follows belongs to the command `exec` runs (`exec -- kubectl --help`).
        let ownWords = Array(words.prefix { $0 != "--" })
        let everyOption = command.options + command.subcommands.flatMap(\.options) + GlobalOptions.specs
        let firstWord = Arguments.firstPositional(ownWords, options: everyOption)
        let subcommand = command.subcommand(firstWord)
        let chosen = subcommand ?? command
        if ownWords.contains("--help") || ownWords.contains("-h") {
            environment.output.write(chosen.help)
            return ExitCode.done.rawValue
        }
        do throws(CommandFailure) {
            if subcommand == nil, !command.runsAlone {
                let names = command.subcommands.map(\.name).joined(separator: ", ")
                guard let firstWord else { throw .usage("\(command.name) needs a command: \(names)") }
                throw .usage("unknown \(command.name) command '\(firstWord.prefix(40))' (\(names))")
            }
            let arguments = try Arguments(words, options: chosen.options + GlobalOptions.specs)
            let global = try GlobalOptions(arguments, environment: environment)
            guard let run = chosen.run ?? command.run else {
                throw CommandFailure(.failed, "'\(command.name)' has nothing to run")
            }
            return try run(arguments, global).rawValue
        } catch {
            let name = subcommand.map { "\(command.name) \($0.name)" } ?? command.name
            environment.errors.write("authdeck \(name): \(error.message)\n")
            if error.code == .usage, error.showsUsage {
                environment.errors.write("usage: authdeck \(chosen.synopsis)\n")
            }
            return error.code.rawValue
        }
    }

    static var overview: String {
        var text = """
            authdeck \(version) — a terminal account manager for sign-in sessions.

            usage: authdeck [COMMAND] [options]    (no command on a terminal opens the TUI)

            commands:

            """
        for command in Commands.all {
            text += "  " + (command.name + " ").padded(to: 16) + command.summary + "\n"
        }
        text += """

            Every command takes --help. Exit codes: 0 done, 1 failed, 2 usage, 3 cancelled, 4 authentication failed,
            5 store locked or storage failure, 6 timed out, 7 no such session.

            """
        return text
    }
}
