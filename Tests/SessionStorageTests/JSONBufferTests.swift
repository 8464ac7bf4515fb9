import AuthCore
import Foundation
import SessionStorage
import Testing

/// The JSON byte buffer under `list --json`: escaping read back by Foundation's JSON parser (not ours), at every
/// position an eight-byte step can put a special byte, copies that stay apart, and growth past the huge-page block.
@Suite struct JSONBufferTests {
    /// Every JSON the command line prints goes through the terminal sanitizer on its way out: a string holding DEL,
    /// C1 controls (CSI, DCS, NEL) or bidi marks must come through it whole and still be the same JSON, whether
    /// written as one string (`status --json`) or as a list object (`login --json`, `list --json`).
    @Test func hiddenCharactersAreEscapedSoTheSanitizerLeavesTheJSONWhole() throws {
        let tricky = "a\u{7f}b\u{202e}c\u{85}d\u{9b}31m\"x\u{90}q\u{9c}é"
        let quoted = SessionJSON.quoted(tricky)
        #expect(TerminalText.sanitizedLines(quoted) == quoted)
        let parsed = try JSONSerialization.jsonObject(with: Data(("[" + quoted + "]").utf8), options: []) as? [String]
        #expect(parsed == [tricky])
        let record = SessionRecord(
            key: "k", backend: "direct", provider: "google", subject: tricky, issuer: "i",
            createdAt: Date(timeIntervalSince1970: 0), expiresAt: nil, refreshable: false)
        let object = SessionJSON.listObject(StoreEntry(record: record, isSelected: false), now: Date())
        #expect(TerminalText.sanitizedLines(object) == object)
        let read = try JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: Any]
        #expect(read?["subject"] as? String == tricky)
    }

    /// Every ASCII byte, a quote, a backslash and multi-byte text, each at every offset of strings up to 40 bytes.
    @Test func escapedTextReadsBackAsWritten() throws {
        let specials = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "日", "🙂", "\u{7f}", "\u{2028}"]
        var strings: [String] = []
        for special in specials {
            for length in [1, 7, 8, 9, 15, 16, 17, 40] {
                for offset in 0..<length {
                    var text = String(repeating: "a", count: length)
                    let index = text.index(text.startIndex, offsetBy: offset)
                    text.replaceSubrange(index...index, with: special)
                    strings.append(text)
                }
            }
        }
        var buffer = JSONBuffer()
        buffer.raw("[")
        for (index, text) in strings.enumerated() {
            if index > 0 { buffer.raw(",") }
            if index.isMultiple(of: 2) {
                buffer.string(text)
            } else {
                var copy = text
                copy.withUTF8 { buffer.string(utf8: $0) }
            }
        }
        buffer.raw(",null]")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(buffer.bytes)) as? [Any])
        #expect(parsed.count == strings.count + 1)
        for (text, value) in zip(strings, parsed) where value as? String != text {
            Issue.record("\(text.unicodeScalars.map { $0.value }) came back as \(value)")
        }
        #expect(parsed.last is NSNull)
    }

    @Test func aCopyKeepsItsOwnBytes() {
        var first = JSONBuffer()
        first.raw("[1")
        var second = first
        first.raw(",2]")
        second.raw(",3]")
        #expect(first.text == "[1,2]")
        #expect(second.text == "[1,3]")
        var third = second
        third.removeLast(from: 2)
        #expect(third.text == "[1")
        #expect(second.text == "[1,3]")
    }

    /// 40 MB in pieces: through the malloc'd block, its copies, and the mapped blocks past 2 MiB, nothing is lost.
    @Test func growthKeepsEveryByte() {
        var buffer = JSONBuffer()
        let piece = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        let count = 40 * 1_048_576 / 64
        for _ in 0..<count { buffer.string(utf8: nil) }
        buffer.removeLast(from: 0)
        let marked = "X" + piece.dropFirst(1)
        for index in 0..<count {
            var text = index.isMultiple(of: 1_000) ? marked : piece
            text.withUTF8 { buffer.raw($0) }
        }
        #expect(buffer.count == count * 64)
        let intact = buffer.withUnsafeBytes { bytes in
            (0..<count).allSatisfy { index in
                bytes[index * 64] == (index.isMultiple(of: 1_000) ? UInt8(ascii: "X") : UInt8(ascii: "0"))
                    && bytes[index * 64 + 63] == UInt8(ascii: "f")
            }
        }
        #expect(intact)
    }
}
