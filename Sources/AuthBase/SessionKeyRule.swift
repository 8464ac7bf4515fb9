/// The one rule for session keys, applied wherever a key enters authdeck: `login --session-key`, the TUI's key
/// field, `store import`, `use`, `use --here`, `--session`, `$AUTHDECK_SESSION` and `.authdeck-session` files.
/// A key is a word a shell and a one-line message can carry: no whitespace, no control or format characters
/// (which could hide or reorder what a terminal shows), not an option, and of bounded length.
public enum SessionKeyRule {
    /// The longest key, in Unicode scalars.
    public static let maximumLength = 128

    /// Why `key` is not acceptable, in one line that names it safely; nil when it is.
    public static func problem(_ key: String) -> String? {
        guard !key.isEmpty else { return "a session key must not be empty" }
        // Escaped only for a message: `store import` checks 100,000 keys, nearly all of them fine.
        var shown: String { escaped(key) }
        if key.unicodeScalars.count > maximumLength {
            return "the session key '\(shown.prefix(40))…' is longer than \(maximumLength) characters"
        }
        if key.hasPrefix("-") { return "the session key '\(shown)' must not start with '-'" }
        for scalar in key.unicodeScalars {
            // Printable ASCII other than the space is always fine: no property lookup for the common key.
            if scalar.value > 0x20 && scalar.value < 0x7F { continue }
            if scalar.properties.isWhitespace {
                return "the session key '\(shown)' contains whitespace"
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
                return "the session key '\(shown)' contains a control, format or unassigned character"
            default:
                continue
            }
        }
        return nil
    }

    /// Whether `key` follows the rule.
    public static func isValid(_ key: String) -> Bool { problem(key) == nil }

    /// `key` with every character that is not plainly visible written as an escape (`\u{200B}`), so a message
    /// naming a refused key cannot itself carry what was refused.
    public static func escaped(_ key: String) -> String {
        // Printable ASCII (the space included) is shown as it is: no property lookup for the agent's log lines.
        if key.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return key }
        var result = ""
        for scalar in key.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
                .spaceSeparator:
                result += scalar == " " ? " " : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
