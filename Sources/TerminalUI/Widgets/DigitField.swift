/// A one-time code entry with one box per character: `[1] [2] [3] [ ] [ ] [ ]`.
///
/// Its length and alphabet come from the backend's config (6 to 9 characters, digits or letters and digits), so
/// a code of the wrong shape can never be sent. Pasting `123 456` or `123-456` keeps only the code's characters.
public struct DigitField: Widget, Hashable, Sendable {
    /// Which characters a code may contain.
    public enum Alphabet: Hashable, Sendable {
        case digits
        /// ASCII letters and digits; letters are kept upper-case, as codes are shown in mails and texts.
        case alphanumeric
    }

    public let length: Int
    public let alphabet: Alphabet
    public private(set) var characters: [Character]
    public var isMasked: Bool
    public var isFocused: Bool
    public var style: Style

    public init(
        length: Int, alphabet: Alphabet = .digits, code: String = "", isMasked: Bool = false,
        isFocused: Bool = false, style: Style = .plain
    ) {
        self.length = max(1, length)
        self.alphabet = alphabet
        self.characters = []
        self.isMasked = isMasked
        self.isFocused = isFocused
        self.style = style
        characters = inserting(code).characters
    }

    /// The code typed so far.
    public var code: String { String(characters) }
    public var isComplete: Bool { characters.count == length }

    /// Columns the boxes take: four per box less the last gap.
    public var width: Int { length * 4 - 1 }

    // MARK: - Editing

    /// Appends the characters of `input` that belong to the alphabet, until the boxes are full.
    public func inserting(_ input: String) -> DigitField {
        var copy = self
        // Sanitize first: the digits inside a pasted escape sequence (`ESC [ 3 1 m`) are not part of the code.
        for character in DisplayText.sanitized(input) where copy.characters.count < length {
            if let accepted = accept(character) { copy.characters.append(accepted) }
        }
        return copy
    }

    /// Clears the last filled box.
    public func deletingBackward() -> DigitField {
        var copy = self
        if !copy.characters.isEmpty { copy.characters.removeLast() }
        return copy
    }

    /// The field after a key request, or nil when the request belongs to the screen.
    public func applying(_ request: KeyRequest) -> DigitField? {
        switch request {
        case .character(let character): return inserting(String(character))
        case .paste(let pasted): return inserting(pasted)
        case .backspace: return deletingBackward()
        default: return nil
        }
    }

    private func accept(_ character: Character) -> Character? {
        guard character.isASCII, let value = character.asciiValue else { return nil }
        switch alphabet {
        case .digits:
            return (0x30...0x39).contains(value) ? character : nil
        case .alphanumeric:
            let isDigit = (0x30...0x39).contains(value)
            let isLetter = (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
            return isDigit || isLetter ? Character(character.uppercased()) : nil
        }
    }

    // MARK: - Drawing

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard !rect.isEmpty else { return }
        for box in 0..<length {
            let col = rect.col + box * 4
            guard col + 3 <= rect.right else { break }
            let shown: String
            if box < characters.count {
                shown = isMasked ? "•" : String(characters[box])
            } else {
                shown = " "
            }
            let isCursor = isFocused && box == characters.count
            buffer.write("[", row: rect.row, col: col, style: style)
            buffer.write(
                shown, row: rect.row, col: col + 1,
                style: isCursor ? style.adding(.reverse) : style.adding(.bold))
            buffer.write("]", row: rect.row, col: col + 2, style: style)
        }
    }
}
