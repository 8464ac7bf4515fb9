/// A box centred over the screen with a title, a message and buttons: "Sign out of work-google?" [y] Yes [n] No.
public struct Dialog: Widget {
    public var title: String
    /// Paragraphs of the message; each is wrapped to the dialog's width.
    public var message: [String]
    public var buttons: [Button]
    /// Errors get a red frame and title so they are told apart from questions at a glance.
    public var isError: Bool

    public init(title: String, message: [String], buttons: [Button] = [], isError: Bool = false) {
        self.title = title
        self.message = message
        self.buttons = buttons
        self.isError = isError
    }

    private var frameStyle: Style { isError ? Style(foreground: .error) : .plain }
    private var buttonRow: ButtonRow { ButtonRow(buttons, spacing: 2, alignment: .center) }

    /// Width of the text inside the frame, the message wrapped to it, and where the dialog sits in `rect`.
    private func layout(in rect: Rect) -> (lines: [String], frame: Rect) {
        let widest = message.map { DisplayText.width(of: DisplayText.sanitized($0)) }.max() ?? 0
        let natural = max(widest, buttonRow.width, DisplayText.width(of: title) + 4)
        let inner = max(1, min(natural, rect.cols - 8))
        let lines = message.flatMap { DisplayText.wrapped(DisplayText.sanitized($0), toWidth: inner) }
        // Frame, a blank line above and below the message, and the buttons' line when there are buttons.
        let height = lines.count + 4 + (buttons.isEmpty ? 0 : 2)
        return (lines, rect.centered(rows: height, cols: inner + 4))
    }

    /// Where the dialog is drawn inside `rect`, for mouse hit tests.
    public func frame(in rect: Rect) -> Rect {
        layout(in: rect).frame
    }

    /// The index of the button under a screen position, for mouse clicks.
    public func buttonIndex(atRow row: Int, col: Int, in rect: Rect) -> Int? {
        let frame = layout(in: rect).frame
        return buttonRow.buttonIndex(atRow: row, col: col, in: buttonLine(in: frame))
    }

    private func buttonLine(in frame: Rect) -> Rect {
        Rect(row: frame.bottom - 3, col: frame.col + 2, rows: 1, cols: frame.cols - 4)
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        let (lines, frame) = layout(in: rect)
        guard frame.rows >= 3 && frame.cols >= 5 else { return }
        let box = Box(title: title, style: frameStyle, fillsInside: true)
        box.draw(in: frame, into: &buffer)
        let content = frame.inset(by: 1)
        let messageStyle = isError ? Style(foreground: .error) : Style.plain
        for (index, line) in lines.enumerated() where content.row + 1 + index < content.bottom {
            buffer.write(
                line, row: content.row + 1 + index, col: content.col + 1, style: messageStyle,
                maxWidth: content.cols - 2)
        }
        if !buttons.isEmpty {
            buttonRow.draw(in: buttonLine(in: frame), into: &buffer)
        }
    }
}
