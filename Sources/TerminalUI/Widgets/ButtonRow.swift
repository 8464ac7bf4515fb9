/// Buttons laid out side by side on one line; it also tells which button a mouse click landed on.
public struct ButtonRow: Widget {
    public var buttons: [Button]
    public var spacing: Int
    public var alignment: Alignment

    public init(_ buttons: [Button], spacing: Int = 2, alignment: Alignment = .left) {
        self.buttons = buttons
        self.spacing = spacing
        self.alignment = alignment
    }

    /// Columns the whole row needs.
    public var width: Int {
        buttons.reduce(0) { $0 + $1.width } + spacing * max(0, buttons.count - 1)
    }

    /// Where each button lands inside `rect` (one row high); buttons that do not fit get an empty rect.
    public func frames(in rect: Rect) -> [Rect] {
        var col: Int
        switch alignment {
        case .left: col = rect.col
        case .right: col = rect.col + max(0, rect.cols - width)
        case .center: col = rect.col + max(0, (rect.cols - width) / 2)
        }
        return buttons.map { button in
            let fits = col + button.width <= rect.right
            let frame = Rect(row: rect.row, col: col, rows: fits ? 1 : 0, cols: fits ? button.width : 0)
            col += button.width + spacing
            return frame
        }
    }

    /// The index of the button under a screen position, for mouse clicks.
    public func buttonIndex(atRow row: Int, col: Int, in rect: Rect) -> Int? {
        frames(in: rect).firstIndex { $0.contains(row: row, col: col) }
    }

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        for (button, frame) in zip(buttons, frames(in: rect)) where !frame.isEmpty {
            button.draw(in: frame, into: &buffer)
        }
    }
}
