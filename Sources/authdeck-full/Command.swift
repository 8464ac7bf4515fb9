import SessionStorage

/// One `authdeck` command: its name, what it does, its options, and what runs it.
struct Command: Sendable {
    let name: String
    let synopsis: String
    let summary: String
    let options: [OptionSpec]
    /// The issue that builds this command, while it is not built yet; nil once it runs.
    let pendingIssue: Int?
    let run: @Sendable (Arguments, GlobalOptions) throws(CommandFailure) -> ExitCode

    init(_ name: String, synopsis: String, summary: String, options: [OptionSpec] = [], pendingIssue: Int? = nil,
         run: @escaping @Sendable (Arguments, GlobalOptions) throws(CommandFailure) -> ExitCode = { _, _ in .failed }) {
        self.name = name
        self.synopsis = synopsis
        self.summary = summary
        self.options = options
        self.pendingIssue = pendingIssue
        self.run = run
    }

    var help: String {
        var text = "usage: authdeck \(synopsis)\n\n\(summary)\n"
        if let pendingIssue { text += "\nNot built yet (issue \(pendingIssue)).\n" }
        let all = options + GlobalOptions.specs + [.flag("help", "show this help")]
        text += "\noptions:\n"
        for option in all {
            let left = option.takesValue ? "--\(option.name) VALUE" : "--\(option.name)"
            text += "  " + left.padded(to: 26) + " " + option.help + "\n"
        }
        return text
    }
}

/// Options every command accepts.
struct GlobalOptions {
    static let specs: [OptionSpec] = [
        .value("session", "use this session for one command (else $AUTHDECK_SESSION, else the selected one)"),
        .value("config", "configuration file (else $AUTHDECK_CONFIG, else $XDG_CONFIG_HOME/authdeck/config.json)"),
        .value("unlock-for", "keep the unlocked store key cached this many minutes (default 15; 0 disables)"),
        .value("keyring-timeout", "seconds to wait for the Secret Service (default 5)"),
        .flag("quiet", "print nothing but data and errors"),
    ]

    /// `--session`, `$AUTHDECK_SESSION` or `.authdeck-session`, resolved when a command asks for it: a bad key
    /// there fails only the commands that act on a session.
    var session: String? {
        get throws(CommandFailure) { try sessionChoice.get() }
    }
    private var sessionChoice: Result<String?, CommandFailure>

    /// The session a command names itself (`KEY`), else the one chosen by option, environment or directory file.
    func session(or positional: String?) throws(CommandFailure) -> String? {
        if let positional { return positional }
        return try session
    }
    var config: String?
    var unlockForMinutes: Int = 15
    var keyringTimeoutSeconds: Int = 5
    var quiet = false

    init(_ arguments: Arguments, environment: [String: String]) throws(CommandFailure) {
        let option = arguments.value("session")
        sessionChoice = Result { () throws(CommandFailure) in
            try StoreCommands.attempt { () throws(StoreError) in
                try SessionChoice.resolve(option: option, environment: environment)
            }
        }
        config = arguments.value("config") ?? environment["AUTHDECK_CONFIG"]
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
