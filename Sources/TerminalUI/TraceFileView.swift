/// A trace file in the Trace screen's look (`authdeck trace show FILE` on a terminal): read-only, one line a step
/// (time, kind, summary), a selection bar moved with ↑/↓ (or j/k, PgUp/PgDn, Home/End, the mouse), Enter to expand
/// or fold the selected step's details, `a` for all of them, q or Esc to leave. The caller hands in lines already
/// made from the file (its steps are redacted by the recorder), so this type only lays them out.
public struct TraceFileView: Equatable, Sendable {
    /// One step as shown: its one-line header and the detail lines an expansion reveals.
    public struct Step: Equatable, Sendable {
        public var time: String
        public var kind: String
        public var summary: String
        public var details: [String]
        /// Drawn in the error colour (a failed result, a refused callback, an error response).
        public var isError: Bool

        public init(time: String, kind: String, summary: String, details: [String], isError: Bool = false) {
            self.time = time
            self.kind = kind
            self.summary = summary
            self.details = details
            self.isError = isError
        }
    }

    public let title: String
    /// How the attempt ended, the line under the title.
    public let ending: String
    public let endedInError: Bool
    public let steps: [Step]
    public private(set) var selected = 0
    public private(set) var expanded: Set<Int> = []
    /// The first display line at the top of the list.
    public private(set) var top = 0
    /// The rows the list had at the last render, for paging and for keeping the selection in view.
    private var listRows = 10

    public init(title: String, ending: String, endedInError: Bool, steps: [Step]) {
        self.title = title
        self.ending = ending
        self.endedInError = endedInError
        self.steps = steps
    }

    // MARK: - Keys

    /// Applies one request; false when the user asked to leave.
    public mutating func handle(_ request: KeyRequest) -> Bool {
        switch request {
        case .up, .scrollUp, .character("k"): move(to: selected - 1)
        case .down, .scrollDown, .character("j"): move(to: selected + 1)
        case .pageUp: move(to: selected - max(1, listRows - 1))
        case .pageDown: move(to: selected + max(1, listRows - 1))
        case .home, .character("g"): move(to: 0)
        case .end, .character("G"): move(to: steps.count - 1)
        case .enter, .character(" "), .tab:
            if expanded.contains(selected) { expanded.remove(selected) } else { expanded.insert(selected) }
            keepSelectionVisible()
        case .right, .character("l"):
            expanded.insert(selected)
            keepSelectionVisible()
        case .left, .character("h"):
            expanded.remove(selected)
            keepSelectionVisible()
        case .character("a"):
            expanded = expanded.count == steps.count ? [] : Set(steps.indices)
            keepSelectionVisible()
        case .mouseClick(let row, _):
            let line = top + row - Self.listTop
            if line >= 0, line < displayLines.count { move(to: displayLines[line].step) }
        case .character("q"), .escape, .interrupt:
            return false
        case .resize(let rows, _):
            listRows = max(1, rows - Self.listTop - 2)
            keepSelectionVisible()
        case .backTab, .backspace, .delete, .character, .paste, .redraw, .function:
            // Read-only: nothing else means anything here.
            break
        }
        return true
    }

    private mutating func move(to index: Int) {
        guard !steps.isEmpty else { return }
        selected = min(max(0, index), steps.count - 1)
        keepSelectionVisible()
    }

    /// The selected step's header always in view, and its expansion too when it fits.
    private mutating func keepSelectionVisible() {
        let lines = displayLines
        guard let first = lines.firstIndex(where: { $0.step == selected }) else { return }
        let last = lines.lastIndex { $0.step == selected } ?? first
        if last >= top + listRows { top = last - listRows + 1 }
        if first < top || first >= top + listRows { top = first }
        top = max(0, min(top, max(0, lines.count - listRows)))
    }

    // MARK: - Layout

    /// A line of the list: a step's header (`detail` nil) or one of its detail lines.
    struct DisplayLine: Equatable {
        let step: Int
        let detail: String?
    }

    static let listTop = 3

    var displayLines: [DisplayLine] {
        var lines: [DisplayLine] = []
        for index in steps.indices {
            lines.append(DisplayLine(step: index, detail: nil))
            if expanded.contains(index) {
                lines += steps[index].details.map { DisplayLine(step: index, detail: $0) }
            }
        }
        return lines
    }

    // MARK: - Rendering

    public mutating func render(into buffer: inout ScreenBuffer) {
        listRows = max(1, buffer.rows - Self.listTop - 2)
        keepSelectionVisible()
        draw(into: &buffer)
    }

    private func draw(into buffer: inout ScreenBuffer) {
        buffer.clear()
        guard TooSmallScreen.fits(rows: buffer.rows, cols: buffer.cols) else {
            TooSmallScreen.render(into: &buffer)
            return
        }
        let cols = buffer.cols
        let right = "\(steps.count) steps · read-only"
        buffer.write(" authdeck", row: 0, col: 0, style: Style(foreground: .accent, attributes: .bold))
        buffer.write(" · Trace · " + title, row: 0, col: 9, style: Style(attributes: .bold),
                     maxWidth: max(0, cols - 9 - right.count - 2))
        buffer.write(right, row: 0, col: max(0, cols - right.count - 1), style: Style(foreground: .dim))
        buffer.write("  ended: " + ending, row: 1, col: 0,
                     style: Style(foreground: endedInError ? .error : .active, attributes: .bold), maxWidth: cols)
        let lines = displayLines
        for (offset, line) in lines.dropFirst(top).prefix(listRows).enumerated() {
            let row = Self.listTop + offset
            let step = steps[line.step]
            if let detail = line.detail {
                buffer.write("      " + String(repeating: " ", count: 18) + detail, row: row, col: 0,
                             style: Style(foreground: .dim), maxWidth: cols)
                continue
            }
            let mark = step.details.isEmpty ? " " : (expanded.contains(line.step) ? "▾" : "▸")
            let number = String(line.step + 1)
            let lead = " " + mark + String(repeating: " ", count: max(1, 4 - number.count)) + number + " "
            var col = buffer.write(lead, row: row, col: 0)
            col = buffer.write(DisplayText.padded(step.time, toWidth: 10, alignment: .right), row: row, col: col,
                               style: Style(foreground: .dim))
            col = buffer.write("  " + DisplayText.padded(step.kind, toWidth: 11), row: row, col: col,
                               style: Style(foreground: .accent))
            buffer.write(step.summary, row: row, col: col,
                         style: Style(foreground: step.isError ? .error : .normal), maxWidth: cols - col - 1)
            if line.step == selected {
                buffer.restyle(Rect(row: row, col: 0, rows: 1, cols: cols)) { $0.attributes.insert(.reverse) }
            }
        }
        if lines.count > listRows {
            let shownTo = min(lines.count, top + listRows)
            buffer.write(" lines \(top + 1)–\(shownTo) of \(lines.count)", row: buffer.rows - 2, col: 0,
                         style: Style(foreground: .dim))
        } else {
            buffer.write(" Secrets were redacted when the trace was written; this view cannot change the file.",
                         row: buffer.rows - 2, col: 0, style: Style(foreground: .dim), maxWidth: cols)
        }
        StatusBar(left: "trace file", right: "step \(selected + 1)/\(steps.count)",
                  hints: [.init("↑↓", "move"), .init("Enter", "expand"), .init("a", "all"), .init("q", "quit")])
            .draw(in: Rect(row: buffer.rows - 1, col: 0, rows: 1, cols: cols), into: &buffer)
    }
}
