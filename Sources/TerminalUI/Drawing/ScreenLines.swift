import AuthCore

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

    /// Where a typed code stands (the code-entry and TOTP screens), then the flow's notice; `waiting` says what to
    /// type.
    mutating func addCodeProgress(_ progress: SignInStateMachine.Progress, waiting: String, notice: String?) {
        switch progress {
        case .waiting: add(waiting, Style(foreground: .dim))
        case .verifying: add("  Checking the code…", Style(attributes: .bold))
        case .confirming: add("  Keep this session? y keeps it, n discards it.", Style(attributes: .bold))
        case .persisting: add("  Saving the session to the store…", Style(attributes: .bold))
        case .storageFailed:
            add("  The session could not be saved. Enter retries the save; Esc gives up.", Style(foreground: .error))
        case .cancelling:
            add(
                "  Cancelling: waiting for the request that is out, so nothing it issues is kept…",
                Style(attributes: .bold))
        }
        if let notice { add("  " + notice, Style(foreground: .error)) }
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
