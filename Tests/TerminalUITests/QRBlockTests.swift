import Testing

@testable import TerminalUI

@Suite struct QRBlockTests {
    /// A 5×5 pattern, not a real code: enough to check every pairing of upper and lower half.
    let matrix: [[Bool]] = ["11101", "10100", "11101", "00010", "10101"].map { $0.map { $0 == "1" } }

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
