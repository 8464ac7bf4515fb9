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
        if let field = traceSearchField { return traceSearchKey(request, field) }
        let command = KeyBinding.command(for: request, in: keys.traceReading)
        if command == .expandAll {
            expandAllTraceSteps()
            return []
        }
        switch command {
        case .searchTrace:
            traceSearchField = TextField(isFocused: true, maxLength: 200)
            message = nil
            return []
        case .nextMatch:
            guard let words = traceSearch else {
                message = Message("Nothing to find again: / asks what to find.")
                return []
            }
            findTraceStep(words, after: traceSelected ?? -1)
            return []
        case .firstError:
            let lines = tracedLines
            if let first = lines.indices.first(where: { Self.failed(lines[$0]) }) {
                selectTraceStep(first, lines, room: TraceScreen.room(rows: rows))
                message = nil
            } else {
                message = Message("No step failed: no error, no 4xx or 5xx answer.")
            }
            return []
        default:
            break
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

    /// Whether a step failed: drawn as an error, or an HTTP answer of 400 or more.
    static func failed(_ line: TraceLine) -> Bool {
        if line.isError { return true }
        guard case .step("response") = line.kind else { return false }
        // The pretty-printed details hold `"status" : 400,` on a line of its own.
        return line.details.contains { detail in
            let trimmed = detail.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\"status\" : ") else { return false }
            let digits = trimmed.dropFirst(11).prefix { $0.isNumber }
            return Int(digits).map { $0 >= 400 } ?? false
        }
    }

    /// Selects the first step after `index` (wrapping round) whose words or details contain `words`, ignoring case.
    private mutating func findTraceStep(_ words: String, after index: Int) {
        let lines = tracedLines
        guard !lines.isEmpty else { return }
        let order = (0..<lines.count).map { (index + 1 + $0) % lines.count }
        let found = order.first { step in
            let line = lines[step]
            return line.text.localizedCaseInsensitiveContains(words)
                || line.details.contains { $0.localizedCaseInsensitiveContains(words) }
        }
        guard let found else {
            message = Message("No step mentions “\(words)”.")
            return
        }
        selectTraceStep(found, lines, room: TraceScreen.room(rows: rows))
        message = nil
    }

    /// Typing what `/` finds: Enter finds it from the selected step on, Esc forgets the field.
    private mutating func traceSearchKey(_ request: KeyRequest, _ field: TextField) -> [AppEffect] {
        switch request {
        case .enter:
            traceSearchField = nil
            let words = field.text.trimmingCharacters(in: .whitespaces)
            guard !words.isEmpty else { return [] }
            traceSearch = words
            findTraceStep(words, after: (traceSelected ?? 0) - 1)
        case .escape, .interrupt:
            traceSearchField = nil
        default:
            if let edited = field.applying(request) { traceSearchField = edited }
        }
        return []
    }

    /// Typing the path after `o`: Enter reads the file, Tab completes it, Esc forgets the field.
    private mutating func tracePathKey(_ request: KeyRequest, _ field: TextField) -> [AppEffect] {
        switch request {
        case .tab:
            return [.completeTracePath(field.text)]
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

    /// Tab's answer: the path as far as it is certain, and the names that still fit when there are several.
    mutating func tracePathCompleted(_ text: String, choices: [String]) {
        guard let field = tracePathField else { return }
        tracePathField = TextField(text: text, isFocused: true, maxLength: field.maxLength)
        message =
            choices.count > 1
            ? Message(
                choices.prefix(8).joined(separator: "  ")
                    + (choices.count > 8 ? "  … (\(choices.count) in all)" : "")) : nil
    }

    /// The file could not be read: the one-line reason, and the screen stays as it was.
    mutating func traceFileFailed(_ text: String) {
        message = Message(text, isError: true)
    }
}
