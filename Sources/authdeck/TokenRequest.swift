import AuthBase

/// The options of `token` this binary understands; anything else makes it hand over.
struct TokenRequest {
    var positional: String?
    var session: String?
    var idToken = false
    var json = false
    var unlockForMinutes = 15
    var minValidSeconds: Int?

    init?(_ words: [String]) {
        // authdeck-full shows the help for `--help` or `-h` anywhere before `--`, even where an option's value stands.
        guard !words.contains("--help"), !words.contains("-h") else { return nil }
        var index = 0
        func value() -> String? {
            index += 1
            return index < words.count ? words[index] : nil
        }
        while index < words.count {
            let word = words[index]
            switch word {
            case "--id-token": idToken = true
            case "--json": json = true
            case "--quiet": break
            case "--session":
                guard let given = value(), !given.isEmpty else { return nil }
                session = given
            case "--unlock-for":
                guard let given = value(), let minutes = Int(given), (0...10_080).contains(minutes) else { return nil }
                unlockForMinutes = minutes
            case "--min-valid":
                guard let given = value(), let seconds = DurationText.seconds(given) else { return nil }
                minValidSeconds = seconds
            case "--keyring-timeout", "--config":
                guard value() != nil else { return nil }
            default:
                guard !word.hasPrefix("-"), positional == nil else { return nil }
                positional = word
            }
            index += 1
        }
    }
}
