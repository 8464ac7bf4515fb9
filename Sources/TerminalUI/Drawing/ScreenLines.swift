/// Lines of text written top to bottom into a rectangle, each wrapped to its width, stopping at the bottom:
/// what the form-like screens (waiting, code entry, result) are made of.
struct ScreenLines {
    private(set) var lines: [(text: String, style: Style)] = []

    mutating func add(_ text: String, _ style: Style = .plain) {
        lines.append((text, style))
    }

    mutating func blank() {
        lines.append(("", .plain))
    }

    /// Draws the lines from the top of `rect`, wrapped at spaces (indent kept); returns the row after the last.
    @discardableResult
    func draw(in rect: Rect, into buffer: inout ScreenBuffer) -> Int {
        var row = rect.row
        for (text, style) in lines {
            let indent = text.prefix { $0 == " " }.count
            let wrapped =
                text.isEmpty
                ? [""]
                : DisplayText.wrapped(String(text.dropFirst(indent)), toWidth: max(1, rect.cols - indent))
            for piece in wrapped {
                guard row < rect.bottom else { return row }
                buffer.write(
                    String(repeating: " ", count: indent) + piece, row: row, col: rect.col, style: style,
                    maxWidth: rect.cols)
                row += 1
            }
        }
        return row
    }
}
