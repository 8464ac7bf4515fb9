import Testing

@testable import TerminalUI

@Suite struct StatusBarTests {
    let bar = StatusBar(
        left: "unlocked until 14:05 (secret service)", right: "12:00",
        hints: [.init("q", "quit"), .init("n", "new"), .init("r", "refresh"), .init("?", "help")])

    @Test func leftHintsAndRightShareTheLine() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        bar.draw(in: Rect(row: 23, col: 0, rows: 1, cols: 80), into: &buffer)
        #expect(
            buffer.textLines()[23]
                == " unlocked until 14:05 (secret service)  q quit  n new  r refresh  ? help  12:00")
        #expect(buffer.textLines()[22] == "")
    }

    @Test func theBarIsReversedAndKeysAreBold() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        bar.draw(in: Rect(row: 23, col: 0, rows: 1, cols: 80), into: &buffer)
        #expect(buffer[23, 0].isReversed && buffer[23, 79].isReversed)
        #expect(buffer[23, 40].text == "q" && buffer[23, 40].isBold)
        #expect(!buffer[23, 42].isBold)
    }

    @Test func hintsThatDoNotFitAreLeftOutWhole() {
        var buffer = ScreenBuffer(rows: 1, cols: 60)
        bar.draw(in: buffer.bounds, into: &buffer)
        // "n new" would end at column 52, too close to the clock at 54.
        #expect(buffer.textDump() == " unlocked until 14:05 (secret service)  q quit        12:00")
    }

    @Test func aLockedStoreShowsInTheErrorColour() {
        var buffer = ScreenBuffer(rows: 1, cols: 60)
        StatusBar(left: "store locked", leftColor: .error).draw(in: buffer.bounds, into: &buffer)
        #expect(buffer[0, 1].foreground == .error)
        #expect(buffer[0, 1].isReversed)
    }
}
