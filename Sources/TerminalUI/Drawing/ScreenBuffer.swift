/// The whole screen as a grid of cells: what screens render into and what the driver copies to the terminal.
///
/// Every write goes through `DisplayText.sanitized`, clips at the buffer's edge (or a given width), and keeps
/// wide graphemes whole: one that would straddle the edge becomes a space, and overwriting half of one blanks
/// the other half.
public struct ScreenBuffer: Hashable, Sendable {
    public let rows: Int
    public let cols: Int
    private var cells: [Cell]
    /// Texts written across whole rows from column 0 (a URL): the driver prints them again as one line the
    /// terminal wraps itself, so a mouse selection or tmux's copy mode takes them whole.
    public private(set) var logicalLines: [LogicalLine] = []
    /// The theme wants focus and selection marked with `>` besides reverse video (monochrome): widgets read it here,
    /// so every one drawing into the frame follows the theme without being told.
    public var marksFocus = false

    public init(rows: Int, cols: Int, style: Style = .plain) {
        self.rows = max(0, rows)
        self.cols = max(0, cols)
        cells = Array(repeating: .blank(style), count: self.rows * self.cols)
    }

    /// The whole screen as a rectangle.
    public var bounds: Rect { Rect(row: 0, col: 0, rows: rows, cols: cols) }

    public subscript(row: Int, col: Int) -> Cell {
        precondition(row >= 0 && row < rows && col >= 0 && col < cols, "cell \(row),\(col) is off the screen")
        return cells[row * cols + col]
    }

    // MARK: - Drawing

    /// Writes ASCII `text` from column 0 of `row` on, `cols` characters a row, in the plain style, and records it as
    /// one logical line. Returns the rows used, 0 when it does not fit in `maxRows` (nothing is written then).
    @discardableResult
    public mutating func writeLogicalLine(_ text: String, row: Int, maxRows: Int) -> Int {
        let characters = Array(DisplayText.sanitized(text))
        guard cols > 0, !characters.isEmpty, characters.allSatisfy({ $0.isASCII }) else { return 0 }
        let used = (characters.count + cols - 1) / cols
        guard used <= maxRows, row >= 0, row + used <= rows else { return 0 }
        fill(Rect(row: row, col: 0, rows: used, cols: cols))
        for index in 0..<used {
            let chunk = characters[(index * cols)..<min(characters.count, (index + 1) * cols)]
            write(String(chunk), row: row + index, col: 0)
        }
        logicalLines.append(LogicalLine(row: row, text: String(characters)))
        return used
    }

    /// Whether the cells still show `line` as written (nothing was drawn over it since).
    public func shows(_ line: LogicalLine) -> Bool {
        let characters = Array(line.text)
        for (index, character) in characters.enumerated() {
            let row = line.row + index / cols
            let col = index % cols
            guard row < rows, self[row, col].text == String(character), self[row, col].style == .plain else {
                return false
            }
        }
        return true
    }

    /// Writes the focus marker `>` at `row`, `col` (a column the line leaves blank) when the theme marks focus.
    public mutating func markFocus(row: Int, col: Int) {
        guard marksFocus, col >= 0 else { return }
        write(">", row: row, col: col, style: Style(attributes: [.bold, .reverse]))
    }

    /// Blanks the whole screen.
    public mutating func clear(style: Style = .plain) {
        fill(bounds, style: style)
    }

    /// Blanks a rectangle (clipped to the screen) in the given style, for dialogs and selection bars.
    public mutating func fill(_ rect: Rect, style: Style = .plain) {
        guard let area = onScreen(rect) else { return }
        for row in area.rows { for col in area.cols { put(.blank(style), row: row, col: col) } }
    }

    /// Writes one line of text starting at `row`, `col`, using at most `maxWidth` columns (and never past the
    /// right edge). Returns the column after the last one written.
    @discardableResult
    public mutating func write(
        _ text: String, row: Int, col: Int, style: Style = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard row >= 0 && row < rows else { return col }
        let limit = min(cols, maxWidth.map { col + max(0, $0) } ?? cols)
        var column = col
        for character in DisplayText.sanitized(text) {
            if column >= limit { break }
            let width = DisplayText.width(of: character)
            if width == 0 {
                // A mark with no base in this string (or a zero-width space) has no cell to sit in; drawn on its
                // own, the terminal would merge it into whatever happens to be on screen before it.
                continue
            }
            if column < 0 {
                // Left of the screen: skip, but what the edge cuts of a wide grapheme leaves spaces behind.
                for blank in 0..<max(0, min(limit, column + width)) { put(.blank(style), row: row, col: blank) }
                column += width
                continue
            }
            if column + width > limit {
                put(.blank(style), row: row, col: column)  // never half a wide grapheme
                column += 1
                break
            }
            if width == 1 || !DisplayText.spansCells(character) {
                put(Cell(text: String(character), width: width, style: style), row: row, col: column)
                column += width
                continue
            }
            // A grapheme of several spacing scalars (a Devanagari cluster) takes a cell for each, as the terminal
            // draws it.
            for cell in DisplayText.cells(of: character) {
                put(Cell(text: cell.text, width: cell.width, style: style), row: row, col: column)
                column += cell.width
            }
        }
        return max(column, col)
    }

    /// Changes the look of cells without touching their text, for a selection bar over text already drawn.
    public mutating func restyle(_ rect: Rect, _ change: (inout Style) -> Void) {
        guard let area = onScreen(rect) else { return }
        for row in area.rows { for col in area.cols { change(&cells[row * cols + col].style) } }
    }

    /// The rows and columns of `rect` that lie on the screen; nil when none does.
    private func onScreen(_ rect: Rect) -> (rows: Range<Int>, cols: Range<Int>)? {
        let top = max(0, rect.row)
        let bottom = min(rows, rect.bottom)
        let left = max(0, rect.col)
        let right = min(cols, rect.right)
        guard top < bottom && left < right else { return nil }
        return (top..<bottom, left..<right)
    }

    // MARK: - Reading back

    /// Each row as plain text, trailing spaces trimmed: what a snapshot test compares.
    public func textLines() -> [String] {
        (0..<rows).map { row in
            var line = ""
            for col in 0..<cols {
                line += cells[row * cols + col].text
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The screen as plain text, one line per row.
    public func textDump() -> String {
        textLines().joined(separator: "\n")
    }

    // MARK: - Private

    /// Stores a narrow or wide cell (a wide one with its continuation) while keeping every wide grapheme
    /// already on screen paired with its continuation: a half that gets overwritten takes the other half along.
    private mutating func put(_ cell: Cell, row: Int, col: Int) {
        let span = cell.width == 2 ? 2 : 1
        guard row >= 0 && row < rows && col >= 0 && col + span <= cols else { return }
        let index = row * cols + col
        if cells[index].isContinuation && col > 0 {
            cells[index - 1] = .blank(cells[index - 1].style)
        }
        let last = index + span - 1
        if cells[last].width == 2 && col + span < cols {
            cells[last + 1] = .blank(cells[last + 1].style)
        }
        cells[index] = cell
        if span == 2 { cells[index + 1] = .continuation(cell.style) }
    }
}
