import AuthClient
import AuthCore
import Foundation

/// A trace on a plain terminal (`trace show FILE`): a heading with how the attempt ended, then one numbered line a
/// step (time, kind, summary), with the details of the steps asked for (`--expand N`, `--all`) indented below as
/// JSON. The steps are shown as the file holds them: already redacted, so nothing here can show a secret.
enum TraceView {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static let prettyEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return encoder
    }()

    static func text(_ document: TraceDocument, expanded: Set<Int>) -> String {
        let steps = document.steps
        let seconds = String(format: "%.3f", (steps.last?.elapsedMs ?? 0) / 1000)
        let ending = document.finalError ?? (steps.contains { $0.kind == "result" } ? "signed in" : "no result step")
        let exit = document.exitCode.map { " (exit \($0))" } ?? ""
        var text = "\(document.path): \(steps.count) steps in \(seconds) s, started \(steps.first?.at ?? "?")\n"
        text += "ended: \(ending)\(exit)\n\n"
        let width = String(steps.count).count
        for (index, step) in steps.enumerated() {
            let number = String(index + 1).leftPadded(to: width)
            let time = ("+" + String(format: "%.3f", step.elapsedMs / 1000) + "s").leftPadded(to: 10)
            let mark = step.details.isEmpty ? " " : (expanded.contains(index + 1) ? "-" : "+")
            text += "\(mark)\(number) \(time)  \(step.kind.padded(to: 10)) \(sanitized(step.summary))\n"
            if expanded.contains(index + 1), !step.details.isEmpty {
                let json = (try? prettyEncoder.encode(JSONValue.object(step.details)))
                    .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                for line in json.split(separator: "\n") {
                    text += String(repeating: " ", count: width + 14) + sanitized(String(line)) + "\n"
                }
            }
        }
        text += "\n+ has details: --expand N[,N…] shows them, --all shows every step's.\n"
        return text
    }

    /// No control characters from a file reach the terminal (a crafted trace could otherwise move the cursor).
    static func sanitized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
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
