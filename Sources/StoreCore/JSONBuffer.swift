#if canImport(Glibc)
    import Glibc
#endif

/// JSON text built as UTF-8 bytes in one malloc'd block. `list --json` writes 100,000 objects (30 MB): each piece
/// is copied straight into place with one capacity check, and the block grows with `realloc`, which moves a large
/// block by remapping its pages rather than copying them. A copy of a buffer shares the block until either writes.
package struct JSONBuffer {
    /// Owns the block (freed with the last copy); the address and sizes live in the struct, where the writes
    /// reach them without a class access.
    private final class Block {
        var address: UnsafeMutablePointer<UInt8>

        init(capacity: Int) {
            guard let memory = malloc(capacity) else { fatalError("out of memory for \(capacity) bytes of JSON") }
            address = memory.bindMemory(to: UInt8.self, capacity: capacity)
        }

        deinit {
            free(address)
        }
    }

    private var block: Block
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    package private(set) var count = 0

    package init(capacity: Int = 0) {
        self.capacity = max(capacity, 64)
        block = Block(capacity: self.capacity)
        base = block.address
    }

    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    package var text: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    package func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Writes every byte to `descriptor` in chunks of up to 1 MiB; false when the descriptor refused them.
    @discardableResult
    package func write(to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < count {
            let written = Glibc.write(descriptor, base + offset, min(count - offset, 1 << 20))
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    // MARK: - Writing

    package mutating func raw(_ literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        let target = reserve(length)
        target.update(from: literal.utf8Start, count: length)
        count += length
    }

    /// Bytes as they are (UTF-8 text already escaped, or none that needs it).
    package mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let target = reserve(bytes.count)
        target.update(from: source, count: bytes.count)
        count += bytes.count
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
        // Room for the worst case: every byte a six-byte \u00XX, and the quotes.
        var target = reserve(utf8.count * 6 + 2)
        target.pointee = UInt8(ascii: "\"")
        target += 1
        for byte in utf8 {
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                target.pointee = byte
                target += 1
            } else {
                target = Self.escape(byte, at: target)
            }
        }
        target.pointee = UInt8(ascii: "\"")
        target += 1
        count = target - base
    }

    /// `"2024-05-01T12:00:00Z"` (UTC, whole seconds) for seconds since 1970, or `null`.
    package mutating func date(seconds value: Double?) {
        guard let value else {
            raw("null")
            return
        }
        let target = reserve(22)
        target.pointee = UInt8(ascii: "\"")
        Self.writeISO8601(seconds: value, at: target + 1)
        target[21] = UInt8(ascii: "\"")
        count += 22
    }

    /// Forgets everything written from `index` on (to write it again differently).
    package mutating func removeLast(from index: Int) {
        precondition(index >= 0 && index <= count, "JSONBuffer.removeLast(from:) out of range")
        _ = reserve(0)
        count = index
    }

    // MARK: - Dates

    /// `2024-05-01T12:00:00Z`: twenty bytes, UTC, whole seconds (rounded down).
    package static func appendISO8601(seconds interval: Double, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
            writeISO8601(seconds: interval, at: text.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// The twenty bytes of `appendISO8601` at `target`, by arithmetic on the proleptic Gregorian calendar (no
    /// gmtime: `list --json` formats two dates per row, 200,000 at 100,000 sessions).
    private static func writeISO8601(seconds interval: Double, at target: UnsafeMutablePointer<UInt8>) {
        // A damaged row can hold any double: years are kept to 0001–9999 so formatting never traps.
        let clamped = interval.isFinite ? min(max(interval, -62_135_596_800), 253_402_300_799) : 0
        let seconds = Int(clamped.rounded(.down))
        // Floor division: 1969-12-31T23:59:59Z is day -1, second 86,399.
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - day * 86_400
        let (year, month, dayOfMonth) = civilDate(daysSince1970: day)
        func pair(_ value: Int, at index: Int) {
            target[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
            target[index + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
        }
        pair(year / 100, at: 0)
        pair(year % 100, at: 2)
        target[4] = UInt8(ascii: "-")
        pair(month, at: 5)
        target[7] = UInt8(ascii: "-")
        pair(dayOfMonth, at: 8)
        target[10] = UInt8(ascii: "T")
        pair(second / 3_600, at: 11)
        target[13] = UInt8(ascii: ":")
        pair(second / 60 % 60, at: 14)
        target[16] = UInt8(ascii: ":")
        pair(second % 60, at: 17)
        target[19] = UInt8(ascii: "Z")
    }

    /// Year, month and day of the day `days` after 1970-01-01. Counted in 400-year cycles of 146,097 days from
    /// 0000-03-01, with years starting in March so the leap day ends a year; `days` within 0001–9999 only.
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        // 719,468 days lie between 0000-03-01 and 1970-01-01; from 0001-01-01 on the count is never negative.
        let sinceEpoch = days + 719_468
        let cycle = sinceEpoch / 146_097
        let dayOfCycle = sinceEpoch - cycle * 146_097
        // Years of 365 days, less the leap days: one every 4 years, none every 100, one every 400.
        let yearOfCycle =
            (dayOfCycle - dayOfCycle / 1_460 + dayOfCycle / 36_524 - dayOfCycle / 146_096) / 365
        let dayOfYear = dayOfCycle - (365 * yearOfCycle + yearOfCycle / 4 - yearOfCycle / 100)
        // Months from March: 31, 30, 31, 30, 31 repeat, so 153 days make five months.
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = cycle * 400 + yearOfCycle + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    // MARK: - Private

    /// The address to write `extra` more bytes at: the block made this buffer's own and large enough.
    private mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if !isKnownUniquelyReferenced(&block) {
            let copy = Block(capacity: capacity)
            copy.address.update(from: base, count: count)
            block = copy
            base = copy.address
        }
        if capacity - count < extra {
            var grown = capacity
            while grown - count < extra { grown *= 2 }
            guard let moved = realloc(block.address, grown) else {
                fatalError("out of memory for \(grown) bytes of JSON")
            }
            block.address = moved.bindMemory(to: UInt8.self, capacity: grown)
            base = block.address
            capacity = grown
        }
        return base + count
    }

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
