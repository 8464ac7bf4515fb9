/// The bottom line: the store's state on the left, key hints after it, and something short on the right
/// (a clock, a count). Hints that do not fit are left out whole rather than cut in half.
public struct StatusBar: Widget {
    /// One key hint: `q` and what it does.
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
    /// Red for a locked store or a failure, so trouble shows in the one line that is always on screen.
    public var leftColor: Color

    public init(left: String = "", right: String = "", hints: [Hint] = [], leftColor: Color = .normal) {
        self.left = left
        self.right = right
        self.hints = hints
        self.leftColor = leftColor
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
        var col = buffer.write(left, row: row, col: rect.col + 1, style: bar.with(foreground: leftColor),
                               maxWidth: max(0, leftLimit - rect.col - 1))
        if !left.isEmpty { col += 2 }
        for hint in hints {
            let key = DisplayText.sanitized(hint.key)
            let action = DisplayText.sanitized(hint.action)
            let needed = DisplayText.width(of: key) + 1 + DisplayText.width(of: action)
            guard col + needed <= leftLimit else { break }
            col = buffer.write(key, row: row, col: col, style: bar.adding(.bold))
            col = buffer.write(" " + action, row: row, col: col, style: bar) + 2
        }
    }
}
