import COpenSSL

/// Base64url without padding (RFC 4648 section 5), as JOSE and PKCE use it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
        return table
    }()

    public static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) {
                output.append(alphabet[Int(chunk >> UInt32(shift) & 63)])
            }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            if rest == 2 { output.append(alphabet[Int(chunk >> 6 & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes base64url; accepts trailing `=` padding and the standard alphabet's `+` and `/`. Nil on anything else.
    public static func decode(_ string: String) -> [UInt8]? {
        var symbols = Array(string.utf8)
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        if symbols.count % 4 == 1 { return nil }
        var output = [UInt8]()
        output.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            // Standard-alphabet input is folded onto the url-safe alphabet.
            let mapped: UInt8
            switch symbol {
            case UInt8(ascii: "+"): mapped = UInt8(ascii: "-")
            case UInt8(ascii: "/"): mapped = UInt8(ascii: "_")
            default: mapped = symbol
            }
            let value = reverse[Int(mapped)]
            if value < 0 { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }
}

/// Lower-case hexadecimal.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 15)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes hex in either case; nil for odd length or any other character.
    public static func decode(_ string: String) -> [UInt8]? {
        let symbols = Array(string.utf8)
        guard symbols.count % 2 == 0 else { return nil }
        func nibble(_ symbol: UInt8) -> UInt8? {
            switch symbol {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return symbol - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return symbol - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return symbol - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var output = [UInt8]()
        output.reserveCapacity(symbols.count / 2)
        var index = 0
        while index < symbols.count {
            guard let high = nibble(symbols[index]), let low = nibble(symbols[index + 1]) else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }
}

/// Comparison whose time does not depend on where two byte strings differ (OpenSSL's CRYPTO_memcmp).
public enum ConstantTime {
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
