import AuthBase

#if canImport(Glibc)
    import Glibc
#endif

/// JSON text built as UTF-8 bytes in one block of memory. `list --json` writes 100,000 objects (30 MB): a row makes
/// room once and its pieces are copied straight into place (`JSONCursor`); past 2 MiB the block is memory of its own
/// on huge pages. A copy of a buffer shares the block until either writes.
package struct JSONBuffer {
    /// Owns the block (freed with the last copy); the address and sizes live in the struct, where the writes
    /// reach them without a class access.
    private final class Block {
        let address: UnsafeMutablePointer<UInt8>
        let capacity: Int
        /// The length of a large block's own mapping; 0 for a malloc'd one.
        private let mappedLength: Int

        init(capacity wanted: Int) {
            if wanted >= JSONBuffer.hugePage, let mapped = Self.mapHugePages(wanted) {
                address = mapped.address
                capacity = mapped.length
                mappedLength = mapped.length
            } else {
                guard let memory = malloc(wanted) else { fatalError("out of memory for \(wanted) bytes of JSON") }
                address = memory.bindMemory(to: UInt8.self, capacity: wanted)
                capacity = wanted
                mappedLength = 0
            }
        }

        deinit {
            if mappedLength > 0 { munmap(address, mappedLength) } else { free(address) }
        }

        /// Anonymous memory aligned to 2 MiB and advised for huge pages before any of it is touched: 30 MB in 4 KiB
        /// pages took 7,500 page faults, a fifth of `list --json`'s time at 100,000 sessions; in huge pages, 15.
        /// Where the kernel has none, the advice changes nothing. Nil when the mapping fails (malloc then serves).
        private static func mapHugePages(_ wanted: Int) -> (address: UnsafeMutablePointer<UInt8>, length: Int)? {
            let huge = JSONBuffer.hugePage
            let length = (wanted + huge - 1) / huge * huge
            guard let mapping = mmap(nil, length + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                mapping != UnsafeMutableRawPointer(bitPattern: -1)
            else { return nil }
            let start = Int(bitPattern: mapping)
            let aligned = (start + huge - 1) / huge * huge
            // Only the aligned part is kept.
            if aligned > start { munmap(mapping, aligned - start) }
            let tail = start + length + huge - (aligned + length)
            if tail > 0, let end = UnsafeMutableRawPointer(bitPattern: aligned + length) { munmap(end, tail) }
            guard let address = UnsafeMutableRawPointer(bitPattern: aligned) else { return nil }
            _ = madvise(address, length, MADV_HUGEPAGE)
            return (address.bindMemory(to: UInt8.self, capacity: length), length)
        }
    }

    /// The size of a huge page on x86-64 and arm64 (4 KiB base pages): where a block becomes a mapping of its own.
    fileprivate static let hugePage = 2 << 20

    private var block: Block
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    package private(set) var count = 0
    /// Whether a string written since the last `escapeHiddenCharacters` held a byte from DEL (0x7F) up: C0
    /// controls are escaped as they are written, so text without one is printable ASCII and needs nothing more.
    private var wroteBeyondASCII = false

    package init(capacity: Int = 0) {
        block = Block(capacity: max(capacity, 64))
        base = block.address
        self.capacity = block.capacity
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

    /// Makes room for `room` bytes, and lets `body` write at most that many through a cursor.
    package mutating func write(atMost room: Int, _ body: (inout JSONCursor) -> Void) {
        let start = reserve(room)
        var cursor = JSONCursor(start)
        body(&cursor)
        let written = cursor.position - start
        precondition(written <= room, "JSONBuffer: \(written) bytes written in room for \(room)")
        count += written
        if cursor.wroteBeyondASCII { wroteBeyondASCII = true }
    }

    /// Rewrites what was written from `start` on, when a string in it held a byte from DEL up, with each character a
    /// terminal would act on or hide as a JSON escape (`\u009b`): DEL, the C1 controls, bidi and other invisible
    /// marks (`TerminalText.isHiddenOrControl`). Such characters can only stand inside string literals, so the JSON
    /// still means exactly what was written, and the output passes `TerminalText.sanitizedLines` unchanged (which
    /// would otherwise drop them, or take a CSI or DCS and the closing quotes after it for an escape sequence). Bad
    /// UTF-8 becomes U+FFFD, as in a String. Every writer of strings calls it for its own span, so text of printable
    /// ASCII (nearly all of it) costs one flag test.
    package mutating func escapeHiddenCharacters(from start: Int) {
        guard wroteBeyondASCII else { return }
        wroteBeyondASCII = false
        let text = withUnsafeBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[start...]), as: UTF8.self) }
        let hex = Array("0123456789abcdef".utf8)
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if TerminalText.isHiddenOrControl(value) {
                escaped += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
                for shift in [12, 8, 4, 0] { escaped.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
            } else {
                escaped += Array(String(scalar).utf8)
            }
        }
        removeLast(from: start)
        escaped.withUnsafeBufferPointer { raw($0) }
    }

    package mutating func raw(_ literal: StaticString) {
        write(atMost: literal.utf8CodeUnitCount) { $0.raw(literal) }
    }

    /// Bytes as they are (UTF-8 text already escaped, or none that needs it).
    package mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        write(atMost: bytes.count) { $0.raw(bytes) }
    }

    package mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A string literal with JSON escapes (`escapeHiddenCharacters` included), or `null`.
    package mutating func string(_ value: String?) {
        let start = count
        write(atMost: JSONCursor.room(utf8: value?.utf8.count ?? 0)) { $0.string(value) }
        escapeHiddenCharacters(from: start)
    }

    /// Each field's name (a literal that carries its comma, quotes and colon: `,"token":`) and its value as `string`
    /// writes it; with `skippingUnset`, the fields whose value is nil are left out instead of written as `null`.
    package mutating func strings(_ fields: [(name: StaticString, value: String?)], skippingUnset: Bool = false) {
        for (name, value) in fields where value != nil || !skippingUnset {
            raw(name)
            string(value)
        }
    }

    /// A string literal from raw UTF-8 (an SQLite column, read without making a String), or `null`.
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>?) {
        let start = count
        write(atMost: JSONCursor.room(utf8: utf8?.count ?? 0)) { $0.string(utf8: utf8) }
        escapeHiddenCharacters(from: start)
    }

    /// `"2024-05-01T12:00:00Z"` (UTC, whole seconds) for seconds since 1970, or `null`.
    package mutating func date(seconds value: Double?) {
        write(atMost: JSONCursor.dateRoom) { $0.date(seconds: value) }
    }

    /// Forgets everything written from `index` on (to write it again differently).
    package mutating func removeLast(from index: Int) {
        precondition(index >= 0 && index <= count, "JSONBuffer.removeLast(from:) out of range")
        _ = reserve(0)
        count = index
    }

    /// `2024-05-01T12:00:00Z`: twenty bytes, UTC, whole seconds (rounded down).
    package static func appendISO8601(seconds interval: Double, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
            JSONCursor.writeISO8601(seconds: interval, at: text.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    // MARK: - Private

    /// The address to write `extra` more bytes at: the block made this buffer's own and large enough. A full block
    /// is copied into one twice as large, or four times once it is a mapping (fewer copies of megabytes).
    private mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        let unique = isKnownUniquelyReferenced(&block)
        if !unique || capacity - count < extra {
            var grown = capacity
            while grown - count < extra { grown *= grown >= Self.hugePage ? 4 : 2 }
            let copy = Block(capacity: grown)
            copy.address.update(from: base, count: count)
            block = copy
            base = copy.address
            capacity = copy.capacity
        }
        return base + count
    }
}
