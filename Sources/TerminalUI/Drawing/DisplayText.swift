import AuthCore

/// Text as a terminal shows it: how many columns it takes, and what must never reach the terminal.
///
/// Widths come from a built-in table (East Asian Wide and Fullwidth ranges, emoji presentation, combining marks)
/// rather than from `wcwidth`, so they do not depend on the process locale and tests give the same answer
/// everywhere.
public enum DisplayText {
    /// `text` without control characters, escape sequences or bidirectional overrides (see `TerminalText`).
    public static func sanitized(_ text: String) -> String {
        TerminalText.sanitized(text)
    }

    /// Columns a grapheme takes, as the terminal advances for it: 2 for an emoji (a sequence joined with ZWJ, a
    /// flag, a text-style symbol asking for emoji presentation), else the sum over its scalars as `wcwidth` counts
    /// them, which is what ncurses and the terminal do. So a base with its marks takes one column, a lone mark
    /// none, and each spacing letter or vowel sign of a Devanagari cluster (`क्षि`: 3) one more.
    ///
    /// Summing keeps widths additive: a space before a vowel sign, or a prepended letter before a space, joins one
    /// grapheme, and padding or an ellipsis must still add exactly its own width.
    public static func width(of character: Character) -> Int {
        if character.isASCII {
            return character.asciiValue.map { $0 >= 0x20 && $0 < 0x7F ? 1 : 0 } ?? 1
        }
        if isEmoji(character) { return 2 }
        return character.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    /// Whether a grapheme fills more than one cell of its own: several spacing scalars, not an emoji. Asked first,
    /// so that the common grapheme (a letter, a box-drawing line, a CJK character) is drawn without `cells(of:)`.
    static func spansCells(_ character: Character) -> Bool {
        guard !character.isASCII, !isEmoji(character) else { return false }
        var spacing = 0
        for scalar in character.unicodeScalars where width(of: scalar) > 0 {
            spacing += 1
            if spacing > 1 { return true }
        }
        return false
    }

    /// The terminal cells a grapheme fills, left to right: an emoji is one wide cell; otherwise each scalar that
    /// takes columns starts a cell and the zero-width ones after it (marks, joiners) ride along in it, as ncurses
    /// stores a spacing character with its non-spacing ones. Marks before any spacing scalar have no cell.
    static func cells(of character: Character) -> [(text: String, width: Int)] {
        let width = self.width(of: character)
        guard width > 0 else { return [] }
        if character.isASCII || isEmoji(character) { return [(String(character), width)] }
        var cells: [(text: String, width: Int)] = []
        for scalar in character.unicodeScalars {
            let scalarWidth = self.width(of: scalar)
            if scalarWidth > 0 {
                cells.append((String(scalar), scalarWidth))
            } else if !cells.isEmpty {
                cells[cells.count - 1].text.unicodeScalars.append(scalar)
            }
        }
        return cells
    }

    /// Columns a whole string takes, once sanitized.
    public static func width(of text: String) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` cut to at most `width` columns; a cut is marked with `…` so the reader knows there is more.
    public static func truncated(_ text: String, toWidth width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if self.width(of: text) <= width { return text }
        let room = ellipsis ? width - 1 : width
        var result = ""
        var used = 0
        for character in text {
            let characterWidth = self.width(of: character)
            if used + characterWidth > room { break }
            result.append(character)
            used += characterWidth
        }
        return ellipsis ? result + "…" : result
    }

    /// `text` cut in the middle to at most `width` columns (`lab-sand…-google`): long keys differ at both ends.
    public static func truncatedMiddle(_ text: String, toWidth width: Int) -> String {
        guard width > 0 else { return "" }
        if self.width(of: text) <= width { return text }
        guard width >= 5 else { return truncated(text, toWidth: width) }
        let tailRoom = (width - 1) / 2
        var tail: [Character] = []
        var used = 0
        for character in text.reversed() {
            let characterWidth = self.width(of: character)
            if used + characterWidth > tailRoom { break }
            tail.insert(character, at: 0)
            used += characterWidth
        }
        return truncated(text, toWidth: width - used) + String(tail)
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    public static func padded(_ text: String, toWidth width: Int, alignment: Alignment = .left) -> String {
        let cut = truncated(text, toWidth: width)
        let gap = max(0, width - self.width(of: cut))
        switch alignment {
        case .left: return cut + String(repeating: " ", count: gap)
        case .right: return String(repeating: " ", count: gap) + cut
        case .center:
            return String(repeating: " ", count: gap / 2) + cut + String(repeating: " ", count: gap - gap / 2)
        }
    }

    /// `text` broken into lines of at most `width` columns at spaces; a word longer than a line is split.
    public static func wrapped(_ text: String, toWidth width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            var rest = String(word)
            var restWidth = self.width(of: rest)
            if lineWidth > 0 && lineWidth + 1 + restWidth <= width {
                line += " " + rest
                lineWidth += 1 + restWidth
                continue
            }
            if lineWidth > 0 {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            if restWidth > width {
                let split = self.split(rest, toWidth: width)
                lines += split.lines
                (rest, restWidth) = (split.rest, split.restWidth)
            }
            line = rest
            lineWidth = restWidth
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }

    // MARK: - Private

    /// A word wider than a line, cut into full lines and what is left for the next: between graphemes, and inside
    /// one only when it alone is wider than a line (a long Devanagari cluster), cell by cell as the terminal would
    /// wrap it. A cell wider than the line (a wide grapheme in a one-column line) gets a line of its own.
    private static func split(_ word: String, toWidth width: Int) -> (lines: [String], rest: String, restWidth: Int) {
        var pieces: [(text: String, width: Int)] = []
        for character in word {
            let characterWidth = self.width(of: character)
            if characterWidth > width {
                pieces += cells(of: character)
            } else {
                pieces.append((String(character), characterWidth))
            }
        }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for piece in pieces {
            if lineWidth + piece.width > width && lineWidth > 0 {
                lines.append(line)
                (line, lineWidth) = ("", 0)
            }
            line += piece.text
            lineWidth += piece.width
        }
        return (lines, line, lineWidth)
    }

    private static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format:
            return value == 0x00AD ? 1 : 0  // the soft hyphen is shown by most terminals
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants join
        if value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// A grapheme the terminal draws as one emoji, two columns wide, however many scalars make it up.
    private static func isEmoji(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return false }
        let properties = first.properties
        if properties.isEmojiPresentation { return true }
        // A text-style emoji followed by VS16 asks for emoji presentation, which terminals draw wide.
        if properties.isEmoji && scalars.contains(where: { $0.value == 0xFE0F }) { return true }
        // Two regional indicators form a flag.
        return (0x1F1E6...0x1F1FF).contains(first.value) && scalars.count > 1
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, folded into whole blocks).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF,
        0x1B000...0x1B2FF, 0x1F200...0x1F2FF,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}

/// Where text sits in a space wider than itself.
public enum Alignment: Sendable {
    case left, right, center
}
