import Testing

@testable import TerminalUI

/// A screen as later ones are written: state in, frame out, the too-small rule applied around it.
struct CountdownScreen: Screen {
    func render(_ state: Int, into buffer: inout ScreenBuffer) {
        buffer.write(
            "Waiting for the browser: \(state) s left", row: 1, col: 2,
            style: Style(foreground: state < 10 ? .expiring : .normal))
        StatusBar(left: "sandbox", hints: [.init("Esc", "cancel")])
            .draw(in: Rect(row: buffer.rows - 1, col: 0, rows: 1, cols: buffer.cols), into: &buffer)
    }
}

@Suite struct ScreenTests {
    @Test func aScreenRendersItsStateAndNothingElse() {
        let frame = TooSmallScreen.frame(rows: 16, cols: 60) { CountdownScreen().render(7, into: &$0) }
        #expect(frame.textLines()[1] == "  Waiting for the browser: 7 s left")
        #expect(frame[1, 2].foreground == .expiring)
        #expect(frame.textLines()[15] == " sandbox  Esc cancel")
        #expect(TooSmallScreen.frame(rows: 16, cols: 60) { CountdownScreen().render(7, into: &$0) } == frame)
    }

    @Test func theSameScreenTooSmallShowsOnlyTheMessage() {
        let frame = TooSmallScreen.frame(rows: 15, cols: 60) { CountdownScreen().render(7, into: &$0) }
        #expect(!frame.textDump().contains("Waiting"))
        #expect(frame.textDump().contains("Terminal too small: need 60×16, have 60×15"))
    }
}
