// Text quoted for a shell: `authdeck env`'s export lines, the TUI's copied export line and the completion scripts
// all quote through ShellWord. Each quoted word is read back here by the shell's own grammar, written from the
// manuals and not from ShellWord:
// - POSIX sh (XCU 2.2): inside single quotes every byte is literal up to the next `'`; outside, `\'` is a quote;
//   `"$(printf 'F')"` is what printf makes of F, here only `\ddd` octal escapes (XCU printf), less trailing
//   newlines.
// - fish: inside single quotes `\'` and `\\` are the only escapes and any other backslash stays; outside, `\XHH`
//   is one byte.
// Nothing else may stand outside quotes, so nothing in the word is expanded, split or globbed; what reads back must
// be the input's bytes exactly; and the word holds no character a terminal acts on (`TerminalText` leaves it as
// it is), since `env` prints it through that sanitiser.
//
// Input: the bytes as UTF-8 text (invalid sequences become U+FFFD, as no Swift string can hold them).
import AuthBase

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { shellWordSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    let bytes = Array(text.utf8)

    let posix = ShellWord.posix(text)
    invariant(readPOSIX(Array(posix.utf8)) == bytes, "POSIX reads \(posix.debugDescription) otherwise")
    let fish = ShellWord.fish(text)
    invariant(readFish(Array(fish.utf8)) == bytes, "fish reads \(fish.debugDescription) otherwise")
    for word in [posix, fish] {
        invariant(TerminalText.sanitizedLines(word) == word, "the terminal sanitiser changes \(word.debugDescription)")
    }

    let typed = ShellWord.posixTyped(text)
    if Array(typed.utf8) == bytes && !bytes.isEmpty && bytes.allSatisfy(isInert) {
        return  // bare, and nothing in it is special to any shell
    }
    invariant(readPOSIX(Array(typed.utf8)) == bytes, "POSIX reads the typed \(typed.debugDescription) otherwise")
}

/// A POSIX word made of `'…'` runs, `\'` and `"$(printf '\ddd…')"`, read as sh reads it; nil when anything else
/// appears or a quote is left open.
private func readPOSIX(_ word: [UInt8]) -> [UInt8]? {
    let quote = UInt8(ascii: "'")
    let backslash = UInt8(ascii: "\\")
    let substitution = Array("\"$(printf '".utf8)
    let substitutionEnd = Array("')\"".utf8)
    var result: [UInt8] = []
    var index = 0
    while index < word.count {
        if word[index] == quote {
            // Everything up to the next `'` byte, with no escapes at all.
            guard let close = word[(index + 1)...].firstIndex(of: quote) else { return nil }
            result += word[(index + 1)..<close]
            index = close + 1
        } else if word[index...].starts(with: [backslash, quote]) {
            result.append(quote)
            index += 2
        } else if word[index...].starts(with: substitution) {
            index += substitution.count
            var produced: [UInt8] = []
            while index + 3 < word.count, word[index] == backslash {
                let digits = word[(index + 1)...(index + 3)].map { Int($0) - Int(UInt8(ascii: "0")) }
                guard digits.allSatisfy({ (0...7).contains($0) }) else { return nil }
                let value = digits[0] * 64 + digits[1] * 8 + digits[2]
                guard value <= 255 else { return nil }
                produced.append(UInt8(value))
                index += 4
            }
            guard word[index...].starts(with: substitutionEnd), !produced.isEmpty else { return nil }
            while produced.last == 0x0A { produced.removeLast() }  // what $(…) does
            result += produced
            index += substitutionEnd.count
        } else {
            return nil  // an unquoted byte: the shell could expand, split or glob it
        }
    }
    return word.isEmpty ? nil : result
}

/// A fish word made of `'…'` runs and `\XHH` bytes, read as fish reads it; nil when anything else appears or a
/// quote is left open.
private func readFish(_ word: [UInt8]) -> [UInt8]? {
    let quote = UInt8(ascii: "'")
    let backslash = UInt8(ascii: "\\")
    var result: [UInt8] = []
    var index = 0
    var inQuotes = false
    while index < word.count {
        let byte = word[index]
        if inQuotes {
            if byte == quote {
                inQuotes = false
                index += 1
            } else if byte == backslash, index + 1 < word.count, [quote, backslash].contains(word[index + 1]) {
                result.append(word[index + 1])
                index += 2
            } else {
                result.append(byte)
                index += 1
            }
        } else if byte == quote {
            inQuotes = true
            index += 1
        } else if word[index...].starts(with: [backslash, UInt8(ascii: "X")]), index + 3 < word.count,
            let high = hexDigit(word[index + 2]), let low = hexDigit(word[index + 3])
        {
            result.append(high * 16 + low)
            index += 4
        } else {
            return nil  // an unquoted byte, or an escape fish reads otherwise
        }
    }
    return inQuotes || word.isEmpty ? nil : result
}

private func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    default: return nil
    }
}

/// Letters, digits and `-_.@:/+`: no POSIX shell, zsh or fish gives these a meaning mid-word.
private func isInert(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || Array("-_.@:/+".utf8).contains(byte)
}

private func shellWordSeeds() -> [(name: String, bytes: [UInt8])] {
    let texts: [(String, String)] = [
        ("plain-key", "work-google@corp.example"),
        ("empty", ""),
        ("quote-combining", "a'\u{301}$(touch /tmp/x)'\u{301}b"),
        ("quote-enclosing-vs16", "'\u{20DD}`touch /tmp/x`'\u{FE0F}"),
        ("zwj", "👩\u{200D}💻'\u{200D}$(touch /tmp/x)"),
        ("newlines", "line one\nline two'\u{301}\n"),
        ("backslashes", "\\\\'\\'\\\\\\"),
        ("trailing-backslash", "ends with \\"),
        ("expansions", "$HOME ${IFS} $(id) `id` (id) {a,b} * ? [a] ~ !! %s"),
        ("controls", "cr\rtab\tesc\u{1B}[31mdel\u{7F}\u{85}\u{9B}"),
        ("quotes-only", "'''"),
        ("marks-first", "\u{301}\u{301}'\u{301}"),
    ]
    return texts.map { ($0.0, Array($0.1.utf8)) } + [
        ("invalid-utf8", [0x27, 0xFF, 0xC0, 0xA7, 0xED, 0xA0, 0x80, 0x27])
    ]
}
