import AuthClient
import AuthCore
import Foundation
import TerminalUI

/// `trace show FILE` on a terminal: the file in the Trace screen's look, read-only, until q or Esc.
enum TraceViewerLoop {
    /// False when there is no terminal to take over (the caller prints the plain rendering instead).
    static func run(_ document: TraceDocument) -> Bool {
        let terminal: Terminal
        do {
            terminal = try Terminal()
        } catch {
            return false
        }
        defer { terminal.restore() }
        var view = TraceFileView(title: document.path, ending: ending(document),
                                 endedInError: document.finalError != nil, steps: steps(document))
        var running = true
        while running {
            var buffer = ScreenBuffer(rows: terminal.rows, cols: terminal.cols)
            view.render(into: &buffer)
            terminal.present(buffer)
            guard let key = terminal.nextKey(timeoutMilliseconds: nil) else { continue }
            if case .redraw = key { terminal.repaintAll() }
            running = view.handle(key)
        }
        return true
    }

    static func ending(_ document: TraceDocument) -> String {
        let exit = document.exitCode.map { " (exit \($0))" } ?? ""
        if let error = document.finalError { return error + exit }
        return (document.steps.contains { $0.kind == "result" } ? "signed in" : "no result step") + exit
    }

    /// The file's steps as the view shows them: details as indented JSON lines, errors marked.
    static func steps(_ document: TraceDocument) -> [TraceFileView.Step] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return document.steps.map { step in
            let json = step.details.isEmpty ? "" : (try? encoder.encode(JSONValue.object(step.details)))
                .map { String(decoding: $0, as: UTF8.self) } ?? ""
            let failed = (step.kind == "result" && !step.summary.hasPrefix("stored session"))
                || (step.kind == "receiver" && step.summary.contains("refused"))
                || (step.kind == "response" && (TraceDocument.status(step) ?? 0) >= 400)
                || (step.kind == "exit" && step.details["code"]?.integer != 0)
            return TraceFileView.Step(
                time: "+" + String(format: "%.3f", step.elapsedMs / 1000) + "s", kind: step.kind,
                summary: step.summary, details: json.split(separator: "\n").map(String.init), isError: failed)
        }
    }
}
