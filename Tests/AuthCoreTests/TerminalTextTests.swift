import AuthCore
import Testing

/// The terminal sanitiser (AuthBase), with hand-written expectations: what may reach a terminal and what may not.
@Suite struct TerminalTextTests {
    @Test func plainTextPassesUntouched() {
        let line = #"{"key":"s000001","email":"user1@example.com"} ~!"#
        #expect(TerminalText.sanitized(line) == line)
        #expect(TerminalText.sanitizedLines(line + "\n" + line + "\n") == line + "\n" + line + "\n")
        #expect(TerminalText.sanitized("café ✓") == "café ✓")
    }

    @Test func controlsAndEscapesGo() {
        #expect(TerminalText.sanitized("a\u{1B}[31mred\u{1B}[0m b") == "ared b")
        #expect(TerminalText.sanitized("t\u{1B}]0;title\u{07}x") == "tx")
        #expect(TerminalText.sanitized("a\tb\u{7F}c\u{0}d") == "a bcd")
        #expect(TerminalText.sanitized("x\u{202E}y\u{200F}z") == "xyz")
        #expect(TerminalText.sanitized("one\ntwo") == "onetwo")
        #expect(TerminalText.sanitizedLines("one\ntw\u{1B}[2Jo\n") == "one\ntwo\n")
        #expect(TerminalText.sanitized("a\rb") == "ab")
        // A control byte at the very end of a long plain text is still found.
        let long = String(repeating: "a", count: 10_000)
        #expect(TerminalText.sanitizedLines(long + "\u{1B}[2J") == long)
        #expect(TerminalText.sanitized(long + "\n") == long)
    }
}
