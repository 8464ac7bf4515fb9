/// The Sandbox panel (`authdeck sandbox panel`): every fault of a running sandbox with a box showing whether it is
/// on, moved through with ↑/↓, switched with Space or Enter (the caller sends the new selection to the sandbox's
/// admin route and hands back what the sandbox answered), `n` for none, `r` to read the sandbox again, q to leave.
public struct SandboxFaultsPanel: Equatable, Sendable {
    /// One fault as listed: its name and what it does.
    public struct Fault: Equatable, Sendable {
        public var name: String
        public var summary: String

        public init(name: String, summary: String) {
            self.name = name
            self.summary = summary
        }
    }

    /// What the caller does after a key.
    public enum Action: Equatable, Sendable {
        case none
        /// Send this selection to the sandbox.
        case apply(Set<String>)
        /// Read the sandbox's faults again.
        case refresh
        case quit
    }

    public let sandbox: String
    public private(set) var faults: [Fault]
    /// The faults the sandbox last said are on.
    public private(set) var on: Set<String>
    public private(set) var delayMs: Int
    public private(set) var selected = 0
    /// The last answer or error, for the message line.
    public private(set) var message: (text: String, isError: Bool)?

    public init(sandbox: String, faults: [Fault], on: Set<String>, delayMs: Int) {
        self.sandbox = sandbox
        self.faults = faults
        self.on = on
        self.delayMs = delayMs
    }

    public static func == (left: SandboxFaultsPanel, right: SandboxFaultsPanel) -> Bool {
        left.sandbox == right.sandbox && left.faults == right.faults && left.on == right.on
            && left.delayMs == right.delayMs && left.selected == right.selected
            && left.message?.text == right.message?.text && left.message?.isError == right.message?.isError
    }

    // MARK: - Events

    public mutating func handle(_ request: KeyRequest) -> Action {
        switch request {
        case .up, .scrollUp, .character("k"): selected = max(0, selected - 1)
        case .down, .scrollDown, .character("j"): selected = min(faults.count - 1, selected + 1)
        case .home, .character("g"): selected = 0
        case .end, .character("G"): selected = max(0, faults.count - 1)
        case .enter, .character(" "):
            guard faults.indices.contains(selected) else { return .none }
            let name = faults[selected].name
            return .apply(on.contains(name) ? on.subtracting([name]) : on.union([name]))
        case .character("n"): return .apply([])
        case .character("r"), .redraw: return .refresh
        case .character("q"), .escape, .interrupt: return .quit
        case .mouseClick(let row, _):
            let index = row - Self.listTop
            if faults.indices.contains(index) { selected = index }
        case .left, .right, .pageUp, .pageDown, .tab, .backTab, .backspace, .delete, .character, .paste, .resize,
             .function:
            // Nothing else means anything here.
            break
        }
        return .none
    }

    /// The sandbox answered: these faults are on now.
    public mutating func sandboxAnswered(on faults: Set<String>, delayMs: Int, note: String) {
        on = faults
        self.delayMs = delayMs
        message = (note, false)
    }

    /// The sandbox could not be reached or refused; the boxes stay as the sandbox last said.
    public mutating func sandboxFailed(_ text: String) {
        message = (text, true)
    }

    // MARK: - Rendering

    static let listTop = 3

    public func render(into buffer: inout ScreenBuffer) {
        buffer.clear()
        guard TooSmallScreen.fits(rows: buffer.rows, cols: buffer.cols) else {
            TooSmallScreen.render(into: &buffer)
            return
        }
        let cols = buffer.cols
        buffer.write(" authdeck", row: 0, col: 0, style: Style(foreground: .accent, attributes: .bold))
        buffer.write(" · Sandbox · " + sandbox, row: 0, col: 9, style: Style(attributes: .bold), maxWidth: cols - 10)
        let summary = on.isEmpty ? "no faults on" : "\(on.count) on: " + faults.map(\.name).filter(on.contains)
            .joined(separator: ", ")
        buffer.write("  " + summary, row: 1, col: 0,
                     style: Style(foreground: on.isEmpty ? .active : .expiring, attributes: .bold), maxWidth: cols)
        let room = buffer.rows - Self.listTop - 2
        let first = max(0, min(selected - room + 1, faults.count - room))
        for (offset, fault) in faults.enumerated().dropFirst(first).prefix(room) {
            let row = Self.listTop + offset - first
            let box = on.contains(fault.name) ? "[x]" : "[ ]"
            var col = buffer.write("  " + box + " ", row: row, col: 0,
                                   style: Style(foreground: on.contains(fault.name) ? .expiring : .normal))
            col = buffer.write(DisplayText.padded(fault.name, toWidth: 24), row: row, col: col,
                               style: Style(attributes: .bold))
            var summaryText = fault.summary
            if fault.name == "slow-provider" { summaryText += " (now \(delayMs) ms)" }
            buffer.write(" " + summaryText, row: row, col: col, style: Style(foreground: .dim),
                         maxWidth: cols - col - 1)
            if offset == selected {
                buffer.restyle(Rect(row: row, col: 0, rows: 1, cols: cols)) { $0.attributes.insert(.reverse) }
            }
        }
        if let message {
            buffer.write(" " + message.text, row: buffer.rows - 2, col: 0,
                         style: Style(foreground: message.isError ? .error : .normal), maxWidth: cols)
        }
        StatusBar(left: "sandbox", right: "\(on.count)/\(faults.count) on",
                  hints: [.init("↑↓", "move"), .init("Space", "switch"), .init("n", "none"), .init("r", "reload"),
                          .init("q", "quit")])
            .draw(in: Rect(row: buffer.rows - 1, col: 0, rows: 1, cols: cols), into: &buffer)
    }
}
