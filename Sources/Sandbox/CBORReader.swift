/// The CBOR (RFC 8949) a relying party reads from an authenticator: unsigned and negative integers, byte and text
/// strings, arrays and maps, definite lengths only (WebAuthn section 5.8.5 and CTAP2's canonical form allow no
/// other). Written from the RFC for the sandbox's checks; nothing here is shared with authdeck's client.
enum CBORItem: Equatable {
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBORItem])
    case map([(CBORItem, CBORItem)])

    static func == (lhs: CBORItem, rhs: CBORItem) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member of a map under `key`.
    subscript(key: CBORItem) -> CBORItem? {
        guard case .map(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { return bytes }
        return nil
    }

    var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}

struct CBORReader {
    struct Malformed: Error {}

    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// One whole item that is all of `bytes`.
    static func item(_ bytes: [UInt8]) throws(Malformed) -> CBORItem {
        var reader = CBORReader(bytes)
        let item = try reader.read()
        guard reader.offset == bytes.count else { throw Malformed() }
        return item
    }

    /// The next item; `offset` moves past it.
    mutating func read(depth: Int = 0) throws(Malformed) -> CBORItem {
        guard depth < 16, offset < bytes.count else { throw Malformed() }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5
        let argument = try self.argument(initial & 0x1f)
        switch major {
        case 0:
            guard argument <= UInt64(Int64.max) else { throw Malformed() }
            return .integer(Int64(argument))
        case 1:
            guard argument <= UInt64(Int64.max) else { throw Malformed() }
            return .integer(-1 - Int64(argument))
        case 2:
            return .bytes(try take(argument))
        case 3:
            guard let text = String(validating: try take(argument), as: UTF8.self) else { throw Malformed() }
            return .text(text)
        case 4:
            guard argument <= UInt64(bytes.count - offset) else { throw Malformed() }
            var items: [CBORItem] = []
            for _ in 0..<argument { items.append(try read(depth: depth + 1)) }
            return .array(items)
        case 5:
            guard argument <= UInt64(bytes.count - offset) else { throw Malformed() }
            var members: [(CBORItem, CBORItem)] = []
            for _ in 0..<argument {
                let key = try read(depth: depth + 1)
                members.append((key, try read(depth: depth + 1)))
            }
            return .map(members)
        default:
            throw Malformed()  // tags, floats and simple values are not part of what WebAuthn sends
        }
    }

    /// The head's argument (RFC 8949 section 3): below 24 in the initial byte, 24–27 for 1, 2, 4 or 8 bytes
    /// following; 28–31 (reserved, indefinite lengths) are refused.
    private mutating func argument(_ info: UInt8) throws(Malformed) -> UInt64 {
        if info < 24 { return UInt64(info) }
        guard info <= 27 else { throw Malformed() }
        let count = 1 << Int(info - 24)
        var value: UInt64 = 0
        for byte in try take(UInt64(count)) { value = value << 8 | UInt64(byte) }
        return value
    }

    private mutating func take(_ count: UInt64) throws(Malformed) -> [UInt8] {
        guard count <= UInt64(bytes.count - offset) else { throw Malformed() }
        let slice = Array(bytes[offset..<offset + Int(count)])
        offset += Int(count)
        return slice
    }
}
