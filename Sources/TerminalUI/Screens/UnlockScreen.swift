/// The store is locked: a masked passphrase field. Esc goes on to the list without unlocking.
public struct UnlockScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard case .unlock(let form) = state.mode else { return }
        if form.isNew {
            AppFrame.draw(
                title: "New store",
                hints: [
                    .init("Enter", form.isRepeating ? "create" : "next"),
                    .init("Esc", "later"), .init("Ctrl-C", "quit"),
                ],
                state: state, into: &buffer)
        } else {
            AppFrame.draw(
                title: "Store locked",
                hints: [
                    .init("Enter", "unlock"), .init("Esc", "list only"),
                    .init("Ctrl-C", "quit"),
                ], state: state, into: &buffer)
        }
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        var lines = ScreenLines()
        if form.isNew {
            lines.add("  Choose a passphrase for the new store.", Style(attributes: .bold))
            lines.add("  " + form.reason, Style(foreground: .dim))
            lines.add(
                "  It encrypts every session; authdeck cannot recover it if it is forgotten.",
                Style(foreground: .dim))
        } else {
            lines.add("  The session store is locked.", Style(attributes: .bold))
            lines.add("  " + form.reason, Style(foreground: .dim))
        }
        let end = lines.draw(in: Rect(row: body.row + 1, col: 0, rows: 5, cols: body.cols), into: &buffer)
        let row = end + 1
        let label = !form.isNew ? "  Passphrase" : form.isRepeating ? "  Repeat it" : "  New passphrase"
        buffer.write(label, row: row, col: 0, style: Style(foreground: .accent))
        let fieldCol = form.isNew ? 19 : 15
        form.field.draw(
            in: Rect(row: row, col: fieldCol, rows: 1, cols: max(0, min(40, buffer.cols - fieldCol - 2))),
            into: &buffer)
        if form.isUnlocking {
            buffer.write(
                form.isNew ? "  Creating the store…" : "  Unlocking…", row: row + 2, col: 0,
                style: Style(attributes: .bold))
        } else if let error = form.error {
            for (index, line) in DisplayText.wrapped(error, toWidth: max(1, buffer.cols - 3)).prefix(2).enumerated() {
                buffer.write(
                    "  " + line, row: row + 2 + index, col: 0, style: Style(foreground: .error), maxWidth: buffer.cols)
            }
        }
        buffer.write(
            form.isNew
                ? "  Asked twice, so a typo cannot lock you out."
                : "  Without unlocking, sessions are listed but no token can be read, refreshed or stored.",
            row: row + 4, col: 0, style: Style(foreground: .dim), maxWidth: buffer.cols)
    }
}
