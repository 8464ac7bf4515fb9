/// `list --json` with the options authdeck-full accepts for it (its own `--json` and the global options), each
/// valid as authdeck-full would take it; anything else (a positional, `--help`, `--`, an unknown option or a value
/// out of range) makes this binary hand over, and authdeck-full answers or explains.
struct ListRequest {
    /// `--session KEY`: never used by `list`, but when given, no `.authdeck-session` is looked for (nor warned of).
    var session: String?

    init?(_ words: [String]) {
        // authdeck-full shows the help for `--help` or `-h` anywhere before `--`, even where an option's value stands.
        guard !words.contains("--help"), !words.contains("-h") else { return nil }
        var json = false
        var index = 0
        while index < words.count {
            var word = words[index]
            var value: String?
            if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
                value = String(word[word.index(after: equals)...])
                word = String(word[..<equals])
            }
            func takeValue() -> String? {
                if let value { return value }
                index += 1
                return index < words.count ? words[index] : nil
            }
            switch word {
            case "--json", "--quiet":
                guard value == nil else { return nil }
                json = json || word == "--json"
            case "--session":
                guard let given = takeValue() else { return nil }
                session = given
            case "--config":
                guard takeValue() != nil else { return nil }
            case "--unlock-for":
                guard let given = takeValue(), let minutes = Int(given), (0...10_080).contains(minutes) else {
                    return nil
                }
            case "--keyring-timeout":
                guard let given = takeValue(), let seconds = Int(given), (1...300).contains(seconds) else {
                    return nil
                }
            default:
                return nil
            }
            index += 1
        }
        guard json else { return nil }
    }
}
