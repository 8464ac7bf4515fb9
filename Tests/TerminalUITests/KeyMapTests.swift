import Testing

@testable import TerminalUI

@Suite struct KeyMapTests {
    let keys = KeyMap.standard

    @Test(arguments: [
        (UInt32(0x03), KeyRequest.interrupt), (0x0D, .enter), (0x0A, .enter), (0x09, .tab), (0x7F, .backspace),
        (0x08, .backspace), (0x1B, .escape), (0x0C, .redraw), (0x0E, .down), (0x10, .up),
        (0x01, .home), (0x05, .end), (0x15, .clearToStart), (0x17, .deleteWordBackward),
    ])
    func controlCharacters(value: UInt32, request: KeyRequest) {
        #expect(keys.request(for: Unicode.Scalar(value)!) == request)
    }

    @Test func lettersAreLeftToTheScreen() {
        #expect(keys.request(for: "j") == .character("j"))
        #expect(keys.request(for: "q") == .character("q"))
        #expect(keys.request(for: "漢") == .character("漢"))
    }

    @Test func unboundControlCharactersMeanNothing() {
        #expect(keys.request(for: Unicode.Scalar(0x1F)!) == nil)
        #expect(keys.request(for: Unicode.Scalar(0x85)!) == nil)
    }

    @Test func specialKeysHaveTheirRequests() {
        #expect(keys.request(for: .pageDown) == .pageDown)
        #expect(keys.request(for: .backTab) == .backTab)
        #expect(keys.request(for: .function(5)) == .function(5))
        #expect(keys.request(for: .insert) == nil)
    }

    @Test func escapeSequences() {
        #expect(keys.request(forEscapeSequence: []) == .escape)
        #expect(keys.request(forEscapeSequence: ["[", "Z"]) == .backTab)
        #expect(keys.request(forEscapeSequence: ["x"]) == nil)  // Alt+x is not typed as x
        #expect(keys.request(forEscapeSequence: ["[", "9", "9", "~"]) == nil)
        #expect(KeyMap.isPasteStart(["[", "2", "0", "0", "~"]))
        #expect(!KeyMap.isPasteStart(["[", "2", "0", "1", "~"]))
    }

    @Test func aBracketedPasteEndsAtItsMarker() {
        let body = Array("http://127.0.0.1:4711/call\nback?code=1\u{1B}[2J".unicodeScalars)
        #expect(KeyMap.pastedText(from: body) == nil)
        #expect(KeyMap.pastedText(from: body + KeyMap.pasteEnd) == "http://127.0.0.1:4711/callback?code=1")
    }

    @Test func bindingsCanBeChanged() {
        var custom = KeyMap.standard
        custom.controlCharacters[0x0E] = nil
        #expect(custom.request(for: Unicode.Scalar(0x0E)!) == nil)
    }
}
