import AuthClient
import AuthCore
import SessionStorage

/// One `authdeck` command or subcommand, one entry of the command table: its name, what it does, its options,
/// what its operands are, its subcommands, and what runs it. A subcommand without its own `run` is run by its
/// parent's, which finds the subcommand's name first among the positionals.
struct Command: Sendable {
    typealias Run = @Sendable (Arguments, GlobalOptions) throws(CommandFailure) -> ExitCode

    let name: String
    let synopsis: String
    let summary: String
    let options: [OptionSpec]
    /// What a shell completes for the positionals (after the subcommand's name).
    let operands: OptionSpec.Completion
    /// `totp add`, `store lock`…: each with its own options; the parent's own options serve the bare command.
    let subcommands: [Command]
    /// Global options the command refuses (`login` takes `--session-key`, never `--session`): left out of its help.
    let refusedGlobals: [String]
    let run: Run?

    init(
        _ name: String, synopsis: String, summary: String, options: [OptionSpec] = [],
        operands: OptionSpec.Completion = .none, subcommands: [Command] = [], refusedGlobals: [String] = [],
        run: Run? = nil
    ) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.options = options
        self.operands = operands
        self.subcommands = subcommands
        self.refusedGlobals = refusedGlobals
        self.run = run
    }

    func subcommand(_ name: String?) -> Command? {
        subcommands.first { $0.name == name }
    }

    /// Whether the command does something without a subcommand (`sandbox` runs the server; `totp` alone does not).
    var runsAlone: Bool { subcommands.isEmpty || !options.isEmpty }

    /// The `--help` text: usage, summary, subcommands, then every option it takes (its own, the global ones).
    var help: String {
        var usage = runsAlone ? [synopsis] : []
        usage += subcommands.map(\.synopsis)
        var text = "usage: " + usage.map { "authdeck " + $0 }.joined(separator: "\n       ") + "\n\n\(summary)\n"
        if !subcommands.isEmpty {
            text += "\ncommands (each takes --help):\n"
            for subcommand in subcommands {
                text += "  " + subcommand.name.padded(to: 26) + " " + subcommand.summary + "\n"
            }
        }
        let globals = GlobalOptions.specs.filter { !refusedGlobals.contains($0.name) }
        let all = options + globals + [.flag("help", "show this help")]
        text += "\noptions:\n"
        for option in all {
            let left = option.takesValue ? "--\(option.name) \(option.placeholder)" : "--\(option.name)"
            let column = left.count > 26 ? left + "\n" + String(repeating: " ", count: 28) : left.padded(to: 26)
            text += "  " + column + " " + option.help + "\n"
        }
        return text
    }
}

/// Options every command accepts.
struct GlobalOptions {
    static let specs: [OptionSpec] = [
        .session("session", "KEY", "use this session for one command (else $AUTHDECK_SESSION, else the selected one)"),
        .file("config", "configuration file (else $AUTHDECK_CONFIG, else $XDG_CONFIG_HOME/authdeck/config.json)"),
        .value(
            "unlock-for", "MINUTES",
            "keep the unlocked store key cached in the kernel keyring this many minutes (default 15; 0 disables)"),
        .value("keyring-timeout", "SECONDS", "seconds to wait for the Secret Service (default 5)"),
        .flag("quiet", "print nothing but data and errors"),
    ]

    /// `--session`, `$AUTHDECK_SESSION` or `.authdeck-session`, resolved when a command asks for it: a bad key
    /// there fails only the commands that act on a session.
    var session: String? {
        get throws(CommandFailure) { try sessionChoice.get()?.key }
    }
    /// Where `session` came from: `--session`, `$AUTHDECK_SESSION` or a `.authdeck-session` file's path; nil when
    /// nothing chose one (or the choice was refused).
    var sessionSource: String? { (try? sessionChoice.get())?.source }
    /// The key a `.authdeck-session` file chose for this directory, when the choice came from one.
    var directorySession: String? {
        guard let choice = try? sessionChoice.get(), choice.source != SessionChoice.optionSource,
            choice.source != SessionChoice.environmentSource
        else { return nil }
        return choice.key
    }
    private var sessionChoice: Result<(key: String, source: String)?, CommandFailure>

    /// The session a command names itself (`KEY`), else the one chosen by option, environment or directory file.
    func session(or positional: String?) throws(CommandFailure) -> String? {
        if let positional { return positional }
        return try session
    }
    var config: String?
    var unlockForMinutes: Int = 15
    var keyringTimeoutSeconds: Int = 5
    var quiet = false
    /// The variables, clock and streams the command runs with (the process's, or a test's).
    let environment: CommandEnvironment

    /// The certificate authorities the command's HTTPS requests trust: its configuration's `caFile` entries and its
    /// own `SSL_CERT_FILE` / `SSL_CERT_DIR`.
    var trust: CATrust { CATrust.loaded(explicit: config, environment: environment.variables) }

    /// Writes `text` to the command's standard output, sanitised (CommandOutput).
    func out(_ text: String) { environment.output.write(text) }
    /// Writes `text` to the command's standard error, sanitised.
    func err(_ text: String) { environment.errors.write(text) }

    init(_ arguments: Arguments, environment: CommandEnvironment) throws(CommandFailure) {
        self.environment = environment
        let option = arguments.value("session")
        let variables = environment.variables
        let errors = environment.errors
        sessionChoice = Result { () throws(CommandFailure) in
            try StoreCommands.attempt { () throws(StoreError) in
                try SessionChoice.resolveWithSource(
                    option: option, environment: variables,
                    home: DirectorySessionFile.homeDirectory(variables["HOME"])
                ) { errors.write("authdeck: " + TerminalText.sanitized($0) + "\n") }
            }
        }
        config = arguments.value("config") ?? variables["AUTHDECK_CONFIG"]
        unlockForMinutes = try arguments.integer("unlock-for", in: 0...10_080) ?? 15
        keyringTimeoutSeconds = try arguments.integer("keyring-timeout", in: 1...300) ?? 5
        quiet = arguments.has("quiet")
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (never truncated).
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
