import Testing

@testable import TerminalUI

@Suite struct ScreenBufferTests {
    @Test func textIsClippedAtTheRightEdge() {
        var buffer = ScreenBuffer(rows: 2, cols: 10)
        let end = buffer.write("authdeck sessions", row: 0, col: 3)
        #expect(buffer.textLines() == ["   authdec", ""])
        #expect(end == 10)
    }

    @Test func writesStopAtMaxWidth() {
        var buffer = ScreenBuffer(rows: 1, cols: 20)
        buffer.write("abcdefgh", row: 0, col: 2, maxWidth: 3)
        #expect(buffer.textDump() == "  abc")
    }

    @Test func wideCharactersTakeTwoColumns() {
        var buffer = ScreenBuffer(rows: 1, cols: 20)
        let end = buffer.write("漢字ok", row: 0, col: 0)
        #expect(end == 6)
        #expect(buffer[0, 0].text == "漢" && buffer[0, 0].width == 2)
        #expect(buffer[0, 1].isContinuation)
        #expect(buffer[0, 2].text == "字")
        #expect(buffer[0, 4].text == "o")
        #expect(buffer.textDump() == "漢字ok")
    }

    @Test func emojiTakeTwoColumns() {
        var buffer = ScreenBuffer(rows: 1, cols: 20)
        let end = buffer.write("🔑x", row: 0, col: 0)
        #expect(end == 3)
        #expect(buffer[0, 1].isContinuation)
        #expect(buffer[0, 2].text == "x")
    }

