import AuthCore

/// The fish completion script, generated from the command table (`authdeck-full --generate completions fish`).
enum FishCompletion {
    static var script: String {
        let paths = CommandSurface.subcommandPaths.map(quoted).joined(separator: " ")
        var text = """
            # fish completion for authdeck, generated from its command table (Sources/AuthdeckCommands/CommandTable/Commands.swift)
            # by `make completions`: edit the table, not this file.
            function __authdeck_sessions
                authdeck list --json 2>/dev/null | python3 -c 'import json,sys
            try:
                print("\\n".join(s["key"] for s in json.load(sys.stdin)))
            except Exception:
                pass' 2>/dev/null
            end

            # The command and subcommand typed so far ("totp list"): the subcommand is the first word after the
            # command that is not an option.
            function __authdeck_scope
                set -l words (commandline -opc)
                test (count $words) -ge 2; or return 0
                set -l scope $words[2]
                for i in (seq 3 (count $words))
                    string match -q -- '-*' $words[$i]; and continue
                    contains -- "$scope $words[$i]" \(paths); and set scope "$scope $words[$i]"
                    break
                end
                echo $scope
            end

            function __authdeck_in
                set -l scope (__authdeck_scope)
                test "$scope" = "$argv[1]"
            end

            complete -c authdeck -f
            complete -c authdeck -n '__authdeck_in ""' -l version -d 'print the version'

            """
        for command in Commands.all {
            text +=
                "complete -c authdeck -n '__authdeck_in \"\"' -a \(command.name) -d "
                + quoted(CommandSurface.description(command.summary)) + "\n"
        }
        for option in GlobalOptions.specs + [.flag("help", "show this help")] {
            text += "complete -c authdeck" + line(option) + "\n"
        }
        for scope in CommandSurface.scopes {
            let condition = " -n " + quoted("__authdeck_in \"\(scope.path)\"")
            for subcommand in scope.subcommands {
                text +=
                    "complete -c authdeck\(condition) -a \(subcommand.name) -d "
                    + quoted(CommandSurface.description(subcommand.summary)) + "\n"
            }
            switch scope.command.operands {
            case .none, .command: break
            case .files: text += "complete -c authdeck\(condition) -F\n"
            case .sessions: text += "complete -c authdeck\(condition) -a '(__authdeck_sessions)'\n"
            case .words(let words, _):
                text += "complete -c authdeck\(condition) -a " + quoted(words.joined(separator: " ")) + "\n"
            }
            for option in scope.command.options {
                text += "complete -c authdeck\(condition)" + line(option) + "\n"
            }
        }
        return text
    }

    /// ` -l name [-x -a …|-r -F] -d help` for one option.
    private static func line(_ option: OptionSpec) -> String {
        var text = " -l \(option.name)"
        if option.takesValue {
            switch option.completion {
            case .none, .command: text += " -x"
            case .files: text += " -r -F"
            case .sessions: text += " -x -a '(__authdeck_sessions)'"
            case .words(let words, let files):
                text += (files ? " -r -F" : " -x") + " -a " + quoted(words.joined(separator: " "))
            }
        }
        return text + " -d " + quoted(option.help)
    }

    /// Single-quoted for fish (backslash and quote escaped).
    private static func quoted(_ text: String) -> String { ShellWord.fish(text) }
}
