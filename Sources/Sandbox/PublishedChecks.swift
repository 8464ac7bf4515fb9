import AuthCrypto

/// The sandbox's own readings of the RFCs it checks clients against, written from the RFCs' text and never through
/// the client's helpers (`PKCE`, `TOTP`): a client helper that went wrong would otherwise agree with itself here and
/// every flow test would still pass. Only the primitives (SHA-256, HMAC, base64url), each tested against its
/// published vectors, are shared.
enum PublishedChecks {
    /// RFC 7636 section 4.6, S256: `BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) == code_challenge`.
    static func s256Challenge(of verifier: String) -> String {
        Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }

    /// RFC 6238 section 4 with the defaults Turnkey and Portal use (T0 = 0, X = 30 s, HMAC-SHA-1, 6 digits): HOTP
    /// (RFC 4226 section 5.3) of `K` at `T = floor(unixTime / 30)`.
    static func totp(key: [UInt8], unixTime: Int64) -> String {
        let counter = UInt64(max(0, unixTime)) / 30
        var message = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { message[7 - index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        let hs = HMAC.sha1(key: key, message: message)
        // Dynamic truncation: the low four bits of the last byte pick four bytes; their top bit is dropped.
        let offset = Int(hs[19] & 0x0F)
        let sbits =
            (UInt32(hs[offset]) & 0x7F) << 24 | UInt32(hs[offset + 1]) << 16 | UInt32(hs[offset + 2]) << 8
            | UInt32(hs[offset + 3])
        let digits = String(sbits % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
