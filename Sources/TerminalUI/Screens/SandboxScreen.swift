/// The Sandbox panel (`S` on the Sessions screen, or `authdeck sandbox panel`): every fault profile of the running
/// sandbox with a box saying whether it is on, as its admin route last answered; Space switches the selected one,
/// `n` switches all off, `r` reads the sandbox again, `d` types slow-provider's delay (`+`/`-` by a second). Under the
/// list the selected fault's description stands whole, however narrow the row; the panel reads the sandbox again
/// every few seconds, so switches made elsewhere show. Errors (a sandbox that is not running) are the message line.
public struct SandboxScreen: Screen {
    public init() {}

    /// Rows of the body before the list: the summary line and a blank one.
    static let listOffset = 2

    /// Rows under the list for the selected fault's whole description (a blank one, then up to three lines).
    static let detailRows = 4

    /// How many faults fit on a screen `rows` high (the last body row keeps the note, the ones above the detail).
    static func room(rows: Int) -> Int {
        max(1, AppFrame.body(rows: rows, cols: 0).rows - listOffset - 1 - detailRows)
    }

    /// The first fault in view: the list scrolls only as far as keeps the selection on screen.
    static func first(_ panel: SandboxPanel, rows: Int) -> Int {
        let room = room(rows: rows)
        return max(0, min(panel.selected - room + 1, panel.faults.count - room))
    }

    /// The fault at screen row `row`, for a click.
    public static func fault(atRow row: Int, _ panel: SandboxPanel, rows: Int) -> Int? {
        let offset = row - AppFrame.body(rows: rows, cols: 0).row - listOffset
        guard offset >= 0, offset < room(rows: rows) else { return nil }
        let index = first(panel, rows: rows) + offset
        return panel.faults.indices.contains(index) ? index : nil
    }

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard case .sandbox(let panel) = state.mode else { return }
        var (hints, pinned) = KeyBinding.hints(state.keys.sandbox)
        if state.singleScreen {
            hints = hints.map { $0.key == "Esc" ? StatusBar.Hint("Esc", "quit") : $0 }
        }
        let right = panel.hasAnswered ? "\(panel.on.count)/\(panel.faults.count) on" : ""
        AppFrame.draw(
            title: "Sandbox · " + panel.url, right: right, hints: hints, pinned: pinned, state: state,
            into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        guard panel.hasAnswered else {
            let text =
                panel.isWaiting
                ? "  Reading the faults of the sandbox at \(panel.url)…"
                : "  The sandbox did not answer: r tries again."
            buffer.write(text, row: body.row, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
            return
        }
        let on = panel.onInOrder
        let summary = on.isEmpty ? "no faults on" : "\(on.count) on: " + on.joined(separator: ", ")
        buffer.write(
            "  " + summary, row: body.row, col: 0,
            style: Style(foreground: on.isEmpty ? .active : .expiring, attributes: .bold),
            maxWidth: body.cols)
        let first = Self.first(panel, rows: buffer.rows)
        for (offset, fault) in panel.faults.dropFirst(first).prefix(Self.room(rows: buffer.rows)).enumerated() {
            let row = body.row + Self.listOffset + offset
            let isOn = panel.on.contains(fault.name)
            var col = buffer.write(
                "  " + (isOn ? "[x]" : "[ ]") + " ", row: row, col: 0,
                style: Style(foreground: isOn ? .expiring : .normal))
            col = buffer.write(
                DisplayText.padded(fault.name, toWidth: 24), row: row, col: col,
                style: Style(attributes: .bold))
            var summary = fault.summary
            if fault.name == "slow-provider" { summary += " (now \(panel.delayMs) ms)" }
            buffer.write(
                " " + summary, row: row, col: col, style: Style(foreground: .dim),
                maxWidth: body.cols - col - 1)
            if first + offset == panel.selected {
                buffer.restyle(Rect(row: row, col: 0, rows: 1, cols: body.cols)) { $0.attributes.insert(.reverse) }
                buffer.markFocus(row: row, col: 0)
            }
        }
        if panel.faults.indices.contains(panel.selected) {
            Self.drawDetail(panel.faults[panel.selected], panel, top: body.bottom - 1 - Self.detailRows, into: &buffer)
        }
        let note = body.bottom - 1
        if let field = panel.delayField {
            let label = "  slow-provider's delay in ms, 0 to 60000 (Enter sets it, Esc cancels): "
            let end = buffer.write(label, row: note, col: 0, style: Style(attributes: .bold), maxWidth: body.cols)
            field.draw(in: Rect(row: note, col: end, rows: 1, cols: max(0, min(8, body.cols - end - 1))), into: &buffer)
        } else {
            buffer.write(
                "  Each switch goes to the sandbox's admin route; sign-ins see it at once.",
                row: note, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
        }
    }

    /// The selected fault's name and whole description, wrapped, over the rows from `top` (after a blank one).
    private static func drawDetail(
        _ fault: SandboxPanel.Fault, _ panel: SandboxPanel, top: Int, into buffer: inout ScreenBuffer
    ) {
        var text = fault.name + ": " + fault.summary + "."
        if fault.name == "slow-provider" {
            text += " Now \(panel.delayMs) ms: d types it, + and - change it by a second."
        }
        let lines = DisplayText.wrapped(text, toWidth: max(1, buffer.cols - 4))
        for (index, line) in lines.prefix(detailRows - 1).enumerated() {
            buffer.write(
                "  " + line, row: top + 1 + index, col: 0, style: Style(foreground: .accent), maxWidth: buffer.cols)
        }
    }
}
