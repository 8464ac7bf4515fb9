import Testing

@testable import TerminalUI

@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("a", 1), ("漢", 2), ("한", 2), ("ｱ", 1), ("Ａ", 2), ("😀", 2), ("❤", 1), ("❤️", 2), ("🇩🇪", 2),
        ("e\u{301}", 1), ("\u{301}", 0), ("é", 1), ("\u{200B}", 0), ("×", 1),
    ])
    func graphemeWidths(text: String, width: Int) {
        #expect(DisplayText.width(of: text) == width)
    }

    @Test func truncationMarksTheCut() {
        #expect(DisplayText.truncated("google-work", toWidth: 6) == "googl…")
        #expect(DisplayText.truncated("google", toWidth: 6) == "google")
        #expect(DisplayText.truncated("漢字漢字", toWidth: 4) == "漢…")
        #expect(DisplayText.truncated("abc", toWidth: 0) == "")
    }

    @Test func paddingAligns() {
        #expect(DisplayText.padded("ab", toWidth: 5) == "ab   ")
        #expect(DisplayText.padded("ab", toWidth: 5, alignment: .right) == "   ab")
        #expect(DisplayText.padded("ab", toWidth: 6, alignment: .center) == "  ab  ")
        #expect(DisplayText.padded("漢", toWidth: 3, alignment: .right) == " 漢")
    }

    @Test func wrappingBreaksAtSpacesAndSplitsLongWords() {
        #expect(
            DisplayText.wrapped("the state did not match the attempt", toWidth: 12)
                == ["the state", "did not", "match the", "attempt"])
        #expect(
            DisplayText.wrapped("https://example.com/callback", toWidth: 10)
                == ["https://ex", "ample.com/", "callback"])
        #expect(DisplayText.wrapped("", toWidth: 10) == [""])
    }

    @Test func plainTextPassesUntouched() {
        let url = "http://127.0.0.1:8080/callback?code=abc&state=xyz"
        #expect(DisplayText.sanitized(url) == url)
        #expect(DisplayText.sanitized("Zoë 漢字 🔑") == "Zoë 漢字 🔑")
    }

    @Test func tabsBecomeSpacesAndUnterminatedSequencesAreDropped() {
        #expect(DisplayText.sanitized("a\tb") == "a b")
        #expect(DisplayText.sanitized("ok\u{1B}]8;;http://evil") == "ok")
        #expect(DisplayText.sanitized("ok\u{1B}P1$r\u{1B}\\end") == "okend")
        #expect(DisplayText.sanitized("ok\u{1B}(Bend") == "okend")
    }
}
