import Foundation

/// The Sandbox panel's keys (`KeyBinding.sandbox`) and the sandbox's answers. Every switch goes to the sandbox's
/// admin route as an effect; the boxes change only with its answer.
extension AppState {
    /// `S`: the panel of the configured sandbox, read afresh; a one-line error when no sandbox is configured.
    mutating func openSandboxPanel() -> [AppEffect] {
        guard let url = sandboxURL else {
            message = Message(
                "No sandbox is configured: authdeck sandbox --config-out FILE writes a config naming "
                    + "one (AUTHDECK_CONFIG=FILE).", isError: true)
            return []
        }
        var panel = SandboxPanel(url: url)
        panel.isWaiting = true
        mode = .sandbox(panel)
        message = nil
        return [.sandboxFaults(url: url, faults: nil, delayMs: 0)]
    }

    mutating func sandboxKey(_ request: KeyRequest, _ panel: SandboxPanel) -> [AppEffect] {
        var panel = panel
        if let field = panel.delayField { return delayKey(request, field, panel) }
        if case .mouseClick(let row, _) = request {
            if let index = SandboxScreen.fault(atRow: row, panel, rows: rows) { panel.selected = index }
            mode = .sandbox(panel)
            return []
        }
        guard let command = KeyBinding.command(for: request, in: keys.sandbox) else { return [] }
        let last = max(0, panel.faults.count - 1)
        switch command {
        case .up: panel.selected = max(0, panel.selected - 1)
        case .down: panel.selected = min(last, panel.selected + 1)
        case .top: panel.selected = 0
        case .bottom: panel.selected = last
        case .switchFault, .faultsOff, .refresh:
            guard !panel.isWaiting else {
                message = Message("Waiting for the sandbox to answer…")
                return []
            }
            // Until the sandbox answered once, every one of these reads it: a switch needs its list and its delay.
            var faults: [String]?
            if panel.hasAnswered, command == .switchFault {
                guard let switched = panel.switchedSelection else { return [] }
                faults = switched
            } else if panel.hasAnswered, command == .faultsOff {
                faults = []
            }
            panel.isWaiting = true
            panel.requests += 1
            message = nil
            mode = .sandbox(panel)
            return [.sandboxFaults(url: panel.url, faults: faults, delayMs: panel.delayMs)]
        case .typeDelay:
            guard panel.hasAnswered else { return [] }
            panel.delayField = TextField(text: String(panel.delayMs), isFocused: true, maxLength: 5)
            message = nil
        case .longerDelay, .shorterDelay:
            guard panel.hasAnswered else { return [] }
            let step = command == .longerDelay ? 1000 : -1000
            return sendDelay(min(60_000, max(0, panel.delayMs + step)), panel)
        case .back:
            if singleScreen {
                isQuitting = true
                return [.quit]
            }
            mode = .sessions
            message = nil
            return []
        case .help:
            overlay = .help
        case .quit:
            isQuitting = true
            return [.quit]
        default:
            break
        }
        mode = .sandbox(panel)
        return []
    }

    /// Typing the delay after `d`: Enter sends it, Esc forgets it; the delay shown changes with the sandbox's answer.
    private mutating func delayKey(_ request: KeyRequest, _ field: TextField, _ panel: SandboxPanel) -> [AppEffect] {
        var panel = panel
        switch request {
        case .enter:
            let text = field.text.trimmingCharacters(in: .whitespaces)
            guard let delay = Int(text), (0...60_000).contains(delay) else {
                message = Message(
                    "The delay is a whole number of milliseconds from 0 to 60000 (typed: \(text)).", isError: true)
                return []
            }
            panel.delayField = nil
            return sendDelay(delay, panel)
        case .escape, .interrupt:
            panel.delayField = nil
            message = nil
        default:
            if let edited = field.applying(request) { panel.delayField = edited }
        }
        mode = .sandbox(panel)
        return []
    }

