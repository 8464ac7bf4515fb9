import AuthClient
import AuthCore
import Foundation
import TerminalUI

/// A trace file in the Trace screen's terms, and the words both the screen and the plain listing use for it.
extension TraceDocument {
    /// How the attempt ended: the final error, "signed in" or "no result step", then the exit code when the trace
    /// recorded one ("… (exit 4)").
    var ending: String {
        let exit = exitCode.map { " (exit \($0))" } ?? ""
        if let finalError { return finalError + exit }
        return (steps.contains { $0.kind == .result } ? "signed in" : "no result step") + exit
    }

    /// Whether a step went wrong, for the error colour: a result that stored nothing, a refused callback, an
    /// error status, a non-zero exit.
    static func failed(_ step: TraceStep) -> Bool {
        (step.kind == .result && !step.summary.hasPrefix("stored session"))
            || (step.kind == .receiver && step.summary.contains("refused"))
            || (step.kind == .response && (status(step) ?? 0) >= 400)
            || (step.kind == .exit && step.details["code"]?.integer != 0)
    }

    /// The file as the Trace screen shows it: each step a line at its offset from the start, its details the same
    /// indented JSON a sign-in run in the TUI expands to.
    var screenFile: TraceFile {
        let start = Date(timeIntervalSinceReferenceDate: 0)
        let lines = steps.map { step in
            TraceLine(
                time: start.addingTimeInterval(step.elapsedMs / 1000), kind: .step(step.kind.rawValue),
                text: step.summary, isError: Self.failed(step), details: TraceLine.detailLines(step.details))
        }
        return TraceFile(
            path: path, ending: ending, endedInError: finalError != nil || (exitCode ?? 0) != 0,
            startedAt: start, lines: lines)
    }

    /// `o` on the Trace screen: the file read and checked, or the one-line reason it cannot be shown.
    static func screenEvent(path: String) -> AppEvent {
        do throws(CommandFailure) {
            let name = (path as NSString).lastPathComponent
            return .traceFileOpened(try TraceDocument(path: path, shownAs: name).screenFile)
        } catch {
            return .traceFileFailed(error.message)
        }
    }
}
