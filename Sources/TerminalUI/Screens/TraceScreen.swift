import Foundation

/// Trace: the steps of the current or last attempt as the TUI saw them (state transitions, receiver callbacks
/// with their verdicts, notices, the result) and the protocol steps of the flow trace (requests, responses,
/// timings, ID-token claims), redacted before they reach the screen. A selection bar moves over every step, Enter
/// expands the selected step's details (parameters, redacted bodies, decoded ID-token claims), and `[`/`]` go to
/// the earlier attempts of this run (the last `AppState.keptFlows`). `o` opens a trace file (a customer's export,
/// or what `authdeck trace show FILE` opened the screen on) in their place, read-only.
public struct TraceScreen: Screen {
    public init() {}

    /// The lines shown for a flow: with the flow trace wired, its steps say everything the screen's own notes say,
    /// and more exactly.
    public static func lines(of flow: SignInFlow) -> [TraceLine] {
        let steps = flow.trace.filter { if case .step = $0.kind { return true } else { return false } }
        return steps.isEmpty ? flow.trace : steps
    }

    /// A line of the list: a step's own line (`detail` nil) or one line of its expanded details.
    public struct DisplayLine: Equatable, Sendable {
        public let step: Int
        public let detail: String?
    }

    /// The steps with the details of the expanded ones below each.
    public static func displayLines(_ lines: [TraceLine], expanded: Set<Int>) -> [DisplayLine] {
        var display: [DisplayLine] = []
        for (index, line) in lines.enumerated() {
            display.append(DisplayLine(step: index, detail: nil))
            if expanded.contains(index) { display += line.details.map { DisplayLine(step: index, detail: $0) } }
        }
        return display
    }

    /// How many trace lines fit on a screen `rows` high.
    public static func room(rows: Int) -> Int {
        max(1, AppFrame.body(rows: rows, cols: 0).rows - 3)
    }

    /// The first display line in view (the newest when nothing was scrolled).
    static func top(_ state: AppState, display: Int, rows: Int) -> Int {
        let last = max(0, display - room(rows: rows))
        return min(state.traceScroll ?? last, last)
    }

