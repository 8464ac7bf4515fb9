/// A one-line text entry: a session key, a contact, a pasted redirect URL, a passphrase (masked).
///
/// Editing is a set of pure functions returning the edited field, so a screen's state machine can apply them
/// and tests can check them without a terminal. Every field takes the same keys through `applying`: readline's
/// Ctrl-A/Ctrl-E (start and end, as Home/End), Ctrl-U (clear to the start) and Ctrl-W (the word before the cursor).
public struct TextField: Widget, Hashable, Sendable {
    public private(set) var text: String
    /// Where the next character goes, in graphemes from the start.
    public private(set) var cursor: Int
    /// Whether each character is drawn as `•` (passphrases).
    public var isMasked: Bool
    public var isFocused: Bool
    /// Shown dimmed while the field is empty.
    public var placeholder: String
    /// The most graphemes the field takes; nil for no limit.
    public var maxLength: Int?
    public var style: Style

    public init(
        text: String = "", isMasked: Bool = false, isFocused: Bool = false, placeholder: String = "",
        maxLength: Int? = nil, style: Style = Style(attributes: .underline)
    ) {
        let clean = DisplayText.sanitized(text)
        self.text = maxLength.map { String(clean.prefix($0)) } ?? clean
        self.cursor = self.text.count
        self.isMasked = isMasked
        self.isFocused = isFocused
        self.placeholder = placeholder
        self.maxLength = maxLength
        self.style = style
    }

    // MARK: - Editing

    /// Inserts typed or pasted text at the cursor, without control characters, up to `maxLength`.
    public func inserting(_ input: String) -> TextField {
        var clean = DisplayText.sanitized(input)
        if let maxLength { clean = String(clean.prefix(max(0, maxLength - text.count))) }
        guard !clean.isEmpty else { return self }
        var copy = self
        let index = text.index(text.startIndex, offsetBy: cursor)
        copy.text.insert(contentsOf: clean, at: index)
        copy.cursor = cursor + (copy.text.count - text.count)
        return copy
    }

    /// Removes the grapheme before the cursor.
    public func deletingBackward() -> TextField {
        guard cursor > 0 else { return self }
        var copy = self
        copy.text.remove(at: text.index(text.startIndex, offsetBy: cursor - 1))
        copy.cursor = cursor - 1
        return copy
    }

    /// Removes the grapheme under the cursor.
    public func deletingForward() -> TextField {
        guard cursor < text.count else { return self }
        var copy = self
        copy.text.remove(at: text.index(text.startIndex, offsetBy: cursor))
        return copy
    }

    /// Moves the cursor by `offset` graphemes, staying within the text.
    public func movingCursor(by offset: Int) -> TextField {
        var copy = self
        copy.cursor = min(max(0, cursor + offset), text.count)
        return copy
    }

    public func movingCursorToStart() -> TextField { movingCursor(by: -cursor) }
    public func movingCursorToEnd() -> TextField { movingCursor(by: text.count - cursor) }

    /// Removes everything before the cursor (Ctrl-U, as readline and shells do).
    public func deletingToStart() -> TextField {
        var copy = self
        copy.text.removeSubrange(text.startIndex..<text.index(text.startIndex, offsetBy: cursor))
        copy.cursor = 0
        return copy
    }

    /// Removes the word before the cursor and the whitespace between it and the cursor (Ctrl-W, readline's
    /// unix-word-rubout: words end at whitespace only).
    public func deletingWordBackward() -> TextField {
        let before = Array(text.prefix(cursor))
        var start = cursor
        while start > 0 && before[start - 1].isWhitespace { start -= 1 }
        while start > 0 && !before[start - 1].isWhitespace { start -= 1 }
        var copy = self
        let from = text.index(text.startIndex, offsetBy: start)
        copy.text.removeSubrange(from..<text.index(text.startIndex, offsetBy: cursor))
        copy.cursor = start
        return copy
    }

    /// The field after a key request, or nil when the request is not an edit (Enter, Esc, Tab…) and belongs
    /// to the screen.
    public func applying(_ request: KeyRequest) -> TextField? {
        switch request {
        case .character(let character): return inserting(String(character))
        case .paste(let pasted): return inserting(pasted)
        case .backspace: return deletingBackward()
        case .delete: return deletingForward()
        case .left: return movingCursor(by: -1)
        case .right: return movingCursor(by: 1)
        case .home: return movingCursorToStart()
        case .end: return movingCursorToEnd()
        case .clearToStart: return deletingToStart()
        case .deleteWordBackward: return deletingWordBackward()
        default: return nil
        }
    }

    // MARK: - Drawing

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard !rect.isEmpty else { return }
        let line = Rect(row: rect.row, col: rect.col, rows: 1, cols: rect.cols)
        buffer.fill(line, style: style)
        if text.isEmpty && !isFocused {
            buffer.write(
                placeholder, row: rect.row, col: rect.col, style: style.with(foreground: .dim),
                maxWidth: rect.cols)
            return
        }
        let shown: [Character] = isMasked ? Array(repeating: "•", count: text.count) : Array(text)
        // Scroll sideways so the cursor (one column past the text at the end) stays inside the field.
        var start = 0
        var widthBeforeCursor = shown[0..<cursor].reduce(0) { $0 + DisplayText.width(of: $1) }
        while start < cursor && widthBeforeCursor > rect.cols - 1 {
            widthBeforeCursor -= DisplayText.width(of: shown[start])
            start += 1
        }
        var col = rect.col
        for index in start..<shown.count {
            let end = buffer.write(
                String(shown[index]), row: rect.row, col: col, style: style,
                maxWidth: rect.right - col)
            if isFocused && index == cursor {
                buffer.restyle(Rect(row: rect.row, col: col, rows: 1, cols: end - col)) {
                    $0.attributes.insert(.reverse)
                }
            }
            col = end
            if col >= rect.right { break }
        }
        if isFocused && cursor == shown.count && col < rect.right {
            buffer.restyle(Rect(row: rect.row, col: col, rows: 1, cols: 1)) { $0.attributes.insert(.reverse) }
        }
    }
}
