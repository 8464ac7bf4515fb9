/// Writes JSON bytes at an address with room already made for them (`JSONBuffer.write(atMost:_:)`): no capacity
/// check per piece, so a `list --json` row costs one check rather than thirty. Every writer of JSON text in the
/// store goes through these few methods, `JSONBuffer`'s own included.
package struct JSONCursor {
    /// Where the next byte goes.
    package private(set) var position: UnsafeMutablePointer<UInt8>
    /// Whether a string written held a byte from DEL (0x7F) up (see `JSONBuffer.wroteBeyondASCII`).
    package private(set) var wroteBeyondASCII = false

    init(_ position: UnsafeMutablePointer<UInt8>) {
        self.position = position
    }

    /// The most `string` writes for `count` bytes of UTF-8 (each a six-byte `\u00XX`, and the quotes), or `null`.
    package static func room(utf8 count: Int) -> Int { count * 6 + 4 }

    /// The most `date` writes: a quoted twenty-byte date.
    package static let dateRoom = 22

    @inline(__always)
    package mutating func raw(_ literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        position.update(from: literal.utf8Start, count: length)
        position += length
    }

    /// Bytes as they are (UTF-8 text already escaped, or none that needs it).
    package mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        position.update(from: source, count: bytes.count)
        position += bytes.count
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
        value.withUTF8 { string(utf8: $0) }
    }

    /// A string literal from raw UTF-8 (an SQLite column, read without making a String), or `null`. Quotes,
    /// backslashes and C0 controls are escaped; every other byte is copied as it is.
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>?) {
        guard let utf8 else {
            raw("null")
            return
        }
        var target = position
        target.pointee = UInt8(ascii: "\"")
        target += 1
        var index = 0
        // A top bit set for any byte from 0x7F up: DEL (0x7F + 1 = 0x80) and every byte of a multi-byte sequence (a
        // carry out of a byte comes only from 0xFF, itself caught).
        var beyond: UInt64 = 0
        if let source = utf8.baseAddress {
            // Eight bytes at a time while none of them needs escaping (nearly always), then byte by byte.
            while index + 8 <= utf8.count {
                let word = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
                guard Self.needsNoEscape(word) else { break }
                UnsafeMutableRawPointer(target).storeBytes(of: word, as: UInt64.self)
                beyond |= word | (word &+ Self.ones)
                target += 8
                index += 8
            }
            // The last few bytes as one word too: the final eight again (overlapping what was copied as it was), or
            // a short string padded with spaces. Eight bytes are stored and only the real ones kept: the room made
            // for a string of n bytes (6n + 4) holds them.
            let left = utf8.count - index
            if left > 0 && left < 8 && (index > 0 || utf8.count < 8) {
                var word: UInt64
                if index > 0 {
                    word = UnsafeRawPointer(source + utf8.count - 8).loadUnaligned(as: UInt64.self)
                } else {
                    word = 0x2020_2020_2020_2020
                    for offset in 0..<left {
                        word = word & ~(0xFF << (8 * offset)) | UInt64(source[offset]) << (8 * offset)
                    }
                }
                if Self.needsNoEscape(word) {
                    let at = index > 0 ? target - (8 - left) : target
                    UnsafeMutableRawPointer(at).storeBytes(of: word, as: UInt64.self)
                    beyond |= word | (word &+ Self.ones)
                    target += left
                    index += left
                }
            }
            while index < utf8.count {
                let byte = source[index]
                beyond |= UInt64(byte | (byte &+ 1))
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    target.pointee = byte
                    target += 1
                } else {
                    target = Self.escape(byte, at: target)
                }
                index += 1
            }
        }
        if beyond & (Self.ones &* 0x80) != 0 { wroteBeyondASCII = true }
        target.pointee = UInt8(ascii: "\"")
        position = target + 1
    }

    /// Whether none of the eight bytes in `word` is a C0 control, a quote or a backslash. A byte below n, with its
    /// top bit clear, borrows into that bit when n is subtracted from it; one equal to c is zero after xor with c.
    @inline(__always)
    private static func needsNoEscape(_ word: UInt64) -> Bool {
        let tops: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- Self.ones &* 0x20) & ~word & tops
        let quote = word ^ (Self.ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (Self.ones &* UInt64(UInt8(ascii: "\\")))
        let zeros = ((quote &- Self.ones) & ~quote | (backslash &- Self.ones) & ~backslash) & tops
        return control | zeros == 0
    }

    /// `"2024-05-01T12:00:00Z"` (UTC, whole seconds) for seconds since 1970, or `null`.
    package mutating func date(seconds value: Double?) {
        guard let value else {
            raw("null")
            return
        }
        position.pointee = UInt8(ascii: "\"")
        Self.writeISO8601(seconds: value, at: position + 1)
        position[21] = UInt8(ascii: "\"")
        position += 22
    }

    // MARK: - Dates

    /// `2024-05-01T12:00:00Z` at `target`: twenty bytes, UTC, whole seconds (rounded down), by arithmetic on the
    /// proleptic Gregorian calendar (no gmtime: `list --json` formats two dates per row, 200,000 at 100,000
    /// sessions).
    static func writeISO8601(seconds interval: Double, at target: UnsafeMutablePointer<UInt8>) {
        // A damaged row can hold any double: years are kept to 0001–9999 so formatting never traps. Counted from
        // 0001-01-01T00:00:00Z (62,135,596,800 s before 1970), the seconds are never negative.
        let clamped = interval.isFinite ? min(max(interval, -62_135_596_800), 253_402_300_799) : 0
        let seconds = UInt(clamped.rounded(.down) + 62_135_596_800)
        let second = seconds % 86_400
        let (year, month, day) = civilDate(daysSince0001: seconds / 86_400)
        func pair(_ value: UInt, at index: Int) {
            let digits = UnsafeRawPointer(Self.digitPairs.utf8Start + Int(value) * 2).loadUnaligned(as: UInt16.self)
            UnsafeMutableRawPointer(target + index).storeBytes(of: digits, as: UInt16.self)
        }
        pair(year / 100, at: 0)
        pair(year % 100, at: 2)
        target[4] = UInt8(ascii: "-")
        pair(month, at: 5)
        target[7] = UInt8(ascii: "-")
        pair(day, at: 8)
        target[10] = UInt8(ascii: "T")
        pair(second / 3_600, at: 11)
        target[13] = UInt8(ascii: ":")
        pair(second / 60 % 60, at: 14)
        target[16] = UInt8(ascii: ":")
        pair(second % 60, at: 17)
        target[19] = UInt8(ascii: "Z")
    }

    /// Year, month and day of the day `days` after 0001-01-01. Counted in 400-year cycles of 146,097 days from
    /// 0000-03-01, with years starting in March so that the leap day ends a year.
    private static func civilDate(daysSince0001 days: UInt) -> (year: UInt, month: UInt, day: UInt) {
        // 0001-01-01 is day 306 of the year that starts on 0000-03-01.
        let sinceMarch = days + 306
        let cycle = sinceMarch / 146_097
        let dayOfCycle = sinceMarch % 146_097
        // Years of 365 days, less the leap days: one every 4 years, none every 100, one every 400.
        let yearOfCycle = (dayOfCycle - dayOfCycle / 1_460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        // Months from March: 31, 30, 31, 30, 31 repeat, so 153 days make five months.
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = cycle * 400 + yearOfCycle + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    // MARK: - Private

    /// "00" to "99", two bytes each: a date's six pairs of digits copied rather than divided out.
    private static let digitPairs: StaticString = """
        0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849\
        5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899
        """

    /// A one in every byte of a word.
    private static let ones: UInt64 = 0x0101_0101_0101_0101

    private static func escape(_ byte: UInt8, at target: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        target.pointee = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            target[1] = byte
            return target + 2
        case UInt8(ascii: "\n"):
            target[1] = UInt8(ascii: "n")
            return target + 2
        case UInt8(ascii: "\r"):
            target[1] = UInt8(ascii: "r")
            return target + 2
        case UInt8(ascii: "\t"):
            target[1] = UInt8(ascii: "t")
            return target + 2
        default:
            let digits: StaticString = "0123456789abcdef"
            target[1] = UInt8(ascii: "u")
            target[2] = UInt8(ascii: "0")
            target[3] = UInt8(ascii: "0")
            target[4] = digits.utf8Start[Int(byte >> 4)]
            target[5] = digits.utf8Start[Int(byte & 0xf)]
            return target + 6
        }
    }
}
