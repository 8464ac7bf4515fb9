/// Percent-encoding as OAuth uses it: RFC 3986 unreserved characters stay, everything else is %XX of its UTF-8.
public enum FormEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    public static func escape(_ text: String) -> String {
        var output = [UInt8]()
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 15)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The `application/x-www-form-urlencoded` serialisation of one value (RFC 6749 Appendix B): as `escape`,
    /// but a space becomes `+`, which is what HTTP Basic client credentials need (RFC 6749 2.3.1).
    public static func escapeForm(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "+")
    }

    /// `name=value&…` with both sides escaped, in the given order.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Decodes one component: `%XX`, and `+` as space for form bodies and queries (paths keep their `+`). Nil on a
    /// broken escape or bytes that are not UTF-8.
    public static func unescape(_ text: Substring, plusIsSpace: Bool = true) -> String? {
        var output = [UInt8]()
        output.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                output.append(high << 4 | low)
            default:
                output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    /// Splits `a=1&b=2` into decoded pairs, in order. Nil when any component is malformed.
    public static func decode(_ text: Substring) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = part.firstIndex(of: "=") {
                name = part[..<equals]
                value = part[part.index(after: equals)...]
            } else {
                name = part
                value = ""
            }
            guard let decodedName = unescape(name), let decodedValue = unescape(value) else { return nil }
            pairs.append((decodedName, decodedValue))
        }
        return pairs
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
