/// How Portal's SDKs send `redirectUrl`, which Portal's backend matches byte for byte against the allow-list:
/// portal-hq/PortalSwift's `PortalAuthApi.formUrlEncode` documents it as Java's `URLEncoder` with `%20` for
/// space. `A-Z a-z 0-9 - _ . *` go as they are, every other byte as `%` and two uppercase hex digits, so a URL sent
/// unencoded (`authdeck://callback`, as `URLQueryItem` would leave it) is not that form and gets the backend's 401.
/// Written from that description as a check of what arrived, not as an encoder.
enum PortalRedirectForm {
    /// Whether the raw query carries `redirectUrl` exactly once, and in that form, for `url`.
    static func isSent(_ query: Substring, as url: String) -> Bool {
        let values = query.split(separator: "&").filter { $0.hasPrefix("redirectUrl=") }
        guard values.count == 1 else { return false }
        let raw = Array(values[0].dropFirst("redirectUrl=".count).utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if isLeftAsIs(byte) {
                decoded.append(byte)
                index += 1
                continue
            }
            // Anything else must be an escape: `%`, two uppercase hex digits, of a byte the form does escape.
            guard byte == UInt8(ascii: "%"), let high = upperHex(raw, index + 1), let low = upperHex(raw, index + 2)
            else { return false }
            let escaped = high << 4 | low
            guard !isLeftAsIs(escaped) else { return false }
            decoded.append(escaped)
            index += 3
        }
        return decoded == Array(url.utf8)
    }

    private static func isLeftAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "*"):
            return true
        default:
            return false
        }
    }

    /// The value of an uppercase hex digit at `index`, nil past the end or for anything else (lowercase included).
    private static func upperHex(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[index] - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[index] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
