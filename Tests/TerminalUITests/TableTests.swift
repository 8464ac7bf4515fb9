import Testing

@testable import TerminalUI

@Suite struct TableTests {
    /// The Sessions screen's shape: a title, the table scrolled so the selected row shows, a status bar.
    func sessionsScreen(selectedRow: Int, scrollOffset: Int) -> (ScreenBuffer, Table, Rect) {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        buffer.write("Sessions", row: 0, col: 0, style: Style(attributes: .bold))
        let table = Table(
            columns: sampleColumns, rows: sampleSessions, selectedRow: selectedRow,
            scrollOffset: scrollOffset)
        let rect = Rect(row: 2, col: 0, rows: 6, cols: 80)
        table.draw(in: rect, into: &buffer)
        StatusBar(
            left: "unlocked until 14:05", right: "30 sessions",
            hints: [.init("q", "quit"), .init("n", "new"), .init("?", "help")]
        )
        .draw(in: Rect(row: 23, col: 0, rows: 1, cols: 80), into: &buffer)
        return (buffer, table, rect)
    }

    @Test func selectionBelowTheViewScrollsJustEnoughToShowIt() {
        // Row 6 (session-7) is below the five visible rows, so the view moves down until it is the last row
        // shown: session-3 to session-7.
        let (buffer, _, _) = sessionsScreen(selectedRow: 6, scrollOffset: 0)
        expectScreen(
            buffer,
            """
            Sessions

            KEY          PROVIDER USER                                                STATUS
            session-3    discord  user3@example.com                                  expired
            session-4    google   user4@example.com                                   active
            session-5    discord  user5@example.com                                 expiring
            session-6    google   user6@example.com                                  expired
            session-7    discord  user7@example.com                                   active















             unlocked until 14:05  q quit  n new  ? help                        30 sessions
            """)
    }

    @Test func selectedRowIsReversedAndOthersAreNot() {
        let (buffer, _, _) = sessionsScreen(selectedRow: 6, scrollOffset: 0)
        // session-7 is the fifth row shown, under the header at line 2.
        for col in [0, 40, 79] {
            #expect(buffer[7, col].isReversed)
            #expect(!buffer[6, col].isReversed)
            #expect(!buffer[3, col].isReversed)
        }
        #expect(!buffer[2, 0].isReversed)
        #expect(buffer[2, 0].isBold)
    }

    @Test func statusColumnCarriesEachRowsColour() {
        let (buffer, _, _) = sessionsScreen(selectedRow: 6, scrollOffset: 0)
        #expect(buffer[3, 79].foreground == .expired)  // session-3
        #expect(buffer[4, 79].foreground == .active)  // session-4
        #expect(buffer[5, 79].foreground == .expiring)  // session-5
        #expect(buffer[3, 0].foreground == .normal)
    }

    @Test func scrollOffsetMovesOnlyWhenTheSelectionLeavesTheView() {
        // Inside the view: stay.
        #expect(Table.scrollOffset(current: 3, selected: 5, visibleRows: 5, rowCount: 30) == 3)
        // Below: the selection becomes the last visible row.
        #expect(Table.scrollOffset(current: 3, selected: 10, visibleRows: 5, rowCount: 30) == 6)
        // Above: the selection becomes the first visible row.
        #expect(Table.scrollOffset(current: 6, selected: 2, visibleRows: 5, rowCount: 30) == 2)
        // Rows deleted under the view: no blank lines while rows above are hidden.
        #expect(Table.scrollOffset(current: 25, selected: nil, visibleRows: 5, rowCount: 8) == 3)
        #expect(Table.scrollOffset(current: 4, selected: 0, visibleRows: 5, rowCount: 0) == 0)
    }

    @Test func aClickMapsToTheRowDrawnThere() {
        let (_, table, rect) = sessionsScreen(selectedRow: 6, scrollOffset: 0)
        #expect(table.rowIndex(atScreenRow: 3, col: 10, in: rect) == 2)  // session-3
        #expect(table.rowIndex(atScreenRow: 7, col: 10, in: rect) == 6)  // session-7
        #expect(table.rowIndex(atScreenRow: 2, col: 10, in: rect) == nil)  // the header
        #expect(table.rowIndex(atScreenRow: 8, col: 10, in: rect) == nil)  // below the table
    }

    @Test func onlyVisibleRowsAreAskedFor() {
        var asked: [Int] = []
        let table = Table(columns: sampleColumns, rowCount: 100_000, selectedRow: 50_000) { index in
            asked.append(index)
            return [Table.Item("s\(index)")]
        }
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        table.draw(in: Rect(row: 0, col: 0, rows: 4, cols: 80), into: &buffer)
        #expect(asked == [49_998, 49_999, 50_000])
        #expect(buffer.textLines()[3].hasPrefix("s50000"))
    }

    @Test func longCellTextIsCutWithAnEllipsisInsideItsColumn() {
        let table = Table(columns: sampleColumns, rows: [["a-very-long-session-key", "google", "u", "active"]])
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        table.draw(in: Rect(row: 0, col: 0, rows: 2, cols: 80), into: &buffer)
        #expect(buffer.textLines()[1].hasPrefix("a-very-long… google"))
    }

    @Test func anEmptyTableShowsItsMessage() {
        let table = Table(columns: sampleColumns, rows: [], emptyMessage: "No sessions yet: press n to sign in")
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        table.draw(in: Rect(row: 0, col: 0, rows: 5, cols: 80), into: &buffer)
        #expect(buffer.textLines()[1] == "No sessions yet: press n to sign in")
        #expect(buffer[1, 0].foreground == .dim)
    }
}
