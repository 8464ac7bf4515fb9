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
            message = nil
            mode = .sandbox(panel)
            return [.sandboxFaults(url: panel.url, faults: faults, delayMs: panel.delayMs)]
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

    /// The admin route answered; `switched` when it was a change rather than a read.
    mutating func sandboxAnswered(_ report: SandboxPanel.Report, switched: Bool) {
        guard case .sandbox(var panel) = mode else { return }
        let first = !panel.hasAnswered
        panel.take(report)
        mode = .sandbox(panel)
        let now = panel.on.isEmpty ? "no faults on" : panel.onInOrder.joined(separator: ", ")
        if switched {
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
