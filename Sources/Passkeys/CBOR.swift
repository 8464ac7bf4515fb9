/// The little of CBOR (RFC 8949) a WebAuthn authenticator writes: integers, byte and text strings, arrays and maps
/// with definite lengths, each head in its shortest form. Map members are written in the order given; callers give
/// them in CTAP2's canonical order (shorter encoded key first, then bytewise), as the COSE key and attestation
/// object need.
public indirect enum CBOR: Sendable, Equatable {
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    case map([(CBOR, CBOR)])

    public static func == (lhs: CBOR, rhs: CBOR) -> Bool { lhs.encoded == rhs.encoded }

    public var encoded: [UInt8] {
        var output: [UInt8] = []
        append(to: &output)
        return output
    }

    private func append(to output: inout [UInt8]) {
        switch self {
        case .integer(let value) where value >= 0:
            Self.head(major: 0, UInt64(value), into: &output)
        case .integer(let value):
            // Major type 1 carries -1 - n; for a negative Int64 that is its bitwise complement.
            Self.head(major: 1, UInt64(bitPattern: ~value), into: &output)
        case .bytes(let bytes):
            Self.head(major: 2, UInt64(bytes.count), into: &output)
            output += bytes
        case .text(let text):
            let bytes = Array(text.utf8)
            Self.head(major: 3, UInt64(bytes.count), into: &output)
            output += bytes
        case .array(let items):
            Self.head(major: 4, UInt64(items.count), into: &output)
            for item in items { item.append(to: &output) }
        case .map(let members):
            Self.head(major: 5, UInt64(members.count), into: &output)
            for (key, value) in members {
                key.append(to: &output)
                value.append(to: &output)
            }
        }
    }

    /// The initial byte and argument (RFC 8949 section 3): values below 24 fit the initial byte; larger ones
    /// follow in 1, 2, 4 or 8 big-endian bytes.
    private static func head(major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        let width: Int
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
            return
        case 24...0xff: width = 1
        case 0x100...0xffff: width = 2
        case 0x1_0000...0xffff_ffff: width = 4
        default: width = 8
        }
        // 24, 25, 26, 27: one, two, four or eight bytes follow.
        output.append(type | UInt8(24 + width.trailingZeroBitCount))
        for index in stride(from: width - 1, through: 0, by: -1) {
            output.append(UInt8(truncatingIfNeeded: argument >> (UInt64(index) * 8)))
        }
    }
}
