/// A text written across whole screen rows from column 0, which the terminal should treat as one line.
public struct LogicalLine: Hashable, Sendable {
    /// The first row.
    public var row: Int
    /// The text, ASCII only.
    public var text: String
}
