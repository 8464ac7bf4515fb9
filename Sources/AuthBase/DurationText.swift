/// Durations as operators type them on the command line: `90` or `90s`, `5m`, `2h`, `1d`, and sums such as
/// `1h30m`. Used by `--min-valid`, in both binaries.
public enum DurationText {
    /// The longest duration accepted: a week, more than any access token lives.
    public static let maximumSeconds = 7 * 86_400

    /// Whole seconds, or nil for anything else (empty, negative, an unknown unit, a unit given twice, too long).
    public static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 32 else { return nil }
        if let plain = Int(text) { return (0...maximumSeconds).contains(plain) ? plain : nil }
        var total = 0
        var digits = 0
        var hasDigits = false
        var usedUnits: Set<Character> = []
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                digits = digits * 10 + digit
                hasDigits = true
                guard digits <= maximumSeconds else { return nil }
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86_400
            default: return nil
            }
            guard hasDigits, !usedUnits.contains(character) else { return nil }
            usedUnits.insert(character)
            total += digits * unit
            guard total <= maximumSeconds else { return nil }
            digits = 0
            hasDigits = false
        }
        return hasDigits ? nil : total
    }
}