    /// Sends the faults that are on with slow-provider's delay set to `delay`.
    private mutating func sendDelay(_ delay: Int, _ panel: SandboxPanel) -> [AppEffect] {
        var panel = panel
        guard !panel.isWaiting else {
            message = Message("Waiting for the sandbox to answer…")
            mode = .sandbox(panel)
            return []
        }
        panel.isWaiting = true
        panel.requests += 1
        message = nil
        mode = .sandbox(panel)
        return [.sandboxFaults(url: panel.url, faults: panel.onInOrder, delayMs: delay)]
    }

    /// On the clock's tick: the open panel reads the sandbox again every `pollSeconds`, unless a request is out.
    mutating func sandboxPollDue() -> [AppEffect] {
        guard case .sandbox(var panel) = mode, panel.hasAnswered, !panel.isWaiting, panel.pollOut == nil,
            panel.polledAt.map({ now.timeIntervalSince($0) >= SandboxPanel.pollSeconds }) ?? true
        else { return [] }
        panel.requests += 1
        panel.pollOut = panel.requests
        panel.polledAt = now
        mode = .sandbox(panel)
        return [.pollSandbox(url: panel.url, request: panel.requests)]
    }

    /// The panel's own read answered: taken only when nothing was sent since, and said only when it changed what
    /// the panel showed (someone switched elsewhere) or the sandbox stopped or started answering.
    mutating func sandboxPolled(_ request: Int, _ answer: Result<SandboxPanel.Report, SandboxPanel.Unreachable>) {
        guard case .sandbox(var panel) = mode else { return }
        if panel.pollOut == request { panel.pollOut = nil }
        guard request == panel.requests, !panel.isWaiting else {
            mode = .sandbox(panel)
            return  // a switch or read went out after this poll: its answer is newer
        }
        switch answer {
        case .success(let report):
            let changed = panel.differs(from: report)
            let wasFailing = panel.pollFailed
            panel.pollFailed = false
            panel.take(report)
            mode = .sandbox(panel)
            if changed {
                message = Message("Changed elsewhere: \(Self.sandboxSummary(panel)).")
            } else if wasFailing {
                message = Message("The sandbox answers again.")
            }
        case .failure(let failure):
            let first = !panel.pollFailed
            panel.pollFailed = true
            mode = .sandbox(panel)
            if first { message = Message(failure.reason, isError: true) }
        }
    }

    /// What is on, as the messages say it; slow-provider with its delay.
    static func sandboxSummary(_ panel: SandboxPanel) -> String {
        guard !panel.on.isEmpty else { return "no faults on" }
        return panel.onInOrder.map { $0 == "slow-provider" ? "slow-provider (\(panel.delayMs) ms)" : $0 }
            .joined(separator: ", ")
    }

    /// The admin route answered; `switched` when it was a change rather than a read.
    mutating func sandboxAnswered(_ report: SandboxPanel.Report, switched: Bool) {
        guard case .sandbox(var panel) = mode else { return }
        let first = !panel.hasAnswered
        let (onBefore, delayBefore) = (panel.on, panel.delayMs)
        panel.take(report)
        mode = .sandbox(panel)
        let now = panel.on.isEmpty ? "no faults on" : panel.onInOrder.joined(separator: ", ")
        if switched, panel.on == onBefore, report.delayMs != delayBefore {
            message = Message("slow-provider now waits \(report.delayMs) ms at the sandbox.")
        } else if switched {
            message = Message("Switched at the sandbox: \(now).")
        } else {
            message = first ? nil : Message("Read the sandbox again: \(now).")
        }
    }

    /// The sandbox could not be reached or refused: the boxes stay as it last said.
    mutating func sandboxFailed(_ text: String) {
        guard case .sandbox(var panel) = mode else { return }
        panel.isWaiting = false
        mode = .sandbox(panel)
        message = Message(text, isError: true)
    }
}
