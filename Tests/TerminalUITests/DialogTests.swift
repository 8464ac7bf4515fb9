import Testing

@testable import TerminalUI

@Suite struct DialogTests {
    let confirm = Dialog(
        title: "Sign out",
        message: ["Sign out of work-google? The refresh token is revoked too."],
        buttons: [Button("Yes", mnemonic: "y", isFocused: true), Button("No", mnemonic: "n")]
    )

    @Test func aConfirmationIsCentredWithItsButtons() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        confirm.draw(in: buffer.bounds, into: &buffer)
        expectScreen(
            buffer,
            """








                     ┌─ Sign out ─────────────────────────────────────────────────┐
                     │                                                            │
                     │ Sign out of work-google? The refresh token is revoked too. │
                     │                                                            │
                     │                      [y] Yes  [n] No                       │
                     │                                                            │
                     └────────────────────────────────────────────────────────────┘









            """)
    }

    @Test func theDialogCoversWhatIsBehindIt() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        for row in 0..<24 { buffer.write(String(repeating: "x", count: 80), row: row, col: 0) }
        confirm.draw(in: buffer.bounds, into: &buffer)
        #expect(buffer[9, 40].text == " ")
        #expect(buffer[7, 40].text == "x")
        #expect(buffer[9, 8].text == "x")
    }

    @Test func theFocusedButtonIsReversed() {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        confirm.draw(in: buffer.bounds, into: &buffer)
        #expect(buffer[12, 32].isReversed)  // [y] Yes
        #expect(!buffer[12, 41].isReversed)  // [n] No
        #expect(confirm.buttonIndex(atRow: 12, col: 42, in: buffer.bounds) == 1)
        #expect(confirm.buttonIndex(atRow: 11, col: 42, in: buffer.bounds) == nil)
    }

    @Test func anErrorIsDrawnInTheErrorColour() {
        let error = Dialog(
            title: "Sign-in failed", message: ["The state did not match: start again."],
            buttons: [Button("OK", isFocused: true)], isError: true)
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        error.draw(in: buffer.bounds, into: &buffer)
        let frame = error.frame(in: buffer.bounds)
        let messageRow = frame.row + 2
        #expect(buffer.textLines()[messageRow].contains("The state did not match: start again."))
        #expect(buffer[messageRow, frame.col + 2].foreground == .error)
        #expect(buffer[frame.row, frame.col].foreground == .error)
        #expect(buffer[frame.row - 1, frame.col].foreground == .normal)
    }

    @Test func longMessagesWrapInsideTheScreen() {
        let dialog = Dialog(title: "Error", message: [String(repeating: "word ", count: 40)])
        var buffer = ScreenBuffer(rows: 16, cols: 60)
        dialog.draw(in: buffer.bounds, into: &buffer)
        let frame = dialog.frame(in: buffer.bounds)
        #expect(frame.cols == 56)  // 60 columns less a margin of 2 on each side
        #expect(frame.rows == 4 + 4)  // 40 words wrapped to 52 columns: 10 a line, 4 lines
        #expect(buffer.textLines()[frame.row + 2].hasSuffix("word word    │"))
    }
}
