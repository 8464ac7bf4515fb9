/// Time-based one-time passwords (RFC 6238) on top of HOTP (RFC 4226), with OpenSSL's HMAC.
public enum TOTP {
    /// The HMAC hash named by an `otpauth://` link's `algorithm` parameter.
    public enum Algorithm: String, Sendable, Codable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"

        var hmac: HMAC.Algorithm {
            switch self {
            case .sha1: return .sha1
            case .sha256: return .sha256
            case .sha512: return .sha512
            }
        }
    }

    /// RFC 6238 code for the Unix time `time` (seconds), zero-padded to `digits` (1 to 10).
    public static func code(
        secret: [UInt8], time: Int64, digits: Int = 6, period: Int64 = 30, algorithm: Algorithm = .sha1
    ) -> String {
        precondition((1...10).contains(digits), "TOTP digits must be 1 to 10")
        precondition(period > 0, "TOTP period must be positive")
        // A clock before 1970 is not worth a trap; such times share the first step.
        let counter = UInt64(max(0, time) / period)
        return hotp(secret: secret, counter: counter, digits: digits, algorithm: algorithm)
    }

    /// RFC 4226 HOTP: dynamic truncation of HMAC(secret, counter as 8 big-endian bytes).
    static func hotp(secret: [UInt8], counter: UInt64, digits: Int, algorithm: Algorithm) -> String {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * $0)) }
        let mac = HMAC.authenticationCode(algorithm.hmac, key: secret, message: message)
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            UInt64(mac[offset] & 0x7F) << 24 | UInt64(mac[offset + 1]) << 16
            | UInt64(mac[offset + 2]) << 8 | UInt64(mac[offset + 3])
        var modulus: UInt64 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }
}
