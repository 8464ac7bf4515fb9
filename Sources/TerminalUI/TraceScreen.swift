import Foundation

/// Trace: the steps of the current or last attempt as the TUI saw them (state transitions, receiver callbacks
/// with their verdicts, notices, the result) and the protocol steps of the flow trace (requests, responses,
/// timings, ID-token claims), redacted before they reach the screen. A selection bar moves over every step, Enter
/// expands the selected step's details (parameters, redacted bodies, decoded ID-token claims), and `[`/`]` go to
/// the earlier attempts of this run (the last `AppState.keptFlows`).
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

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        buffer.clear()
        let flows = state.traceableFlows
        let index = flows.count - 1 - min(state.traceBack, max(0, flows.count - 1))
        var right = flows.count > 1 ? "attempt \(index + 1) of \(flows.count) ([ ])" : ""
        let all = state.tracedFlow.map(Self.lines(of:)) ?? []
        let display = Self.displayLines(all, expanded: state.traceExpanded)
        let selected = min(state.traceSelected ?? all.count - 1, max(0, all.count - 1))
        let room = Self.room(rows: buffer.rows)
        let last = max(0, display.count - room)
        let top = min(state.traceScroll ?? last, last)
        let shown = display.dropFirst(top).prefix(room)
        if let first = shown.first, let end = shown.last {
            let steps = "steps \(first.step + 1)–\(end.step + 1) of \(all.count)"
            right = right.isEmpty ? steps : steps + " · " + right
        }
        let hints = KeyBinding.hints(KeyBinding.trace)
        AppFrame.draw(title: "Trace", right: right, hints: hints.hints, pinned: hints.pinned, state: state,
                      into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        guard let flow = state.tracedFlow else {
            buffer.write("  No sign-in has run in this session of authdeck yet (n starts one).", row: body.row + 1,
                         col: 0, style: Style(foreground: .dim))
            return
        }
        buffer.write("  Flow \(flow.id): \(flow.choice.title) via \(flow.choice.backend) · now "
                     + SignInFlow.describe(flow.phase), row: body.row, col: 0,
                     style: Style(attributes: .bold), maxWidth: body.cols)
        var row = body.row + 2
        for entry in shown {
            let line = all[entry.step]
            if let detail = entry.detail {
                buffer.write(String(repeating: " ", count: 25) + detail, row: row, col: 0,
                             style: Style(foreground: .dim), maxWidth: body.cols)
                row += 1
                continue
            }
            let offset = line.time.timeIntervalSince(flow.startedAt)
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
            col = buffer.write(DisplayText.padded(stamp, toWidth: 10, alignment: .right), row: row,
                               col: col, style: Style(foreground: .dim))
            col = buffer.write(" " + DisplayText.padded(kind, toWidth: 11), row: row, col: col,
                               style: Style(foreground: .accent))
            buffer.write(line.text, row: row, col: col, style: Style(foreground: line.isError ? .error : .normal),
                         maxWidth: body.cols - col - 1)
            if entry.step == selected {
                buffer.restyle(Rect(row: row, col: 0, rows: 1, cols: body.cols)) { $0.attributes.insert(.reverse) }
            }
            row += 1
        }
        if let note = flow.traceExportNote {
            buffer.write("  " + note, row: body.bottom - 1, col: 0, style: Style(foreground: .accent),
                         maxWidth: body.cols)
        } else {
            buffer.write("  Secrets are redacted. e writes these steps as JSON lines, as login --trace FILE does.",
                         row: body.bottom - 1, col: 0, style: Style(foreground: .dim), maxWidth: body.cols)
        }
    }
}
