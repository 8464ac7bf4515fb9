import AuthClient
import AuthCore
import Foundation

/// A trace file as `login --trace FILE` (or the TUI's export) wrote it: JSON lines, one step each, read strictly so
/// a truncated or foreign file is a one-line error naming the line, never a half-shown trace.
struct TraceDocument {
    let path: String
    let steps: [TraceStep]

    /// Traces are small (a sign-in is tens of steps); a file far larger is not one.
    static let maximumBytes = 8 << 20

    /// `name` stands for the file in messages about its content (the TUI's message line has room for the file's
    /// name, not a long path).
    init(path: String, shownAs name: String? = nil) throws(CommandFailure) {
        // Its size is checked before it is read, and no more than the cap is ever read (`/dev/zero` never ends).
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.bytes(path, limit: Self.maximumBytes)
        } catch .tooLarge {
            throw CommandFailure(.failed, "\(name ?? path) is larger than 8 MiB: not a sign-in trace")
        } catch {
            throw CommandFailure(.failed, "cannot read the trace \(path)")
        }
        try self.init(path: path, bytes: bytes, shownAs: name)
    }

    init(path: String, bytes: [UInt8], shownAs name: String? = nil) throws(CommandFailure) {
        self.path = path
        let decoder = JSONDecoder()
        var steps: [TraceStep] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            guard let step = try? decoder.decode(TraceStep.self, from: Data(line)) else {
                throw CommandFailure(
                    .failed,
                    "\(name ?? path) line \(index + 1) is not a trace step (a JSON object with kind, "
                        + "at, elapsedMs, summary and details)")
            }
            steps.append(step)
        }
        guard !steps.isEmpty else { throw CommandFailure(.failed, "\(name ?? path) holds no trace steps") }
        self.steps = steps
    }

    /// The step's endpoint by its last path segment (`token`, `jwks`, `otp_init`): what lines up a customer's
    /// trace at a real provider with one at the sandbox, whose hosts and paths differ.
    static func endpoint(_ step: TraceStep) -> String? {
        guard let url = step.details["url"]?.string else { return nil }
        let path = URLComponents(string: url)?.path ?? url
        return path.split(separator: "/").last.map(String.init)
    }

    /// The `error` (OAuth) or `message` (proxy) of a response's JSON body.
    static func responseError(_ step: TraceStep) -> String? {
        guard let body = step.details["body"] else { return nil }
        return body["error"]?.string ?? body["message"]?.string
    }

    static func status(_ step: TraceStep) -> Int? {
        step.details["status"]?.integer
    }

    /// The final error the attempt ended with: the last `result` step, unless it stored a session.
    var finalError: String? {
        guard let result = steps.last(where: { $0.kind == .result }) else { return nil }
        return result.details["error"]?.string ?? (result.summary.hasPrefix("stored session") ? nil : result.summary)
    }

    /// The final error's code (`invalid_grant`, `timeout`: `SignInError.code`); nil when the attempt did not end in
    /// an error, or when the trace was written before errors had codes.
    var finalCode: String? {
        finalError == nil ? nil : steps.last { $0.kind == .result }.flatMap(Self.errorCode)
    }

    /// Whether the final error is to be compared by its words: the trace was written before errors had codes.
    var comparesByWords: Bool { finalError != nil && finalCode == nil }

    /// The error code a `result`, `notice` or refusing `receiver` step recorded (the `exit` step's `code` is a
    /// number, not this).
    static func errorCode(_ step: TraceStep) -> String? {
        guard [.result, .notice, .receiver].contains(step.kind) else { return nil }
        return step.details["code"]?.string
    }

    /// The name of the state a `transition` step went to (`totpRequired(waiting)`).
    static func target(_ step: TraceStep) -> String? {
        guard step.kind == .transition else { return nil }
        if let name = step.details["to"]?.string { return name }
        return step.summary.components(separatedBy: " → ").last
    }

    /// The exit code the command ended with, when the trace recorded it (an `exit` step).
    var exitCode: Int? {
        steps.last { $0.kind == .exit }?.details["code"]?.integer
    }

    /// The backend the sign-in ran through, as the writer recorded it on its `exit` step; nil in a trace written
    /// before that was recorded.
    var backend: String? {
        steps.last { $0.kind == .exit }?.details["backend"]?.string
    }

    /// Whether the TUI exported the trace (it closes it without an exit code, having none).
    var exportedByTUI: Bool {
        steps.last { $0.kind == .exit }?.details["writer"]?.string == "tui"
    }
}
