/// The bash completion script, generated from the command table (`authdeck-full --generate completions bash`).
enum BashCompletion {
    static var script: String {
        let commands = Commands.all.map(\.name).joined(separator: " ")
        let subcommandCases = CommandSurface.subcommandPaths.map { "\"\($0)\"" }.joined(separator: "|")
        var text = """
            # bash completion for authdeck, generated from its command table (Sources/AuthdeckCommands/CommandTable/Commands.swift)
            # by `make completions`: edit the table, not this file.

            # Adds the session keys that start with the word being completed to COMPREPLY, each written as one shell
            # word (printf %q). Keys are data: read line by line and compared in bash, never given to compgen -W,
            # which would expand a `$(…)` inside one.
            _authdeck_sessions() {
                local key word
                while IFS= read -r key; do
                    [ -n "$key" ] || continue
                    printf -v word '%q' "$key"
                    if [[ $key == "$cur"* || $word == "$cur"* ]]; then COMPREPLY+=("$word"); fi
                done < <(authdeck list --json 2>/dev/null | python3 -c 'import json,sys
            try:
                print("\\n".join(s["key"] for s in json.load(sys.stdin)))
            except Exception:
                pass' 2>/dev/null)
            }

            _authdeck() {
                local cur prev scope word i options="" operands="" subcommands="" files=0 commands=0 sessions=0
                COMPREPLY=()
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev="${COMP_WORDS[COMP_CWORD-1]}"
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(commands) --help --version" -- "$cur"))
                    return
                fi
                # The command, then the subcommand: the first word after it that is not an option.
                scope="${COMP_WORDS[1]}"
                for ((i = 2; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    [[ "$word" == -* ]] && continue
                    case "$scope $word" in
                        \(subcommandCases)) scope="$scope $word" ;;
                    esac
                    break
                done
                case "$prev" in

            """
        text += valueCases(GlobalOptions.specs, indent: "        ")
        text += """
                esac
                case "$scope" in

            """
        for scope in CommandSurface.scopes {
            text += "        \"\(scope.path)\")\n"
            let valued = scope.command.options.filter(\.takesValue)
            if !valued.isEmpty {
                text += "            case \"$prev\" in\n" + valueCases(valued, indent: "                ")
                text += "            esac\n"
            }
            var lines: [String] = []
            let options = scope.command.options.map { "--" + $0.name }.joined(separator: " ")
            if !options.isEmpty { lines.append("options=\"\(options)\"") }
            if !scope.subcommands.isEmpty {
                lines.append("subcommands=\"\(scope.subcommands.map(\.name).joined(separator: " "))\"")
            }
            switch scope.command.operands {
            case .none: break
            case .files: lines.append("files=1")
            case .command: lines.append("commands=1")
            case .sessions: lines.append("sessions=1")
            case .words(let words, let files):
                lines.append("operands=\"\(words.joined(separator: " "))\"")
                if files { lines.append("files=1") }
            }
            text += "            " + (lines.isEmpty ? ":" : lines.joined(separator: "\n            ")) + " ;;\n"
        }
        let global = (GlobalOptions.specs.map(\.name) + ["help"]).map { "--" + $0 }.joined(separator: " ")
        text += """
                esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$options \(global)" -- "$cur"))
                elif [ -n "$subcommands" ] && [ "$scope" = "${COMP_WORDS[1]}" ]; then
                    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
                elif [ "$commands" = 1 ]; then
                    COMPREPLY=($(compgen -c -- "$cur"))
                elif [ -n "$operands" ] || [ "$files" = 1 ] || [ "$sessions" = 1 ]; then
                    [ -n "$operands" ] && COMPREPLY=($(compgen -W "$operands" -- "$cur"))
                    [ "$sessions" = 1 ] && _authdeck_sessions
                    [ "$files" = 1 ] && COMPREPLY+=($(compgen -f -- "$cur"))
                else
                    COMPREPLY=($(compgen -W "$options \(global)" -- "$cur"))
                fi
            }
            complete -F _authdeck authdeck

            """
        return text
    }

    /// `--name) COMPREPLY=(…); return ;;` for each option that takes a value: what completes it, or nothing.
    private static func valueCases(_ options: [OptionSpec], indent: String) -> String {
        var groups: [(completion: String, names: [String])] = []
        for option in options where option.takesValue {
            let reply: String
            switch option.completion {
            case .none, .command: reply = "return"
            case .files: reply = "COMPREPLY=($(compgen -f -- \"$cur\")); return"
            case .sessions: reply = "_authdeck_sessions; return"
            case .words(let words, let files):
                let list = words.joined(separator: " ")
                reply = "COMPREPLY=($(compgen -W \"\(list)\"\(files ? " -f" : "") -- \"$cur\")); return"
            }
            if let index = groups.firstIndex(where: { $0.completion == reply }) {
                groups[index].names.append("--" + option.name)
            } else {
                groups.append((reply, ["--" + option.name]))
            }
        }
        return groups.map { indent + $0.names.joined(separator: "|") + ") " + $0.completion + " ;;\n" }.joined()
    }
}
