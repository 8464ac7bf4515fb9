// Text on its way to the terminal: pasted input, provider error strings and ID-token claims go through
// DisplayText.sanitized and ScreenBuffer.write. Nothing may reach a cell that could move the cursor, retitle the
// window or reorder text, and the grid must stay consistent (a wide grapheme always followed by its continuation).
//
// Input: byte 0 picks the column to write at (-3…), byte 1 the width limit; the rest is the text.
import TerminalUI

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { displaySeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let column = Int(bytes[0] % 16) - 3
    let limit = Int(bytes[1] % 24)
    let text = String(decoding: bytes[2...], as: UTF8.self)

    let clean = DisplayText.sanitized(text)
    invariant(clean.unicodeScalars.allSatisfy(isDrawable), "sanitized text keeps \(clean.debugDescription)")
    invariant(DisplayText.sanitized(clean) == clean, "sanitizing twice changes the text")

    let truncated = DisplayText.truncated(clean, toWidth: limit)
    invariant(DisplayText.width(of: truncated) <= limit, "truncated to \(limit) is wider")
    let padded = DisplayText.padded(clean, toWidth: limit, alignment: .right)
    invariant(DisplayText.width(of: padded) == limit, "padded to \(limit) is \(DisplayText.width(of: padded)) wide")
    if limit >= 2 {
        for line in DisplayText.wrapped(clean, toWidth: limit) {
            invariant(
                DisplayText.width(of: line) <= limit,
                "a line wrapped at \(limit) is wider: \(line.debugDescription)")
        }
    }

    var buffer = ScreenBuffer(rows: 3, cols: 12)
    // Overwrite halves of what is there, as redraws over a previous frame do.
    buffer.write("漢字ab漢字", row: 1, col: 0)
    let end = buffer.write(text, row: 1, col: column, maxWidth: limit)
    invariant(end >= column, "write went backwards")
    buffer.write(text, row: 0, col: 11)
    buffer.write(text, row: 2, col: 0)
    checkGrid(buffer)
}

private func isDrawable(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return value >= 0x20 && !(0x7F..<0xA0).contains(value) && !(0x202A...0x202E).contains(value)
        && !(0x2066...0x2069).contains(value) && value != 0x200E && value != 0x200F && value != 0xFEFF
}

/// Every cell is drawable text of the width it claims; a wide cell is followed by its continuation and a
/// continuation always follows a wide cell.
private func checkGrid(_ buffer: ScreenBuffer) {
    for row in 0..<buffer.rows {
        for col in 0..<buffer.cols {
            let cell = buffer[row, col]
            invariant(cell.text.unicodeScalars.allSatisfy(isDrawable), "cell \(row),\(col) holds a control")
            switch cell.width {
            case 0:
                invariant(col > 0 && buffer[row, col - 1].width == 2, "orphan continuation at \(row),\(col)")
            case 1:
                invariant(!cell.text.isEmpty, "empty narrow cell at \(row),\(col)")
            case 2:
                invariant(
                    col + 1 < buffer.cols && buffer[row, col + 1].isContinuation,
                    "wide cell at \(row),\(col) without its continuation")
            default:
                invariant(false, "cell \(row),\(col) is \(cell.width) wide")
            }
        }
        for line in buffer.textLines() {
            invariant(line.unicodeScalars.allSatisfy(isDrawable), "a screen line holds a control")
        }
    }
}

private func displaySeeds() -> [(name: String, bytes: [UInt8])] {
    let texts: [(String, UInt8, UInt8, String)] = [
        ("ascii", 3, 20, "ada@example.com"),
        ("wide", 4, 7, "漢字テスト 한국어"),
        ("emoji", 3, 10, "🔑 key 👩‍💻 🇩🇪 ❤️"),
        ("combining", 3, 5, "e\u{301}a\u{308}\u{301}\u{301}"),
        ("csi", 3, 20, "red\u{1B}[31mtext\u{1B}[0m\u{1B}[2J"),
        ("osc-title", 3, 20, "\u{1B}]0;owned\u{07}visible\u{1B}]8;;http://x\u{1B}\\link"),
        ("c1", 3, 20, "a\u{9B}31mb\u{90}dcs\u{9C}c\u{85}"),
        ("bidi", 3, 20, "abc\u{202E}fed\u{2066}x\u{2069}"),
        ("tabs-newlines", 3, 20, "a\tb\nc\r\nd"),
        ("left-of-screen", 0, 23, "漢a漢b"),
        // A spacing mark with no letter before it joins the space padding puts there (the input was U+113CF).
        ("spacing-mark", 3, 10, "\u{113CF}"),
        ("devanagari", 1, 6, "क्षि नमस्ते ा"),
        // A text-style emoji joined to a wide one is three columns: wider than a two-column line.
        ("zwj-text-style", 3, 2, "e 🛩\u{200D}💻 x"),
    ]
    return texts.map { name, column, limit, text in (name, [column, limit] + Array(text.utf8)) }
}
