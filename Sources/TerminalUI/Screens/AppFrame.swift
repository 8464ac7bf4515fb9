import Foundation

/// What every screen shares: the title line on top, the message line and the status bar at the bottom, and the
/// body between them.
public enum AppFrame {
    /// The rows between the title line and the message line.
    public static func body(rows: Int, cols: Int) -> Rect {
        Rect(row: 1, col: 0, rows: rows - 3, cols: cols)
    }

    /// Draws the frame around a screen's body.
    public static func draw(
        title: String, right: String = "", hints: [StatusBar.Hint],
        pinned: [StatusBar.Hint] = [], state: AppState, into buffer: inout ScreenBuffer
    ) {
        let cols = buffer.cols
        let rightWidth = DisplayText.width(of: right)
        buffer.write(" authdeck", row: 0, col: 0, style: Style(foreground: .accent, attributes: .bold))
        buffer.write(
            " · " + title, row: 0, col: 9, style: Style(attributes: .bold),
            maxWidth: max(0, cols - 9 - rightWidth - 2))
        if rightWidth > 0 {
            buffer.write(right, row: 0, col: cols - rightWidth - 1, style: Style(foreground: .dim))
        }
        if let message = state.message {
            // A message longer than the line ends in a pointer to the whole of it rather than being cut silently.
            var text = DisplayText.sanitized(message.text)
            // `m` opens it from the Sessions and Details screens, not from a screen drawn over them.
            var opensInFull = state.mode == .sessions && state.overlay == .none
            if case .details = state.mode { opensInFull = true }
            if opensInFull, DisplayText.width(of: text) > cols - 2 {
                text = DisplayText.truncated(text, toWidth: max(0, cols - 2 - 12)) + " (m: all)"
            }
            buffer.write(
                " " + text, row: buffer.rows - 2, col: 0,
                style: Style(foreground: message.isError ? .error : .normal))
        }
        let (storeText, storeColor) = storeLabel(state)
        StatusBar(
            left: storeText, right: TimeText.clock(state.now, offset: state.utcOffsetSeconds), hints: hints,
            pinned: pinned, leftColor: storeColor
        )
        .draw(in: Rect(row: buffer.rows - 1, col: 0, rows: 1, cols: cols), into: &buffer)
    }

    /// The store's state for the status bar: when the unlock runs out and what keeps the master key.
    public static func storeLabel(_ state: AppState) -> (String, Color) {
        // `trace show` and `sandbox panel` need no store, so they never open it.
        if state.singleScreen { return ("store not opened", .dim) }
        switch state.store {
        case .unlocked(let until, let source):
            var text = "unlocked"
            if let until { text += " until " + TimeText.clock(until, offset: state.utcOffsetSeconds) }
            if let source { text += " · " + source }
            return (text, .normal)
        case .locked:
            return ("locked", .error)
        case .empty, .needsPassphrase:
            return ("no store yet", .normal)
        }
    }
}
