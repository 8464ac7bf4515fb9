/// A rectangle of the screen in cells, rows down and columns across from the top-left corner.
public struct Rect: Hashable, Sendable {
    public var row: Int
    public var col: Int
    public var rows: Int
    public var cols: Int

    public init(row: Int, col: Int, rows: Int, cols: Int) {
        self.row = row
        self.col = col
        self.rows = max(0, rows)
        self.cols = max(0, cols)
    }

    public var bottom: Int { row + rows }
    public var right: Int { col + cols }
    public var isEmpty: Bool { rows == 0 || cols == 0 }

    /// The rectangle shrunk by `by` cells on every side (a frame's inside).
    public func inset(by amount: Int) -> Rect {
        Rect(row: row + amount, col: col + amount, rows: rows - 2 * amount, cols: cols - 2 * amount)
    }

    /// A rectangle of the given size centred in this one, cut down to fit.
    public func centered(rows wanted: Int, cols wantedCols: Int) -> Rect {
        let height = min(wanted, rows)
        let width = min(wantedCols, cols)
        return Rect(row: row + (rows - height) / 2, col: col + (cols - width) / 2, rows: height, cols: width)
    }

    /// Whether a screen position (say, a mouse click) falls inside.
    public func contains(row point: Int, col column: Int) -> Bool {
        point >= row && point < bottom && column >= col && column < right
    }

    /// The first `count` rows, and what is left below them.
    public func splitTop(_ count: Int) -> (top: Rect, rest: Rect) {
        let taken = min(max(0, count), rows)
        return (
            Rect(row: row, col: col, rows: taken, cols: cols),
            Rect(row: row + taken, col: col, rows: rows - taken, cols: cols)
        )
    }

    /// The last `count` rows, and what is left above them.
    public func splitBottom(_ count: Int) -> (rest: Rect, bottom: Rect) {
        let taken = min(max(0, count), rows)
        return (
            Rect(row: row, col: col, rows: rows - taken, cols: cols),
            Rect(row: bottom - taken, col: col, rows: taken, cols: cols)
        )
    }
}
