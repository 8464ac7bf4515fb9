import Testing

@testable import TerminalUI

@Suite struct TooSmallScreenTests {
    @Test func oneColumnShortShowsTheMessage() {
        let buffer = TooSmallScreen.frame(rows: 16, cols: 59) { $0.write("a screen", row: 0, col: 0) }
        expectScreen(
            buffer,
            """







                    Terminal too small: need 60×16, have 59×16








            """)
    }

    @Test func aNarrowTerminalGetsTheMessageWrapped() {
        let buffer = TooSmallScreen.frame(rows: 10, cols: 40) { $0.write("a screen", row: 0, col: 0) }
        expectScreen(
            buffer,
            """




              Terminal too small: need 60×16, have
                             40×10




            """)
    }

    @Test func atTheMinimumTheScreenIsDrawn() {
        let buffer = TooSmallScreen.frame(rows: 16, cols: 60) { $0.write("a screen", row: 0, col: 0) }
        #expect(buffer.textLines()[0] == "a screen")
        #expect(!buffer.textDump().contains("too small"))
        #expect(!TooSmallScreen.fits(rows: 15, cols: 200))
    }
}
