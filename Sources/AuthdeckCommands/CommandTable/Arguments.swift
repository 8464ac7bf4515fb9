/// A command line split into positionals, valued options and flags, checked against the command's options.
struct Arguments {
    private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    /// Every value of each valued option, in order (a repeated option's `values`; `value` is the last).
    private var repeated: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `--name value`, `--name=value` and flags; `--` ends options. Unknown options are usage errors.
    init(_ words: [String], options: [OptionSpec]) throws(CommandFailure) {
        let known = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            guard !optionsEnded, word.hasPrefix("--"), word.count > 2 else {
                if word == "--" && !optionsEnded {
                    optionsEnded = true
                    continue
                }
                positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = known[name] else { throw .usage("unknown option --\(name)") }
            if spec.takesValue {
                if let inlineValue {
                    values[name] = inlineValue
                } else if index < words.count {
                    values[name] = words[index]
                    index += 1
                } else {
                    throw .usage("--\(name) needs a value")
                }
                repeated[name, default: []].append(values[name] ?? "")
            } else {
                if inlineValue != nil { throw .usage("--\(name) takes no value") }
                flags.insert(name)
            }
        }
    }

    /// The first word that is neither an option nor an option's value, before `--`: where a subcommand's name
    /// stands. Never fails: the real parse, with the subcommand's own options, reports what is wrong.
    static func firstPositional(_ words: [String], options: [OptionSpec]) -> String? {
        let valued = Set(options.filter(\.takesValue).map(\.name))
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" { return nil }
            guard word.hasPrefix("--"), word.count > 2 else { return word }
            if !word.contains("="), valued.contains(String(word.dropFirst(2))) { index += 1 }
        }
        return nil
    }

    func value(_ name: String) -> String? { values[name] }
    /// Each value a repeatable option was given, in order.
    func values(_ name: String) -> [String] { repeated[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(CommandFailure) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// At most `count` positionals, else a usage error naming the extra one.
    func positionals(atMost count: Int) throws(CommandFailure) -> [String] {
        if positionals.count > count { throw .usage("unexpected argument '\(positionals[count])'") }
        return positionals
    }
}