    /// The step whose line (or detail line) is at screen row `row`, for a click.
    public static func step(atRow row: Int, _ state: AppState) -> Int? {
        let display = displayLines(state.tracedLines, expanded: state.traceExpanded)
        let offset = row - (AppFrame.body(rows: state.rows, cols: state.cols).row + 2)
        guard offset >= 0, offset < room(rows: state.rows) else { return nil }
        let index = top(state, display: display.count, rows: state.rows) + offset
        return display.indices.contains(index) ? display[index].step : nil
    }

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        buffer.clear()
        let flows = state.traceableFlows
        let index = flows.count - 1 - min(state.traceBack, max(0, flows.count - 1))
        var right = flows.count > 1 && state.traceFile == nil ? "attempt \(index + 1) of \(flows.count) ([ ])" : ""
        let all = state.tracedLines
        let display = Self.displayLines(all, expanded: state.traceExpanded)
        let selected = min(state.traceSelected ?? all.count - 1, max(0, all.count - 1))
        let room = Self.room(rows: buffer.rows)
        let top = Self.top(state, display: display.count, rows: buffer.rows)
        let shown = display.dropFirst(top).prefix(room)
        if let first = shown.first, let end = shown.last {
            let steps = "steps \(first.step + 1)–\(end.step + 1) of \(all.count)"
            right = right.isEmpty ? steps : steps + " · " + right
        }
        // The table's hints (no export for a file: it is exported already) and opening a file; Esc (first, so it
        // stays at 80 columns) quits a TUI that `trace show` opened on this screen alone.
        let table =
            state.keys.trace.filter { state.traceFile == nil || $0.command != .exportTrace }
            + state.keys.traceReading
        var hints = KeyBinding.hints(table)
        let leave = StatusBar.Hint("Esc", state.singleScreen ? "quit" : "back")
        hints.hints = [leave] + hints.hints.filter { $0.action != "back" }
        AppFrame.draw(
            title: "Trace", right: right, hints: hints.hints, pinned: hints.pinned, state: state,
            into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let startedAt: Date
        if let traceFile = state.traceFile {
            startedAt = traceFile.startedAt
            buffer.write(
                "  File " + traceFile.path, row: body.row, col: 0, style: Style(attributes: .bold),
                maxWidth: body.cols)
            buffer.write(
                "  ended: " + traceFile.ending, row: body.row + 1, col: 0,
                style: Style(foreground: traceFile.endedInError ? .error : .active), maxWidth: body.cols)
        } else if let flow = state.tracedFlow {
            startedAt = flow.startedAt
            buffer.write(
                "  Flow \(flow.id): \(flow.choice.title) via \(flow.choice.backend) · now "
                    + SignInFlow.describe(flow.phase), row: body.row, col: 0,
                style: Style(attributes: .bold), maxWidth: body.cols)
        } else {
            buffer.write(
                "  No sign-in has run here yet: n starts one, o opens a trace file.",
                row: body.row + 1, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
            Self.drawNote(state, flow: nil, in: body, into: &buffer)
            return
        }
        var row = body.row + 2
        for entry in shown {
            let line = all[entry.step]
            if let detail = entry.detail {
                buffer.write(
                    String(repeating: " ", count: 25) + detail, row: row, col: 0,
                    style: Style(foreground: .dim), maxWidth: body.cols)
                row += 1
                continue
            }
            let offset = line.time.timeIntervalSince(startedAt)
            let stamp = "+" + String(format: "%.3f", offset) + "s"
            let kind: String
            switch line.kind {
            case .state: kind = "state"
            case .callback: kind = "callback"
            case .notice: kind = "notice"
            case .result: kind = "result"
            case .step(let name): kind = name
            }
            let mark = line.details.isEmpty ? "  " : (state.traceExpanded.contains(entry.step) ? " ▾" : " ▸")
            var col = buffer.write(mark, row: row, col: 0, style: Style(foreground: .accent))
            col = buffer.write(
                DisplayText.padded(stamp, toWidth: 10, alignment: .right), row: row,
                col: col, style: Style(foreground: .dim))
            col = buffer.write(
                " " + DisplayText.padded(kind, toWidth: 11), row: row, col: col,
                style: Style(foreground: .accent))
            buffer.write(
                line.text, row: row, col: col, style: Style(foreground: line.isError ? .error : .normal),
                maxWidth: body.cols - col - 1)
            if entry.step == selected {
                buffer.restyle(Rect(row: row, col: 0, rows: 1, cols: body.cols)) { $0.attributes.insert(.reverse) }
                buffer.markFocus(row: row, col: 0)
            }
            row += 1
        }
        Self.drawNote(state, flow: state.traceFile == nil ? state.tracedFlow : nil, in: body, into: &buffer)
    }

    /// The line under the steps: the path field while `o` asks, else what `e` did or how the steps were redacted.
    private static func drawNote(
        _ state: AppState, flow: SignInFlow?, in body: Rect,
        into buffer: inout ScreenBuffer
    ) {
        let row = body.bottom - 1
        if let field = state.tracePathField {
            let label = "  Trace file (Tab completes, Enter opens, Esc cancels): "
            let end = buffer.write(label, row: row, col: 0, style: Style(attributes: .bold), maxWidth: body.cols)
            field.draw(in: Rect(row: row, col: end, rows: 1, cols: max(0, body.cols - end - 1)), into: &buffer)
        } else if let field = state.traceSearchField {
            let label = "  Find (Enter finds, then n the next; Esc cancels): "
            let end = buffer.write(label, row: row, col: 0, style: Style(attributes: .bold), maxWidth: body.cols)
            field.draw(in: Rect(row: row, col: end, rows: 1, cols: max(0, body.cols - end - 1)), into: &buffer)
        } else if let note = flow?.traceExportNote {
            buffer.write("  " + note, row: row, col: 0, style: Style(foreground: .accent), maxWidth: body.cols)
        } else if state.traceFile != nil {
            buffer.write(
                "  Secrets were redacted when the file was written; this screen never changes it.",
                row: row, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
        } else if flow != nil {
            buffer.write(
                "  Secrets are redacted. e writes these steps as JSON lines, as login --trace FILE does.",
                row: row, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
        }
    }
}
