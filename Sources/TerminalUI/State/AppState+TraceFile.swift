import Foundation

/// The Trace screen with a trace file: `o` asks for a path and the event loop reads it (`openTraceFile`); the file
/// then takes the place of this run's attempts until Esc. Moving, expanding and scrolling are the screen's usual
/// keys (`traceKey`), over the file's steps.
extension AppState {
    /// The lines the Trace screen shows: the open file's, else the traced attempt's.
    public var tracedLines: [TraceLine] {
        if let traceFile { return traceFile.lines }
        return tracedFlow.map(TraceScreen.lines(of:)) ?? []
    }

    /// Shows `file` on the Trace screen from its first step, over whatever screen is underneath.
    public mutating func showTraceFile(_ file: TraceFile) {
        traceFile = file
        tracePathField = nil
        overlay = .trace
        traceBack = 0
        traceExpanded = []
        traceSelected = 0
        traceScroll = 0
        message = nil
    }

    /// The Trace screen's keys that files add or change, before its usual ones: the path field while `o` asks,
    /// `o` itself, `a`, and leaving (with a file open, or on the one screen `trace show` opened). Nil for a key the
    /// screen handles as usual.
    mutating func traceFileKey(_ request: KeyRequest) -> [AppEffect]? {
        if let field = tracePathField { return tracePathKey(request, field) }
        let command = KeyBinding.command(for: request, in: KeyBinding.traceReading)
        if command == .expandAll {
            expandAllTraceSteps()
            return []
        }
        if command == .openTraceFile {
            // Started in the open file's folder: a customer's traces usually arrive side by side.
            let folder = traceFile.map { ($0.path as NSString).deletingLastPathComponent } ?? ""
            tracePathField = TextField(
                text: folder.isEmpty || folder.hasSuffix("/") ? folder : folder + "/",
                isFocused: true, maxLength: 4096)
            message = nil
            return []
        }
        switch request {
        case .escape, .interrupt, .character("t"), .character("q"):
            if singleScreen {
                isQuitting = true
                return [.quit]
            }
            traceFile = nil  // then the screen closes as usual
            return nil
        case .mouseClick(let row, _) where traceFile != nil:
            if let step = TraceScreen.step(atRow: row, self) { traceSelected = step }
            return []
        case .character("e") where traceFile != nil:
            message = Message("This trace is a file already: e exports the attempts that ran here.")
            return []
        case .character("["), .character("]"):
            return traceFile == nil ? nil : []  // a file is one attempt
        default:
            return nil
        }
    }

    /// `a`: every step with details expanded, or all folded when they all were; the selected step stays at the
    /// top of the list.
    private mutating func expandAllTraceSteps() {
        let lines = tracedLines
        let expandable = Set(lines.indices.filter { !lines[$0].details.isEmpty })
        guard !expandable.isEmpty else { return }
        traceExpanded = expandable.isSubset(of: traceExpanded) ? [] : expandable
        let selected = min(traceSelected ?? lines.count - 1, lines.count - 1)
        traceSelected = selected
        let display = TraceScreen.displayLines(lines, expanded: traceExpanded)
        let first = display.firstIndex { $0.step == selected } ?? 0
        traceScroll = min(first, max(0, display.count - TraceScreen.room(rows: rows)))
    }

    /// Typing the path after `o`: Enter reads the file, Esc forgets the field.
    private mutating func tracePathKey(_ request: KeyRequest, _ field: TextField) -> [AppEffect] {
        switch request {
        case .enter:
            let path = field.text.trimmingCharacters(in: .whitespaces)
            guard !path.isEmpty else { return [] }
            tracePathField = nil
            message = Message("Reading \(path)…")
            return [.openTraceFile(path)]
        case .escape, .interrupt:
            tracePathField = nil
            message = nil
        default:
            if let edited = field.applying(request) { tracePathField = edited }
        }
        return []
    }

    /// The file asked for was read: shown, if the Trace screen is still up.
    mutating func traceFileOpened(_ file: TraceFile) {
        guard overlay == .trace else { return }
        showTraceFile(file)
    }

    /// The file could not be read: the one-line reason, and the screen stays as it was.
    mutating func traceFileFailed(_ text: String) {
        message = Message(text, isError: true)
    }
}
