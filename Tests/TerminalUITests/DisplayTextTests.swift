import Foundation
import TestSupport
import Testing

@testable import TerminalUI

@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("a", 1), ("漢", 2), ("한", 2), ("ｱ", 1), ("Ａ", 2), ("😀", 2), ("❤", 1), ("❤️", 2), ("🇩🇪", 2),
        ("e\u{301}", 1), ("\u{301}", 0), ("é", 1), ("\u{200B}", 0), ("×", 1), ("👩‍💻", 2), ("क्षि", 3),
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

    /// The `display` fuzzer's input: U+113CF, a spacing mark, right-aligned in 10 columns. The nine spaces before it
    /// made eight spaces and one grapheme of a space and the mark, which measured 9.
    @Test(arguments: ["\u{113CF}", "\u{93E}", "\u{BCA}x", "\u{D4E}"])
    func paddingAroundAMarkThatJoinsTheSpaceStillAddsUp(text: String) {
        for alignment in [Alignment.left, .right, .center] {
            #expect(DisplayText.width(of: DisplayText.padded(text, toWidth: 10, alignment: alignment)) == 10)
        }
        #expect(DisplayText.width(of: DisplayText.truncated(text + "abcdef", toWidth: 3)) == 3)
    }

    /// Outside emoji, a width is what glibc's `wcwidth` (ncurses' and the terminal's measure) sums over the
    /// scalars, for Indic clusters, prepended letters, Hangul jamo, marks and CJK alike. Python asks glibc here.
    @Test func widthsAgreeWithGlibcWcwidth() throws {
        let texts = [
            "क्षि", "नमस्ते", "ा", " ा", "கொ", "ไทย", "กำ", "\u{1100}\u{1161}\u{11A8}", "한국어", "e\u{301}",
            "\u{301}", "漢字", "Ａ", "ｱ", "ൎക", "ক্ষ", "ᬅᬓ", "لا", "\u{AD}", "\u{200B}", "a\u{20DD}", "×Ω", "ǅ",
            "اَلْعَرَبِيَّة", "ញ៉ុំ", "ཀྵ", "ၵႂ", "a\u{200D}b", "\u{3099}か",
        ]
        let script = """
            import ctypes, sys
            libc = ctypes.CDLL("libc.so.6")
            libc.setlocale.restype = ctypes.c_char_p
            assert libc.setlocale(0, b"C.UTF-8") is not None  # LC_CTYPE
            for line in sys.stdin.read().split("\\n"):
                widths = [libc.wcwidth(ctypes.c_wchar(c)) for c in line]
                print(-1 if -1 in widths else sum(widths))
            """
        let peer = try Program.python(script, stdin: texts.joined(separator: "\n"))
        #expect(peer.status == 0)
        let glibc = peer.text.split(separator: "\n").map { Int($0) }
        try #require(glibc.count == texts.count)
        // Hand-checked anchors keep the peer honest: क, virama, ष, vowel sign i.
        #expect(glibc[0] == 3)
        #expect(glibc[7] == 2)
        for (text, width) in zip(texts, glibc) {
            #expect(width != -1, "glibc does not know a scalar of \(text.debugDescription)")
            #expect(DisplayText.width(of: text) == width, "\(text.debugDescription)")
        }
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

    /// A grapheme wider than the line is wrapped cell by cell, as the terminal would: क्षि (three cells) in two
    /// columns, and a text-style airplane joined to a laptop (the `display` fuzzer's input: one column and two).
    @Test func aGraphemeWiderThanTheLineIsWrappedByItsCells() {
        #expect(DisplayText.wrapped("क्षि", toWidth: 2) == ["\u{915}\u{94D}\u{937}", "\u{93F}"])
        #expect(DisplayText.wrapped("a 🛩\u{200D}💻", toWidth: 2) == ["a", "🛩\u{200D}", "💻"])
        #expect(DisplayText.wrapped("ab क्षि", toWidth: 3) == ["ab", "क्षि"])
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
