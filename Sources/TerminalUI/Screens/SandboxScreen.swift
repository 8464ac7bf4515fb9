/// The Sandbox panel (`S` on the Sessions screen, or `authdeck sandbox panel`): every fault profile of the running
/// sandbox with a box saying whether it is on, as its admin route last answered; Space switches the selected one,
/// `n` switches all off, `r` reads the sandbox again. Errors (a sandbox that is not running) are the message line.
public struct SandboxScreen: Screen {
    public init() {}

    /// Rows of the body before the list: the summary line and a blank one.
    static let listOffset = 2

    /// How many faults fit on a screen `rows` high (the last body row keeps the note).
    static func room(rows: Int) -> Int {
        max(1, AppFrame.body(rows: rows, cols: 0).rows - listOffset - 1)
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
        buffer.write(
            "  Each switch goes to the sandbox's admin route; sign-ins see it at once.",
            row: body.bottom - 1, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
    }
}
