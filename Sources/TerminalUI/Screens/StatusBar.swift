/// The bottom line: the store's state on the left, key hints after it, and something short on the right
/// (a clock, a count). Hints that do not fit are left out whole rather than cut in half.
public struct StatusBar: Widget {
    /// One key hint: `q` and what it does; a line of help (`HelpOverlay.Entry`) is one too.
    public struct Hint: Hashable, Sendable {
        public var key: String
        public var action: String

        public init(_ key: String, _ action: String) {
            self.key = key
            self.action = action
        }
    }

    public var left: String
    public var right: String
    public var hints: [Hint]
    /// Hints that stay whatever the width (`? help`, `q quit`): room for them is kept first, after the others.
    public var pinned: [Hint]
    /// Red for a locked store or a failure, so trouble shows in the one line that is always on screen.
    public var leftColor: Color

    public init(
        left: String = "", right: String = "", hints: [Hint] = [], pinned: [Hint] = [],
        leftColor: Color = .normal
    ) {
        self.left = left
        self.right = right
        self.hints = hints
        self.pinned = pinned
        self.leftColor = leftColor
    }

    private static func width(_ hint: Hint) -> Int {
        DisplayText.width(of: DisplayText.sanitized(hint.key)) + 1
            + DisplayText.width(of: DisplayText.sanitized(hint.action))
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard !rect.isEmpty else { return }
        let bar = Style(attributes: .reverse)
        let row = rect.row
        buffer.fill(Rect(row: row, col: rect.col, rows: 1, cols: rect.cols), style: bar)
        let rightText = DisplayText.truncated(DisplayText.sanitized(right), toWidth: max(0, rect.cols - 2))
        let rightWidth = DisplayText.width(of: rightText)
        let rightStart = rect.right - 1 - rightWidth
        if rightWidth > 0 {
            buffer.write(rightText, row: row, col: rightStart, style: bar)
        }
        let leftLimit = rightWidth > 0 ? rightStart - 2 : rect.right - 1
        let pinnedWidth = pinned.reduce(0) { $0 + Self.width($1) + 2 }
        let limit = leftLimit - pinnedWidth
        var col = buffer.write(
            left, row: row, col: rect.col + 1, style: bar.with(foreground: leftColor),
            maxWidth: max(0, limit - rect.col - 1))
        if !left.isEmpty { col += 2 }
        for hint in hints {
            guard col + Self.width(hint) <= limit else { break }
            col = draw(hint, row: row, col: col, style: bar, into: &buffer)
        }
        for hint in pinned where col + Self.width(hint) <= leftLimit {
            col = draw(hint, row: row, col: col, style: bar, into: &buffer)
        }
    }

    private func draw(_ hint: Hint, row: Int, col: Int, style: Style, into buffer: inout ScreenBuffer) -> Int {
        let end = buffer.write(DisplayText.sanitized(hint.key), row: row, col: col, style: style.adding(.bold))
        return buffer.write(" " + DisplayText.sanitized(hint.action), row: row, col: end, style: style) + 2
    }
}
