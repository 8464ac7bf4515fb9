import AuthCore
import Testing

/// Inputs `make fuzz` found breaking AuthCore's validators, kept so they stay fixed.
@Suite struct FuzzRegressionTests {
    /// A line separator inside the local part passed as an email (the fuzzer's input was "a\u{2028}b@example.com"),
    /// and so did the other Unicode spaces, C1 controls and invisible format characters.
    @Test(arguments: [
        "a\u{2028}b@example.com", "a\u{85}b@example.com", "a\u{A0}b@example.com",
        "a\u{3000}b@example.com", "a\u{9B}b@example.com", "a\u{202E}b@example.com",
        "a\u{200B}b@example.com", "\u{FEFF}ab@example.com",
    ])
    func emailWithAnInvisibleOrSpaceCharacterIsRefused(_ text: String) {
        #expect(throws: SignInError.invalidContact) { try Contact.validatedEmail(text) }
        #expect(throws: SignInError.invalidContact) { try Contact.parse(text) }
    }

    @Test func internationalLocalPartsStillPass() throws {
        #expect(try Contact.validatedEmail("josé@example.com") == .email("josé@example.com"))
        #expect(try Contact.validatedEmail("用户@example.com") == .email("用户@example.com"))
    }

    /// 200 nested arrays (the `responses` target's input) made decoding crawl, the cost growing with the square of
    /// the depth; past 64 levels the document is refused before decoding, and brackets inside strings do not count.
    @Test func deeplyNestedJSONIsRefused() throws {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: JSONValue.ParseFailure.self) { try JSONValue.parse(deep) }
        let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        var value = try JSONValue.parse(allowed)
        var levels = 0
        while case .array(let inner) = value {
            levels += 1
            guard let first = inner.first else { break }
            value = first
        }
        #expect(levels == 64)
        let quoted = #"{"a":"\#(String(repeating: "[", count: 100))\"{{"}"#
        #expect(try JSONValue.parse(quoted)["a"]?.string == String(repeating: "[", count: 100) + "\"{{")
    }
}
