import Testing

@testable import TerminalUI

@Suite struct DigitFieldTests {
    @Test func aCodeEntryScreen() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        buffer.write("Code sent to ann@example.com", row: 1, col: 0)
        let field = DigitField(length: 6, code: "123", isFocused: true)
        field.draw(in: Rect(row: 3, col: 2, rows: 1, cols: 76), into: &buffer)
        buffer.write("Resend in 25 s", row: 5, col: 0, style: Style(foreground: .dim))
        expectScreen(
            buffer,
            """

            Code sent to ann@example.com

              [1] [2] [3] [ ] [ ] [ ]

            Resend in 25 s


















            """)
        // The cursor sits in the fourth box.
        #expect(buffer[3, 15].isReversed)
        #expect(!buffer[3, 11].isReversed)
        #expect(!buffer[3, 19].isReversed)
        #expect(buffer[5, 0].foreground == .dim)
    }

    @Test func onlyTheAlphabetIsAcceptedUpToTheLength() {
        let field = DigitField(length: 6).inserting("12a-3 4\u{7}5678")
        #expect(field.code == "123456")
        #expect(field.isComplete)
        #expect(field.inserting("9").code == "123456")
    }

    @Test func digitsInsideAPastedEscapeSequenceAreNotTyped() {
        #expect(DigitField(length: 6).inserting("\u{1B}[31m12\u{1B}[0m34").code == "1234")
    }

    @Test func alphanumericCodesKeepLettersUpperCase() {
        let field = DigitField(length: 8, alphabet: .alphanumeric).inserting("ab-12 cd_é")
        #expect(field.code == "AB12CD")
        #expect(!field.isComplete)
    }

    @Test func backspaceClearsTheLastBox() {
        let field = DigitField(length: 6, code: "123")
        #expect(field.deletingBackward().code == "12")
        #expect(DigitField(length: 6).deletingBackward().code == "")
        #expect(field.applying(.backspace)?.code == "12")
        #expect(field.applying(.paste("4 5 6"))?.code == "123456")
        #expect(field.applying(.enter) == nil)
    }

    @Test func aMaskedCodeShowsDots() {
        var buffer = ScreenBuffer(rows: 1, cols: 30)
        DigitField(length: 6, code: "42", isMasked: true).draw(in: buffer.bounds, into: &buffer)
        #expect(buffer.textDump() == "[•] [•] [ ] [ ] [ ] [ ]")
    }
}

@Suite struct TextFieldTests {
    @Test func insertionGoesAtTheCursor() {
        let field = TextField(text: "work-gogle").movingCursor(by: -4).inserting("o")
        #expect(field.text == "work-google")
        #expect(field.cursor == 7)
    }

    @Test func pastedControlCharactersNeverReachTheText() {
        let field = TextField().inserting("http://127.0.0.1/callback?code=x\u{1B}[2J\r\n")
        #expect(field.text == "http://127.0.0.1/callback?code=x")
    }

    @Test func backspaceAndDeleteRemoveAroundTheCursor() {
        let field = TextField(text: "abc").movingCursor(by: -1)
        #expect(field.deletingBackward().text == "ac")
        #expect(field.deletingBackward().cursor == 1)
        #expect(field.deletingForward().text == "ab")
        #expect(field.movingCursorToStart().deletingBackward().text == "abc")
        #expect(field.movingCursorToEnd().deletingForward().text == "abc")
    }

    @Test func keyRequestsEditOrPassThrough() {
        let field = TextField(text: "ab")
        #expect(field.applying(.character("c"))?.text == "abc")
        #expect(field.applying(.home)?.cursor == 0)
        #expect(field.applying(.left)?.cursor == 1)
        #expect(field.applying(.enter) == nil)
        #expect(field.applying(.escape) == nil)
        #expect(field.applying(.tab) == nil)
    }

    @Test func maxLengthCapsInsertion() {
        let field = TextField(maxLength: 5).inserting("session-key")
        #expect(field.text == "sessi")
        #expect(field.inserting("x").text == "sessi")
    }

    @Test func aMaskedFieldShowsDotsAndTheCursor() {
        var buffer = ScreenBuffer(rows: 1, cols: 20)
        TextField(text: "hunter2", isMasked: true, isFocused: true).draw(in: buffer.bounds, into: &buffer)
        #expect(buffer.textDump() == "•••••••")
        #expect(buffer[0, 7].isReversed)
        #expect(!buffer[0, 6].isReversed)
        #expect(buffer[0, 15].isUnderlined)
    }

    @Test func aLongTextScrollsToKeepTheCursorInView() {
        var buffer = ScreenBuffer(rows: 1, cols: 30)
        let field = TextField(text: "https://example.com/callback?code=abc", isFocused: true)
        field.draw(in: Rect(row: 0, col: 0, rows: 1, cols: 10), into: &buffer)
        #expect(buffer.textDump() == "?code=abc")
        #expect(buffer[0, 9].isReversed)
        #expect(!buffer[0, 10].isUnderlined)
    }

    @Test func anEmptyUnfocusedFieldShowsItsPlaceholder() {
        var buffer = ScreenBuffer(rows: 1, cols: 30)
        TextField(placeholder: "session key (optional)").draw(in: buffer.bounds, into: &buffer)
        #expect(buffer.textDump() == "session key (optional)")
        #expect(buffer[0, 0].foreground == .dim)
    }
}
