import AuthCore
import Testing

/// One rule for session keys, checked here with hand-picked keys; the entry points are tested with the real binary.
@Suite struct SessionKeyRuleTests {
    @Test(arguments: [
        "work-google", "google-ada@example.com", "東京-x", "a", "prod.eu_1", "quo\"te", "🎌flag",
        String(repeating: "k", count: 128),
    ])
    func goodKeysPass(_ key: String) {
        #expect(SessionKeyRule.problem(key) == nil)
    }

    @Test(arguments: [
        ("", "empty"), ("has space", "whitespace"), ("tab\there", "whitespace"), ("line\nbreak", "whitespace"),
        ("no\u{A0}break", "whitespace"), ("ideographic\u{3000}space", "whitespace"),
        ("sep\u{2028}arator", "whitespace"),
        ("nul\u{0}byte", "control"), ("esc\u{1B}[31m", "control"), ("del\u{7F}", "control"), ("c1\u{85}", "whitespace"),
        ("zero\u{200B}width", "format"), ("bidi\u{202E}override", "format"), ("bom\u{FEFF}", "format"),
        ("private\u{E000}use", "control"), ("-rf", "start with '-'"), (String(repeating: "k", count: 129), "longer"),
    ])
    func badKeysAreRefusedWithTheReason(_ key: String, _ reason: String) throws {
        let problem = try #require(SessionKeyRule.problem(key))
        #expect(problem.contains(reason), "\(problem)")
        // The message names the key without carrying what was refused.
        #expect(!problem.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!problem.contains("\u{202E}") && !problem.contains("\u{200B}"))
    }

    /// Printable ASCII, the space included, is shown as it is (the agent's log lines take that path without a
    /// property lookup); DEL, controls and anything not plainly visible beyond ASCII are escaped.
    @Test(arguments: [
        ("session 'work' for local pid 7 origin host-1.x_y: token handed out ~!", nil),
        ("del\u{7F}", "del\\u{7F}"), ("tab\there", "tab\\u{9}here"), ("nl\n", "nl\\u{A}"),
        ("東京\u{200B}x", "東京\\u{200B}x"), ("c1\u{85}", "c1\\u{85}"), ("🎌 flag", "🎌 flag"),
    ])
    func escapedKeepsOnlyWhatIsPlainlyVisible(_ text: String, _ shown: String?) {
        #expect(SessionKeyRule.escaped(text) == shown ?? text)
    }
}
