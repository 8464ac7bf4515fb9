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
        guard var value else { raw("null"); return }
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
        guard let utf8 else { raw("null"); return }
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
        guard let value else { raw("null"); return }
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
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        bytes.append(UInt8(ascii: "Z"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
