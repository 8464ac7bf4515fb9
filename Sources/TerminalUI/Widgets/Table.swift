/// A scrolling table: a header line, then one line per row, the row under the cursor reversed.
///
/// Rows are asked for by index, only for the lines on screen, so a table of 100,000 sessions costs no more to
/// draw than one of twenty. The screen keeps `scrollOffset` in its state and stores back what
/// `scrollOffset(in:)` answers, so the view moves only when the cursor leaves it (as in tig and htop).
public struct Table: Widget {
    /// One column: its heading, how wide it is, and which side its text keeps to.
    public struct Column: Hashable, Sendable {
        public var title: String
        public var width: Width
        public var alignment: Alignment

        public init(_ title: String, width: Width, alignment: Alignment = .left) {
            self.title = title
            self.width = width
            self.alignment = alignment
        }
    }

    /// How a column's width is chosen.
    public enum Width: Hashable, Sendable {
        /// Exactly this many columns.
        case fixed(Int)
        /// A share of what the fixed columns leave, never less than `minimum`.
        case flexible(minimum: Int)
    }

    /// The text of one cell and its colour (a session's status in green, yellow or red).
    public struct Item: Hashable, Sendable, ExpressibleByStringInterpolation {
        public var text: String
        public var color: Color
        public var attributes: TextAttributes

        public init(_ text: String, color: Color = .normal, attributes: TextAttributes = []) {
            self.text = text
            self.color = color
            self.attributes = attributes
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }
    }

    public var columns: [Column]
    public var rowCount: Int
    /// The cells of one row, by row index; called only for rows on screen.
    public var row: (Int) -> [Item]
    /// The row under the cursor, if any.
    public var selectedRow: Int?
    /// The first row shown, as the screen last stored it.
    public var scrollOffset: Int
    public var showsHeader: Bool
    /// Shown in place of rows when there are none ("No sessions yet — press n to sign in").
    public var emptyMessage: String?

    public init(
        columns: [Column], rowCount: Int, selectedRow: Int? = nil, scrollOffset: Int = 0,
        showsHeader: Bool = true, emptyMessage: String? = nil, row: @escaping (Int) -> [Item]
    ) {
        self.columns = columns
        self.rowCount = max(0, rowCount)
        self.row = row
        self.selectedRow = selectedRow
        self.scrollOffset = scrollOffset
        self.showsHeader = showsHeader
        self.emptyMessage = emptyMessage
    }

    public init(
        columns: [Column], rows: [[Item]], selectedRow: Int? = nil, scrollOffset: Int = 0,
        showsHeader: Bool = true, emptyMessage: String? = nil
    ) {
        self.init(
            columns: columns, rowCount: rows.count, selectedRow: selectedRow, scrollOffset: scrollOffset,
            showsHeader: showsHeader, emptyMessage: emptyMessage
        ) { rows[$0] }
    }

    // MARK: - Layout

    /// Lines available for rows once the header is drawn.
    public func visibleRowCount(in rect: Rect) -> Int {
        max(0, rect.rows - (showsHeader ? 1 : 0))
    }

    /// The first row to show: the stored offset, moved just enough to keep the selected row in view.
    public func scrollOffset(in rect: Rect) -> Int {
        Table.scrollOffset(
            current: scrollOffset, selected: selectedRow, visibleRows: visibleRowCount(in: rect),
            rowCount: rowCount)
    }

    /// The scrolling rule on its own: keep `selected` visible, move as little as possible, never show blank
    /// lines past the end while there are rows above.
    public static func scrollOffset(current: Int, selected: Int?, visibleRows: Int, rowCount: Int) -> Int {
        guard visibleRows > 0 && rowCount > 0 else { return 0 }
        var offset = min(max(0, current), max(0, rowCount - visibleRows))
        if let selected = selected.map({ min(max(0, $0), rowCount - 1) }) {
            if selected < offset { offset = selected }
            if selected >= offset + visibleRows { offset = selected - visibleRows + 1 }
        }
        return offset
    }

    /// The row index drawn at a screen line, for mouse clicks; nil on the header or below the last row.
    public func rowIndex(atScreenRow screenRow: Int, col: Int, in rect: Rect) -> Int? {
        guard rect.contains(row: screenRow, col: col) else { return nil }
        let line = screenRow - rect.row - (showsHeader ? 1 : 0)
        guard line >= 0 else { return nil }
        let index = scrollOffset(in: rect) + line
        return index < rowCount ? index : nil
    }

    /// Widths of the columns for a table `totalWidth` wide, one space between columns.
    public func columnWidths(totalWidth: Int) -> [Int] {
        let gaps = max(0, columns.count - 1)
        var fixed = 0
        var flexibleCount = 0
        for column in columns {
            switch column.width {
            case .fixed(let width): fixed += width
            case .flexible: flexibleCount += 1
            }
        }
        let spare = max(0, totalWidth - fixed - gaps)
        var handedOut = 0
        var flexibleSeen = 0
        return columns.map { column in
            switch column.width {
            case .fixed(let width):
                return width
            case .flexible(let minimum):
                flexibleSeen += 1
                // The last flexible column takes the remainder so the table fills its rect exactly.
                let share = flexibleSeen == flexibleCount ? spare - handedOut : spare / flexibleCount
                handedOut += share
                return max(minimum, share)
            }
        }
    }

    // MARK: - Drawing

    public func draw(in rect: Rect, into buffer: inout ScreenBuffer) {
        guard !rect.isEmpty else { return }
        let widths = columnWidths(totalWidth: rect.cols)
        var line = rect.row
        if showsHeader {
            let titles = columns.map { Item($0.title, color: .accent, attributes: .bold) }
            drawLine(titles, widths: widths, row: line, in: rect, into: &buffer, selected: false)
            line += 1
        }
        let visible = visibleRowCount(in: rect)
        if rowCount == 0 {
            if let emptyMessage, visible > 0 {
                buffer.write(
                    emptyMessage, row: line, col: rect.col, style: Style(foreground: .dim),
                    maxWidth: rect.cols)
            }
            return
        }
        let offset = scrollOffset(in: rect)
        for index in offset..<min(rowCount, offset + visible) {
            drawLine(row(index), widths: widths, row: line, in: rect, into: &buffer, selected: index == selectedRow)
            line += 1
        }
    }

    private func drawLine(
        _ items: [Item], widths: [Int], row: Int, in rect: Rect, into buffer: inout ScreenBuffer, selected: Bool
    ) {
        let lineRect = Rect(row: row, col: rect.col, rows: 1, cols: rect.cols)
        buffer.fill(lineRect)
        var col = rect.col
        for (index, width) in widths.enumerated() where col < rect.right {
            let item = index < items.count ? items[index] : Item("")
            let text = DisplayText.padded(
                DisplayText.sanitized(item.text), toWidth: width,
                alignment: columns[index].alignment)
            let style = Style(foreground: item.color, attributes: item.attributes)
            buffer.write(text, row: row, col: col, style: style, maxWidth: min(width, rect.right - col))
            col += width + 1
        }
        if selected {
            buffer.restyle(lineRect) { $0.attributes.insert(.reverse) }
            buffer.markFocus(row: row, col: rect.col - 1)
        }
    }
}
