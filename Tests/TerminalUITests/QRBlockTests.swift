import Testing

@testable import TerminalUI

@Suite struct QRBlockTests {
    /// A 5×5 pattern, not a real code: enough to check every pairing of upper and lower half.
    let matrix: [[Bool]] = ["11101", "10100", "11101", "00010", "10101"].map { $0.map { $0 == "1" } }

    /// Where the locale is not UTF-8: a module is two reversed (light) or plain (dark) blanks, one line a row.
    @Test func inASCIIEachModuleIsTwoColumnsOfOneLine() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        let block = QRBlock(modules: matrix, quietZone: 1, ascii: true)
        #expect(block.width == 14 && block.height == 7)
        block.draw(in: Rect(row: 2, col: 3, rows: 7, cols: 14), into: &buffer)
        let rows = ["0000000", "0111010", "0101000", "0111010", "0000100", "0101010", "0000000"]
        for (line, row) in rows.enumerated() {
            for (index, module) in row.enumerated() {
                let light = module == "0"
                for col in [3 + index * 2, 4 + index * 2] {
                    #expect(buffer[2 + line, col].text == " ")
                    #expect(buffer[2 + line, col].isReversed == light, "line \(line) module \(index)")
                }
            }
        }
        #expect(!buffer.textDump().contains { !$0.isASCII })
    }

    @Test func halfBlocksDrawTwoModuleRowsPerLine() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        buffer.write("Scan to sign in:", row: 0, col: 0)
        let block = QRBlock(modules: matrix, quietZone: 2)
        #expect(block.width == 9 && block.height == 5)
        block.draw(in: Rect(row: 1, col: 4, rows: 10, cols: 20), into: &buffer)
        expectScreen(
            buffer,
            """
            Scan to sign in:
                █████████
                ██ ▄ █▄██
                ██▄▄▄▀▄██
                ██▄█▄█▄██
                ▀▀▀▀▀▀▀▀▀


















            """)
    }

    @Test func aBlockThatDoesNotFitIsNotDrawnAtAll() {
        var buffer = ScreenBuffer(rows: 4, cols: 20)
        QRBlock(modules: matrix, quietZone: 2).draw(in: buffer.bounds, into: &buffer)
        #expect(buffer.textDump() == "\n\n\n")
    }
}
