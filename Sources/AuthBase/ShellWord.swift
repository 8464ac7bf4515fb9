/// Text written as one word that a shell reads back exactly: `authdeck env`'s export lines, the TUI's copied
/// `export AUTHDECK_SESSION=…` and the completion scripts all quote here, one function per dialect.
///
/// Quoting works on Unicode scalars, never on `Character`s: a `'` followed by a combining mark (U+0301) is one
/// grapheme cluster, so a comparison of Characters misses it, while every shell reads its byte 0x27 as a quote.
///
/// A quoted word is also safe to show: control and format characters (escape sequences, bidi overrides, carriage
/// returns; every one `TerminalText` would drop, newlines aside) are not written raw but spelled in printable ASCII
/// that the shell turns back into their bytes, so a terminal shows the word as it is and `Output`'s sanitiser
/// leaves it whole. Raw, the sanitiser dropped them, and with an escape sequence the closing quote too.
public enum ShellWord {
    /// For sh, bash, zsh, dash and ksh: single quotes, where nothing is special but `'` itself, written `\'`
    /// between quoted runs (`it's` is `'it'\''s'`). A run of spelled characters is `"$(printf '\033…')"`, the
    /// octal escapes of their UTF-8 bytes (POSIX printf), never a newline, so nothing is lost to `$(…)`.
    public static func posix(_ text: String) -> String {
        var word = Word(prefix: "\"$(printf '", suffix: "')\"") { "\\" + octal($0) }
        for scalar in text.unicodeScalars {
            if isSpelled(scalar) {
                word.spelled(scalar)
            } else if scalar == "'" {
                word.unquoted("\\'")
            } else {
                word.quoted(scalar)
            }
        }
        return word.finished
    }

    /// For fish: single quotes, where `\'` and `\\` are the only escapes (any other backslash is literal, but
    /// escaping every one keeps a trailing `\` from escaping the closing quote). A spelled character is `\XHH` per
    /// UTF-8 byte between quoted runs (fish's escape for one byte of data).
    public static func fish(_ text: String) -> String {
        var word = Word(prefix: "", suffix: "") { "\\X" + hex($0) }
        for scalar in text.unicodeScalars {
            if isSpelled(scalar) {
                word.spelled(scalar)
            } else {
                if scalar == "'" || scalar == "\\" { word.quoted("\\") }
                word.quoted(scalar)
            }
        }
        return word.finished
    }

    /// A word as someone would type it at a POSIX prompt: bare when every byte is a letter, digit or one of
    /// `-_.@:/+` (none of which any shell expands), else `posix(text)`.
    public static func posixTyped(_ text: String) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy(isPlain) else { return posix(text) }
        return text
    }

    /// A command line split into words as a POSIX shell splits it, without running one (nothing is expanded):
    /// blanks separate words; in single quotes everything is literal; in double quotes a backslash escapes only
    /// `"`, `\`, `$` and `` ` ``; elsewhere a backslash keeps the next character. Nil for an unterminated quote
    /// or a trailing backslash. config.json's and `login --browser`'s browser command is read here.
    public static func split(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Unicode.Scalar?
        var escaped = false
        for scalar in line.unicodeScalars {
            if escaped {
                if quote == "\"", !["\"", "\\", "$", "`"].contains(scalar) { word += "\\" }
                word.unicodeScalars.append(scalar)
                escaped = false
            } else if quote == "'" {
                if scalar == "'" { quote = nil } else { word.unicodeScalars.append(scalar) }
            } else if scalar == "\\" {
                escaped = true
                inWord = true
            } else if quote == "\"" {
                if scalar == "\"" { quote = nil } else { word.unicodeScalars.append(scalar) }
            } else if scalar == "'" || scalar == "\"" {
                quote = scalar
                inWord = true
            } else if scalar == " " || scalar == "\t" || scalar == "\n" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.unicodeScalars.append(scalar)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { return nil }
        if inWord { words.append(word) }
        return words
    }

    /// Whether `scalar` is written in escapes rather than raw: C0 and C1 controls and DEL (a newline aside, which
    /// single quotes carry and a terminal shows as a line break), format characters (bidi controls, the BOM,
    /// joiners) and the line and paragraph separators.
    static func isSpelled(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return false }
        if scalar == "\n" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// A word being written: runs in single quotes, text between them, and spelled characters, whose bytes
    /// are written together in `spelling`'s form (`prefix`, each byte, `suffix`) when something else follows.
    private struct Word {
        let prefix: String
        let suffix: String
        let spelling: (UInt8) -> String
        private var text = ""
        private var isOpen = false
        private var pending: [UInt8] = []

        init(prefix: String, suffix: String, spelling: @escaping (UInt8) -> String) {
            self.prefix = prefix
            self.suffix = suffix
            self.spelling = spelling
        }

        mutating func quoted(_ scalar: Unicode.Scalar) {
            writePending()
            if !isOpen { text += "'" }
            isOpen = true
            text.unicodeScalars.append(scalar)
        }

        mutating func unquoted(_ piece: String) {
            writePending()
            closeQuote()
            text += piece
        }

        mutating func spelled(_ scalar: Unicode.Scalar) {
            closeQuote()
            pending += Array(String(scalar).utf8)
        }

        var finished: String {
            var word = self
            word.writePending()
            word.closeQuote()
            return word.text.isEmpty ? "''" : word.text
        }

        private mutating func closeQuote() {
            if isOpen { text += "'" }
            isOpen = false
        }

        private mutating func writePending() {
            guard !pending.isEmpty else { return }
            text += prefix + pending.map(spelling).joined() + suffix
            pending = []
        }
    }

    private static func octal(_ byte: UInt8) -> String {
        String(byte >> 6) + String((byte >> 3) & 7) + String(byte & 7)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "@"), UInt8(ascii: ":"),
            UInt8(ascii: "/"), UInt8(ascii: "+"):
            return true
        default:
            return false
        }
    }
}
