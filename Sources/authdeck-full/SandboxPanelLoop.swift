import AuthClient
import AuthCore
import Foundation
import Sandbox
import TerminalUI

/// `authdeck sandbox panel`: the Sandbox panel on the terminal, switching the faults of a running sandbox through
/// its admin route (found as `sandbox faults` finds it) until q or Esc.
enum SandboxPanelLoop {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        _ = try arguments.positionals(atMost: 1)
        let base = try SandboxFaultsCommand.sandboxURL(arguments, global)
        let transport = URLSessionTransport(timeout: 10)
        let first = try SandboxFaultsCommand.send(OutgoingRequest(url: base + "/sandbox/faults"), transport)
        let listed = first["available"] as? [[String: Any]] ?? []
        let available = listed.compactMap { entry -> SandboxFaultsPanel.Fault? in
            guard let name = entry["name"] as? String else { return nil }
            return SandboxFaultsPanel.Fault(name: name, summary: entry["summary"] as? String ?? "")
        }
        let terminal: Terminal
        do {
            terminal = try Terminal()
        } catch {
            throw CommandFailure(.failed, "the panel needs a terminal; `authdeck sandbox faults NAME,…` switches "
                + "faults from scripts")
        }
        defer { terminal.restore() }
        var panel = SandboxFaultsPanel(sandbox: base, faults: available, on: Set(first["faults"] as? [String] ?? []),
                                       delayMs: first["delayMs"] as? Int ?? SandboxFaults.Selection.defaultDelayMs)
        while true {
            var buffer = ScreenBuffer(rows: terminal.rows, cols: terminal.cols)
            panel.render(into: &buffer)
            terminal.present(buffer)
            guard let key = terminal.nextKey(timeoutMilliseconds: nil) else { continue }
            switch panel.handle(key) {
            case .none:
                break
            case .quit:
                return .done
            case .refresh:
                if case .redraw = key { terminal.repaintAll() }
                exchange(&panel, OutgoingRequest(url: base + "/sandbox/faults"), transport, note: "read the sandbox")
            case .apply(let names):
                let selection: [String: Any] = ["faults": names.sorted(), "delayMs": panel.delayMs]
                let body = try? JSONSerialization.data(withJSONObject: selection)
                var request = OutgoingRequest.json(base + "/sandbox/faults", body.map { Array($0) } ?? [],
                                                   headers: [("X-Authdeck-Sandbox", "admin")])
                request.method = "PUT"
                exchange(&panel, request, transport, note: "switched")
            }
        }
    }

    private static func exchange(_ panel: inout SandboxFaultsPanel, _ request: OutgoingRequest,
                                 _ transport: URLSessionTransport, note: String) {
        do throws(CommandFailure) {
            let answer = try SandboxFaultsCommand.send(request, transport)
            let names = answer["faults"] as? [String] ?? []
            panel.sandboxAnswered(on: Set(names), delayMs: answer["delayMs"] as? Int ?? panel.delayMs,
                                  note: "\(note): " + (names.isEmpty ? "no faults on" : names.joined(separator: ",")))
        } catch {
            panel.sandboxFailed(error.message)
        }
    }
}