    @Test func aWideCharacterIsNeverSplitAtTheEdge() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        buffer.write("xxxxxxxxxx", row: 0, col: 0)
        buffer.write("abcdefgh漢", row: 0, col: 1)  // 漢 would need columns 9 and 10
        #expect(buffer[0, 9].text == " ")
        #expect(buffer[0, 9].width == 1)
        #expect(buffer.textDump() == "xabcdefgh")
    }

    @Test func aWideCharacterIsNeverSplitAtMaxWidth() {
        var buffer = ScreenBuffer(rows: 1, cols: 20)
        buffer.write("xxxxx", row: 0, col: 0)
        buffer.write("ab漢", row: 0, col: 0, maxWidth: 3)
        #expect(buffer[0, 2].text == " ")
        #expect(buffer[0, 3].text == "x")  // past maxWidth: untouched
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        buffer.write("漢字", row: 0, col: 0)
        buffer.write("x", row: 0, col: 1)  // the right half of 漢
        #expect(buffer[0, 0].text == " " && buffer[0, 0].width == 1)
        buffer.write("y", row: 0, col: 2)  // the left half of 字
        #expect(!buffer[0, 3].isContinuation)
        #expect(buffer.textDump() == " xy")
    }

    @Test func aWideCharacterOverAnotherKeepsItsContinuation() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        buffer.write("漢", row: 0, col: 0)
        buffer.write("字", row: 0, col: 0)
        #expect(buffer[0, 0].text == "字")
        #expect(buffer[0, 1].isContinuation)
        buffer.write("字", row: 0, col: 1)  // shifted by one: the first is cut in half
        #expect(buffer[0, 0].text == " ")
        #expect(buffer.textDump() == " 字")
    }

    @Test func controlCharactersAndEscapeSequencesAreStripped() {
        var buffer = ScreenBuffer(rows: 1, cols: 40)
        buffer.write("ok\u{1B}[2J\u{1B}]0;evil title\u{07}done\r\n\u{9B}31m!\u{7F}\u{08}\u{00}", row: 0, col: 0)
        #expect(buffer.textDump() == "okdone!")
    }

    @Test func bidiOverridesAreStripped() {
        var buffer = ScreenBuffer(rows: 1, cols: 40)
        buffer.write("user\u{202E}moc.elgoog", row: 0, col: 0)
        #expect(buffer.textDump() == "usermoc.elgoog")
    }

    @Test func combiningMarksStayWithTheirBase() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        let end = buffer.write("e\u{301}x\u{301}\u{302}!", row: 0, col: 0)
        #expect(end == 3)
        #expect(buffer[0, 0].text == "e\u{301}")
        #expect(buffer[0, 1].text == "x\u{301}\u{302}")
        #expect(buffer[0, 2].text == "!")
    }

    /// क्षि is one grapheme (क, virama, ष, vowel sign i) that the terminal draws in three cells: each spacing
    /// scalar takes one and the virama rides with the letter before it, as ncurses stores them.
    @Test func aClusterOfSeveralSpacingLettersTakesACellForEach() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        let end = buffer.write("क्षि!", row: 0, col: 0)
        #expect(end == 4)
        #expect(buffer[0, 0].text == "\u{915}\u{94D}" && buffer[0, 0].width == 1)
        #expect(buffer[0, 1].text == "\u{937}")
        #expect(buffer[0, 2].text == "\u{93F}")
        #expect(buffer[0, 3].text == "!")
        // Whole or not at all at the edge, like a wide grapheme.
        var narrow = ScreenBuffer(rows: 1, cols: 4)
        narrow.write("abcd", row: 0, col: 0)
        #expect(narrow.write("क्षि", row: 0, col: 2) == 3)
        #expect(narrow.textDump() == "ab d")
        // Cut by the left edge, what shows of it is blank.
        var left = ScreenBuffer(rows: 1, cols: 4)
        left.write("abcd", row: 0, col: 0)
        #expect(left.write("क्षिx", row: 0, col: -1) == 3)
        #expect(left.textDump() == "  xd")
    }

    @Test func aMarkJoinsItsBaseOnceTheControlCharacterBetweenThemIsStripped() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        // The BEL keeps the mark a grapheme of its own until it is stripped.
        let end = buffer.write("a\u{07}\u{301}b", row: 0, col: 0)
        #expect(end == 2)
        #expect(buffer[0, 0].text.unicodeScalars.map(\.value) == [0x61, 0x301])
        #expect(buffer[0, 1].text == "b")
    }

    @Test func aMarkWithNoBaseIsDropped() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        let end = buffer.write("\u{301}ab\u{200B}c", row: 0, col: 0)
        #expect(end == 3)
        #expect(buffer[0, 0].text == "a")
        #expect(buffer[0, 1].text == "b")
        #expect(buffer.textDump() == "abc")
    }

    @Test func writesOffTheScreenAreIgnored() {
        var buffer = ScreenBuffer(rows: 2, cols: 10)
        buffer.write("nope", row: 2, col: 0)
        buffer.write("nope", row: -1, col: 0)
        buffer.write("abcdef", row: 0, col: -3)
        #expect(buffer.textLines() == ["def", ""])
    }

    @Test func textDumpTrimsTrailingSpacesButKeepsStyledBlanks() {
        var buffer = ScreenBuffer(rows: 2, cols: 8)
        buffer.write("a   ", row: 0, col: 0, style: Style(attributes: .reverse))
        #expect(buffer.textDump() == "a\n")
        #expect(buffer[0, 3].isReversed)
        #expect(!buffer[0, 4].isReversed)
    }

    @Test func styleIsKeptPerCell() {
        var buffer = ScreenBuffer(rows: 1, cols: 30)
        var col = buffer.write("Error: ", row: 0, col: 0)
        col = buffer.write("state mismatch", row: 0, col: col, style: Style(foreground: .error))
        #expect(col == 21)
        #expect(buffer[0, 0].foreground == .normal)
        #expect(buffer[0, 7].foreground == .error)
        #expect(buffer[0, 20].foreground == .error)
        #expect(buffer[0, 21].foreground == .normal)
    }

    @Test func restyleChangesLooksButNotText() {
        var buffer = ScreenBuffer(rows: 1, cols: 10)
        buffer.write("abc", row: 0, col: 0)
        buffer.restyle(Rect(row: 0, col: 1, rows: 1, cols: 1)) { $0.attributes.insert(.underline) }
        #expect(buffer[0, 1].isUnderlined && buffer[0, 1].text == "b")
        #expect(!buffer[0, 0].isUnderlined)
    }
}
