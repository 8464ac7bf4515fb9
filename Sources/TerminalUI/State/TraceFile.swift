import Foundation

/// A trace file open on the Trace screen (`authdeck trace show FILE`, or `o` there): a customer's exported sign-in,
/// shown as the screen shows one that ran here. The steps were redacted when the file was written, and the screen
/// never changes the file.
public struct TraceFile: Equatable, Sendable {
    public var path: String
    /// How the attempt ended, with the exit code when the file recorded one ("… (exit 4)").
    public var ending: String
    public var endedInError: Bool
    /// What the steps' offsets count from: each line's time is this plus the step's elapsed milliseconds.
    public var startedAt: Date
    public var lines: [TraceLine]

    public init(path: String, ending: String, endedInError: Bool, startedAt: Date, lines: [TraceLine]) {
        self.path = path
        self.ending = ending
        self.endedInError = endedInError
        self.startedAt = startedAt
        self.lines = lines
    }
}
