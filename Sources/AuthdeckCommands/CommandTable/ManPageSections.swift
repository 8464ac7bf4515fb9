/// The man page's parts that come from the command table: in COMMANDS, each entry's header (from the synopsis)
/// and its option list; GLOBAL OPTIONS whole. The prose under each header is the page's own and is kept; an entry
/// the table has and the page lacks gets the summary as its prose, and the table's order wins.
enum ManPageSections {
    /// The line that starts each generated option list, so a rewrite finds where the prose ends.
    static let optionsMarker =
        #".\" options: generated from "# + "Sources/AuthdeckCommands/CommandTable/Commands.swift (make completions)"

    static func rewrite(_ page: String) throws(CommandFailure) -> String {
        var lines = page.components(separatedBy: "\n")
        guard let commands = lines.firstIndex(of: ".SH COMMANDS"),
            let commandsEnd = lines[(commands + 1)...].firstIndex(where: { $0.hasPrefix(".SH ") })
        else {
            throw CommandFailure(.failed, "the page has no .SH COMMANDS section followed by another section")
        }
        let prose = proseByPath(Array(lines[(commands + 1)..<commandsEnd]))
        var generated: [String] = []
        for scope in CommandSurface.scopes {
            generated += [".TP", header(scope)]
            generated += prose[scope.path] ?? [text(scope.command.summary)]
            generated += optionList(scope.command.options)
        }
        lines.replaceSubrange((commands + 1)..<commandsEnd, with: generated)
        guard let global = lines.firstIndex(of: ".SH GLOBAL OPTIONS"),
            let globalEnd = lines[(global + 1)...].firstIndex(where: { $0.hasPrefix(".SH ") })
        else {
            throw CommandFailure(.failed, "the page has no .SH GLOBAL OPTIONS section followed by another section")
        }
        let globalEntries = GlobalOptions.specs.flatMap { [".TP", tag($0), help($0)] }
        lines.replaceSubrange((global + 1)..<globalEnd, with: globalEntries)
        return lines.joined(separator: "\n")
    }

    /// Each entry's prose, by the command path its header names: the lines after the header, up to its option list.
    private static func proseByPath(_ lines: [String]) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var path: String?
        var inOptions = false
        for line in lines {
            if line == ".TP" {
                path = nil
                continue
            }
            if let current = path {
                if line == optionsMarker { inOptions = true }
                if !inOptions { result[current, default: []].append(line) }
            } else if let named = self.path(ofHeader: line) {
                path = named
                inOptions = false
                result[named] = []
            }
        }
        return result.filter { !$0.value.isEmpty }
    }

    /// `.BR token " …"` names `token`; `.BR "totp add" " …"` names `totp add`; `.B tui` names `tui`.
    private static func path(ofHeader line: String) -> String? {
        guard let space = line.firstIndex(of: " "), [".B", ".BR", ".BI"].contains(String(line[..<space])) else {
            return nil
        }
        let rest = line[line.index(after: space)...]
        let name: Substring
        if rest.hasPrefix("\"") {
            name = rest.dropFirst().prefix { $0 != "\"" }
        } else {
            name = rest.prefix { $0 != " " }
        }
        return name.replacingOccurrences(of: "\\-", with: "-")
    }

    /// `.BR "totp add" " \fIUSER\fR …"` from the synopsis.
    private static func header(_ scope: CommandSurface.Scope) -> String {
        let name = scope.path.replacingOccurrences(of: "-", with: "\\-")
        let macroName = scope.path.contains(" ") ? "\"\(name)\"" : name
        let rest =
            scope.command.synopsis.hasPrefix(scope.path)
            ? String(scope.command.synopsis.dropFirst(scope.path.count)) : " " + scope.command.synopsis
        return rest.isEmpty ? ".B \(macroName)" : ".BR \(macroName) \"\(synopsis(rest))\""
    }

    private static func optionList(_ options: [OptionSpec]) -> [String] {
        guard !options.isEmpty else { return [] }
        return [optionsMarker, ".RS"] + options.flatMap { [".IP \"\(tag($0))\"", help($0)] } + [".RE"]
    }

    /// `\fB\-\-min\-valid\fR \fIDUR\fR`.
    private static func tag(_ option: OptionSpec) -> String {
        let name = "\\fB\\-\\-" + option.name.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
        return option.takesValue ? name + " " + synopsis(option.placeholder) : name
    }

    /// The option's help as a sentence.
    private static func help(_ option: OptionSpec) -> String {
        var sentence = option.help.prefix(1).uppercased() + option.help.dropFirst()
        if !sentence.hasSuffix(".") { sentence += "." }
        return text(sentence)
    }

    /// Plain text for roff: backslashes and minus signs escaped, an ellipsis spelled out, no leading control dot.
    static func text(_ plain: String) -> String {
        let escaped = escaped(plain)
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// Backslashes, minus signs, ellipses and double quotes as roff writes them.
    private static func escaped(_ plain: String) -> String {
        plain.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            .replacingOccurrences(of: "…", with: "...").replacingOccurrences(of: "\"", with: "\\(dq")
    }

    /// A synopsis in roff: options bold, upper-case placeholders (`FILE`, `KEY`) italic, the rest roman.
    static func synopsis(_ plain: String) -> String {
        var result = ""
        let characters = Array(plain)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let startsWord = index == 0 || !(characters[index - 1].isLetter || characters[index - 1].isNumber)
            if character == "-", index + 2 < characters.count, characters[index + 1] == "-",
                characters[index + 2].isLetter, startsWord
            {
                var end = index + 2
                while end < characters.count,
                    characters[end].isLetter || characters[end].isNumber
                        || characters[end] == "-"
                {
                    end += 1
                }
                result += "\\fB" + escaped(String(characters[index..<end])) + "\\fR"
                index = end
            } else if character.isUppercase, startsWord {
                var end = index
                while end < characters.count,
                    characters[end].isUppercase || characters[end].isNumber
                        || characters[end] == "_"
                {
                    end += 1
                }
                if end < characters.count, characters[end].isLowercase {
                    result += escaped(String(characters[index..<end]))
                } else {
                    result += "\\fI" + String(characters[index..<end]) + "\\fR"
                }
                index = end
            } else {
                result += escaped(String(character))
                index += 1
            }
        }
        return result
    }
}
