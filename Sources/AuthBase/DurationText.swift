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

extension DurationText {
    /// A duration as `inspect` shows one: its two largest units, the smaller left out when nought: `4m 10s`,
    /// `2h 05m`, `2h`, `3d 04h`, `45s`.
    public static func text(_ seconds: Int) -> String {
        let magnitude = seconds.magnitude
        let units: [(UInt, String)] = [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")]
        guard let first = units.firstIndex(where: { magnitude >= $0.0 }) else { return "0s" }
        let (size, name) = units[first]
        var text = "\(magnitude / size)\(name)"
        if first + 1 < units.count {
            let (smaller, smallerName) = units[first + 1]
            let rest = magnitude % size / smaller
            if rest > 0 { text += " " + (rest < 10 ? "0" : "") + "\(rest)\(smallerName)" }
        }
        return text
    }

    /// A moment relative to now: `in 4m 10s`, `2h ago`, `now`.
    public static func relative(_ secondsFromNow: Int) -> String {
        if secondsFromNow == 0 { return "now" }
        return secondsFromNow > 0 ? "in " + text(secondsFromNow) : text(secondsFromNow) + " ago"
    }

    /// How long until an expiry, to the second while under an hour so it visibly counts down: `4m 05s`,
    /// `2h 10m`, `3d 04h`; `expired` once past. The TUI's columns and `authdeck list` both print it.
    public static func remaining(_ seconds: Int) -> String {
        if seconds <= 0 { return "expired" }
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m \(two(seconds % 60))s" }
        if seconds < 86_400 { return "\(seconds / 3600)h \(two(seconds % 3600 / 60))m" }
        return "\(seconds / 86_400)d \(two(seconds % 86_400 / 3600))h"
    }

    /// A signed time left, as the EXPIRES column shows it: `4m 05s` ahead, `-2h 10m` since it expired.
    public static func signed(_ seconds: Int) -> String {
        seconds > 0 ? remaining(seconds) : seconds == 0 ? "0s" : "-" + remaining(-seconds)
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
