import AuthClient
import AuthCore
import Foundation
import TerminalUI

/// A trace printed rather than shown (`trace show FILE` into a pipe, with `--plain`, `--expand N` or `--all`): a
/// heading with how the attempt ended, then one numbered line a step (time, kind, summary), with the details of the
/// steps asked for indented below, in the Trace screen's words and JSON. The steps are shown as the file holds
/// them: already redacted, so nothing here can show a secret.
enum TraceView {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func text(_ document: TraceDocument, expanded: Set<Int>) -> String {
        let steps = document.steps
        let seconds = String(format: "%.3f", (steps.last?.elapsedMs ?? 0) / 1000)
        var text = "\(document.path): \(steps.count) steps in \(seconds) s, started \(steps.first?.at ?? "?")\n"
        text += "ended: \(document.ending)\n\n"
        let width = String(steps.count).count
        for (index, step) in steps.enumerated() {
            let number = String(index + 1).leftPadded(to: width)
            let time = ("+" + String(format: "%.3f", step.elapsedMs / 1000) + "s").leftPadded(to: 10)
            let mark = step.details.isEmpty ? " " : (expanded.contains(index + 1) ? "▾" : "▸")
            text += "\(mark)\(number) \(time)  \(step.kind.rawValue.padded(to: 10)) \(sanitized(step.summary))\n"
            if expanded.contains(index + 1) {
                for line in TraceLine.detailLines(step.details) {
                    text += String(repeating: " ", count: width + 14) + sanitized(line) + "\n"
                }
            }
        }
        text += "\n▸ has details: --expand N[,N…] shows them, --all shows every step's.\n"
        return text
    }

    /// No control characters from a file reach the terminal (a crafted trace could otherwise move the cursor).
    static func sanitized(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) ? "?" : scalar
                }))
    }
}

extension String {
    /// The string after spaces up to `width` characters (never truncated).
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
