/// One option a command accepts, one row of the command table: `--name VALUE` when it takes a value, else a flag.
/// The value's placeholder and what completes it feed `--help`, the man page and the shell completions.
struct OptionSpec: Sendable {
    /// What a shell offers for an option's value or a command's operands.
    enum Completion: Sendable, Equatable {
        /// Free text: nothing to offer.
        case none
        /// File names.
        case files
        /// The session keys in the store (`authdeck list --json`).
        case sessions
        /// One of these words (and file names too when `files` is true).
        case words([String], files: Bool = false)
        /// A command and its arguments (`exec -- COMMAND`).
        case command
    }

    let name: String
    let takesValue: Bool
    let help: String
    /// The value's name in synopses (`FILE`, `DUR`); "VALUE" when a row does not say.
    let placeholder: String
    let completion: Completion

    /// An option without a value.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: false, help: help, placeholder: "", completion: .none)
    }
    /// An option whose value is free text.
    static func value(_ name: String, _ help: String) -> OptionSpec {
        value(name, "VALUE", help)
    }
    /// An option whose value is free text, named `placeholder`.
    static func value(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, help: help, placeholder: placeholder, completion: .none)
    }
    /// An option whose value is a file name.
    static func file(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, help: help, placeholder: "FILE", completion: .files)
    }
    /// An option whose value is a stored session's key.
    static func session(_ name: String, _ placeholder: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, help: help, placeholder: placeholder, completion: .sessions)
    }
    /// An option whose value is one of `words` (or, with `files`, a file).
    static func choice(
        _ name: String, _ words: [String], files: Bool = false, placeholder: String? = nil,
        _ help: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, takesValue: true, help: help,
            placeholder: placeholder ?? words.joined(separator: "|"), completion: .words(words, files: files))
    }
}
