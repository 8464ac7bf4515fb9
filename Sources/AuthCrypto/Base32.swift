/// Base32 (RFC 4648 section 6), the encoding of TOTP seeds in `otpauth://` links and `totp add --secret`.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes case-insensitively, ignoring spaces and `=` (seeds are often shown in groups of four).
    /// Nil for any other character or for a length no encoder produces.
    public static func decode(_ string: String) -> [UInt8]? {
        var output: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        var symbols = 0
        for symbol in string.utf8 {
            let value: UInt8
            switch symbol {
            case UInt8(ascii: " "), UInt8(ascii: "="): continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = symbol - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = symbol - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = symbol - UInt8(ascii: "2") + 26
            default: return nil
            }
            symbols += 1
            accumulator = (accumulator << 5 | UInt32(value)) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // 1, 3 or 6 symbols in the last group of 8 cannot come from whole bytes.
        guard ![1, 3, 6].contains(symbols % 8) else { return nil }
        return output
    }

    /// Upper-case, without `=` padding, as authenticator apps expect in `otpauth://` links.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8 | UInt32(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int(accumulator >> UInt32(bits) & 31)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int(accumulator << UInt32(5 - bits) & 31)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
