/// A frame of line-drawing characters around a rectangle, with an optional title in its top edge.
public struct Box: Widget {
    public var title: String?
    public var style: Style
    public var titleStyle: Style
    /// Whether the inside is blanked too, for a box drawn over other content (a dialog).
    public var fillsInside: Bool

    public init(title: String? = nil, style: Style = .plain, titleStyle: Style? = nil, fillsInside: Bool = false) {
        self.title = title
        self.style = style
        self.titleStyle = titleStyle ?? style.adding(.bold)
        self.fillsInside = fillsInside
    }

    /// The area left for content inside the frame.
    public func contentRect(for rect: Rect) -> Rect {
        rect.inset(by: 1)
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard rect.rows >= 2 && rect.cols >= 2 else { return }
        if fillsInside { buffer.fill(rect.inset(by: 1), style: style) }
        let horizontal = String(repeating: "─", count: rect.cols - 2)
        buffer.write("┌" + horizontal + "┐", row: rect.row, col: rect.col, style: style, maxWidth: rect.cols)
        buffer.write(
            "└" + horizontal + "┘", row: rect.bottom - 1, col: rect.col, style: style,
            maxWidth: rect.cols)
        for row in (rect.row + 1)..<(rect.bottom - 1) {
            buffer.write("│", row: row, col: rect.col, style: style)
            buffer.write("│", row: row, col: rect.right - 1, style: style)
        }
        if let title, !title.isEmpty, rect.cols > 6 {
            let room = rect.cols - 6
            let shown = " " + DisplayText.truncated(DisplayText.sanitized(title), toWidth: room) + " "
            buffer.write(shown, row: rect.row, col: rect.col + 2, style: titleStyle, maxWidth: room + 2)
        }
    }
}
