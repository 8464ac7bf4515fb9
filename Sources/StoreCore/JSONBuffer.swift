#if canImport(Glibc)
    import Glibc
#endif

/// JSON text built as UTF-8 bytes. `list --json` writes 100,000 objects; appending to a byte array is several
/// times cheaper than growing a String piece by piece.
package struct JSONBuffer {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package mutating func raw(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A string literal with JSON escapes, or `null`.
    package mutating func string(_ value: String?) {
        guard var value else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                case 0..<0x20:
                    raw("\\u00")
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0xf)])
                default:
                    bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string literal from raw UTF-8 (an SQLite column, read without making a String), or `null`.
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>?) {
        guard let utf8 else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        for (index, byte) in utf8.enumerated()
        where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            escape(byte)
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case UInt8(ascii: "\n"): raw("\\n")
        case UInt8(ascii: "\r"): raw("\\r")
        case UInt8(ascii: "\t"): raw("\\t")
        default:
            raw("\\u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0xf)])
        }
    }

    /// `"2024-05-01T12:00:00Z"` (UTC, whole seconds) for seconds since 1970, or `null`.
    package mutating func date(seconds value: Double?) {
        guard let value else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        Self.appendISO8601(seconds: value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    package static func appendISO8601(seconds interval: Double, to bytes: inout [UInt8]) {
        // A damaged row can hold any double: years are kept to 0001–9999 so formatting never traps.
        let clamped = interval.isFinite ? min(max(interval, -62_135_596_800), 253_402_300_799) : 0
        var seconds = time_t(clamped.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Twenty bytes written in place: `list --json` formats two dates per row, 200,000 at 100,000 sessions.
        let year = parts.tm_year + 1900
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 19) { text in
            func pair(_ value: Int32, at index: Int) {
                text[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
                text[index + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
            }
            pair(year / 100, at: 0)
            pair(year % 100, at: 2)
            text[4] = UInt8(ascii: "-")
            pair(parts.tm_mon + 1, at: 5)
            text[7] = UInt8(ascii: "-")
            pair(parts.tm_mday, at: 8)
            text[10] = UInt8(ascii: "T")
            pair(parts.tm_hour, at: 11)
            text[13] = UInt8(ascii: ":")
            pair(parts.tm_min, at: 14)
            text[16] = UInt8(ascii: ":")
            pair(parts.tm_sec, at: 17)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
