/// What replaces every screen when the terminal is below 60×16: laying out forms in less room would hide
/// buttons or cut codes, so the user is told to make the window bigger instead.
public enum TooSmallScreen {
    public static let minimumCols = 60
    public static let minimumRows = 16

    public static func fits(rows: Int, cols: Int) -> Bool {
        rows >= minimumRows && cols >= minimumCols
    }

    /// Clears the buffer and centres the message in it.
    public static func render(into buffer: inout ScreenBuffer) {
        buffer.clear()
        let message = "Terminal too small: need \(minimumCols)×\(minimumRows), have \(buffer.cols)×\(buffer.rows)"
        let lines = DisplayText.wrapped(message, toWidth: buffer.cols)
        let top = max(0, (buffer.rows - lines.count) / 2)
        for (index, line) in lines.enumerated() {
            let col = max(0, (buffer.cols - DisplayText.width(of: line)) / 2)
            buffer.write(line, row: top + index, col: col, style: Style(attributes: .bold))
        }
    }

    /// A frame of the given size: what `render` draws when it fits, else the too-small message.
    public static func frame(rows: Int, cols: Int, render: (inout ScreenBuffer) -> Void) -> ScreenBuffer {
        var buffer = ScreenBuffer(rows: rows, cols: cols)
        if fits(rows: rows, cols: cols) {
            render(&buffer)
        } else {
            self.render(into: &buffer)
        }
        return buffer
    }
}
