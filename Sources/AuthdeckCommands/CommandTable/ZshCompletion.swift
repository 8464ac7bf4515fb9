import AuthCore

/// The zsh completion function, generated from the command table (`authdeck-full --generate completions zsh`).
enum ZshCompletion {
    static var script: String {
        let subcommandCases = CommandSurface.subcommandPaths.map { "'\($0)'" }.joined(separator: "|")
        var text = """
            #compdef authdeck
            # zsh completion for authdeck, generated from its command table (Sources/AuthdeckCommands/CommandTable/Commands.swift)
            # by `make completions`: edit the table, not this file.

            _authdeck_sessions() {
                local -a keys
                keys=(${(f)"$(authdeck list --json 2>/dev/null | python3 -c 'import json,sys
            try:
                print("\\n".join(s["key"] for s in json.load(sys.stdin)))
            except Exception:
                pass' 2>/dev/null)"})
                # compadd takes each key as it is and quotes it on insertion (_describe would cut one at a `:`).
                _wanted sessions expl session compadd -a keys
            }

            _authdeck() {
                local -a commands subcommands global
                local scope word
                commands=(

            """
        for command in Commands.all {
            text +=
                "        "
                + quoted(
                    command.name.replacingOccurrences(of: ":", with: "\\:") + ":"
                        + CommandSurface.description(command.summary)) + "\n"
        }
        text += "    )\n    global=(\n"
        for option in GlobalOptions.specs + [.flag("help", "show this help")] {
            text += "        " + spec(option) + "\n"
        }
        text += """
                )
                if (( CURRENT == 2 )); then
                    _describe 'command' commands
                    return
                fi
                # The command, then the subcommand: the first word after it that is not an option. The words before the
                # one that names the scope go, so _arguments sees it as the command name.
                local -i i n=2
                scope=$words[2]
                for (( i = 3; i < CURRENT; i++ )); do
                    word=$words[i]
                    [[ $word == -* ]] && continue
                    case "$scope $word" in
                        (\(subcommandCases)) scope="$scope $word"; n=i ;;
                    esac
                    break
                done
                words=("${(@)words[n,-1]}")
                (( CURRENT -= n - 1 ))
                case $scope in

            """
        for scope in CommandSurface.scopes {
            var lines: [String] = []
            if !scope.subcommands.isEmpty {
                let entries = scope.subcommands.map { quoted($0.name + ":" + CommandSurface.description($0.summary)) }
                lines.append("subcommands=(" + entries.joined(separator: " ") + ")")
                if scope.command.runsAlone {
                    lines.append("if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then")
                    lines.append("    _describe '\(scope.path) command' subcommands; return")
                    lines.append("fi")
                } else {
                    lines.append("_describe '\(scope.path) command' subcommands; return")
                }
            }
            if scope.subcommands.isEmpty || scope.command.runsAlone {
                var specs = scope.command.options.map(spec)
                switch scope.command.operands {
                case .none: break
                case .files: specs.append("'*:file:_files'")
                case .sessions: specs.append("'*:session:_authdeck_sessions'")
                case .command: specs.append("'*::command:_normal'")
                case .words(let words, _): specs.append(quoted("*:argument:(" + words.joined(separator: " ") + ")"))
                }
                specs.append("$global")
                lines.append("_arguments " + specs.joined(separator: " \\\n        "))
            }
            text += "        (" + (scope.path.contains(" ") ? "'\(scope.path)'" : scope.path) + ")\n"
            text += lines.map { "            " + $0 + "\n" }.joined().replacingOccurrences(
                of: "\\\n        ", with: "\\\n                ")
            text += "            ;;\n"
        }
        text += """
                esac
            }

            _authdeck "$@"

            """
        return text
    }

    /// An `_arguments` spec: `'--name[help]'`, or `'--name[help]:PLACEHOLDER:action'` for a valued option.
    private static func spec(_ option: OptionSpec) -> String {
        let help = option.help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]").replacingOccurrences(of: ":", with: "\\:")
        var text = "--\(option.name)[\(help)]"
        if option.takesValue {
            let message = option.placeholder.replacingOccurrences(of: ":", with: "\\:")
            let action: String
            switch option.completion {
            case .none, .command: action = " "
            case .files: action = "_files"
            case .sessions: action = "_authdeck_sessions"
            case .words(let words, _): action = "(" + words.joined(separator: " ") + ")"
            }
            text += ":\(message):\(action)"
        }
        return quoted(text)
    }

    /// Single-quoted for zsh.
    private static func quoted(_ text: String) -> String { ShellWord.posix(text) }
}
