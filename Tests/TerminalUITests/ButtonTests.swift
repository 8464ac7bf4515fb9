import Testing

@testable import TerminalUI

@Suite struct ButtonTests {
    func providerRows(focused: Int) -> (ButtonRow, ButtonRow) {
        let social = [("Google", "g"), ("Apple", "a"), ("Discord", "d"), ("X", "x")]
        let codes = [("OIDC…", "o"), ("Email code", "e"), ("SMS code", "s")]
        let first = ButtonRow(
            social.enumerated().map { index, pair in
                Button(pair.0, mnemonic: Character(pair.1), isFocused: index == focused)
            })
        let second = ButtonRow(codes.map { Button($0.0, mnemonic: Character($0.1)) })
        return (first, second)
    }

    func newSignInScreen(focused: Int) -> ScreenBuffer {
        var buffer = ScreenBuffer(rows: 24, cols: 80)
        buffer.write("New sign-in", row: 0, col: 0)
        let (first, second) = providerRows(focused: focused)
        first.draw(in: Rect(row: 2, col: 2, rows: 1, cols: 76), into: &buffer)
        second.draw(in: Rect(row: 3, col: 2, rows: 1, cols: 76), into: &buffer)
        let box = Box(title: "Backend")
        let frame = Rect(row: 5, col: 2, rows: 3, cols: 30)
        box.draw(in: frame, into: &buffer)
        let inside = box.contentRect(for: frame)
        buffer.write("sandbox", row: inside.row, col: inside.col + 1, maxWidth: inside.cols - 1)
        return buffer
    }

    @Test func providerButtonsShowTheirMnemonics() {
        expectScreen(
            newSignInScreen(focused: 1),
            """
            New sign-in

              [g] Google  [a] Apple  [d] Discord  [x] X
              [o] OIDC…  [e] Email code  [s] SMS code

              ┌─ Backend ──────────────────┐
              │ sandbox                    │
              └────────────────────────────┘
















            """)
    }

    @Test func onlyTheFocusedButtonIsReversed() {
        let buffer = newSignInScreen(focused: 1)
        // [a] Apple spans columns 14 to 22.
        for col in 14...22 { #expect(buffer[2, col].isReversed) }
        #expect(!buffer[2, 13].isReversed)
        #expect(!buffer[2, 23].isReversed)
        #expect(!buffer[2, 2].isReversed)
    }

    @Test func anUnfocusedMnemonicStandsOut() {
        let buffer = newSignInScreen(focused: 1)
        #expect(buffer[2, 3].text == "g")
        #expect(buffer[2, 3].foreground == .accent && buffer[2, 3].isBold)
        #expect(buffer[2, 5].foreground == .normal)
    }

    @Test func aClickFindsTheButtonUnderIt() {
        let (first, _) = providerRows(focused: 0)
        let rect = Rect(row: 2, col: 2, rows: 1, cols: 76)
        #expect(first.buttonIndex(atRow: 2, col: 2, in: rect) == 0)
        #expect(first.buttonIndex(atRow: 2, col: 20, in: rect) == 1)
        #expect(first.buttonIndex(atRow: 2, col: 12, in: rect) == nil)  // the gap
        #expect(first.buttonIndex(atRow: 3, col: 20, in: rect) == nil)
    }

    @Test func buttonsThatDoNotFitAreLeftOutWhole() {
        let (first, _) = providerRows(focused: 0)
        var buffer = ScreenBuffer(rows: 1, cols: 30)
        first.draw(in: Rect(row: 0, col: 0, rows: 1, cols: 30), into: &buffer)
        #expect(buffer.textDump() == "[g] Google  [a] Apple")
    }

    @Test func aButtonWithoutMnemonicIsBracketed() {
        #expect(Button("OK").text == "[ OK ]")
        #expect(Button("Google", mnemonic: "g").text == "[g] Google")
        #expect(Button("Google", mnemonic: "g").width == 10)
    }
}
