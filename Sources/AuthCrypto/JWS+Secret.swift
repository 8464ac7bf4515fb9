import CCjose
import COpenSSL

extension JWS {
    /// A compact HS256 JWS keyed with a shared secret's UTF-8 bytes (RFC 7518 3.2): `client_secret_jwt`'s assertion
    /// (OpenID Connect Core 9). Kept apart from `sign(payload:key:)`, which refuses symmetric keys, so no ID token or
    /// session signature can ever be made or accepted with one.
    public static func signHS256(payload: [UInt8], secret: String) throws(CryptoError) -> String {
        let key = try secretKey(secret)
        defer { cjose_jwk_release(key) }
        var error = cjose_err()
        guard let header = cjose_header_new(&error) else { throw cjoseFailure("JWS header", error) }
        defer { cjose_header_release(header) }
        guard cjose_header_set(header, "alg", "HS256", &error), cjose_header_set(header, "typ", "JWT", &error) else {
            throw cjoseFailure("JWS header", error)
        }
        return try compact(payload, header: header, key: key)
    }

    /// Verifies an HS256 JWS against a shared secret (what a server does with a `client_secret_jwt` assertion) and
    /// returns its header and payload. Any other `alg` is refused.
    public static func verifyHS256(_ compact: String, secret: String) throws(CryptoError) -> VerifiedJWS {
        let parts = try decodeUnverified(compact)
        let key = try secretKey(secret)
        defer { cjose_jwk_release(key) }
        try withParsed(compact) { (parsed) throws(CryptoError) in
            var error = cjose_err()
            guard let header = cjose_jws_get_protected(parsed), let alg = cjose_header_get(header, "alg", &error),
                String(cString: alg) == "HS256"
            else { throw .malformedInput("the JWS is not HS256") }
            guard cjose_jws_verify(parsed, key, &error) else {
                ERR_clear_error()
                throw .invalidSignature
            }
        }
        return VerifiedJWS(header: parts.header, payload: parts.payload, algorithm: "HS256", keyID: nil)
    }

    /// An "oct" key holding the secret's bytes; the caller releases it.
    private static func secretKey(_ secret: String) throws(CryptoError) -> OpaquePointer {
        guard !secret.isEmpty else { throw .invalidKey("an empty secret cannot sign") }
        var bytes = Array(secret.utf8)
        defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        var error = cjose_err()
        guard let key = cjose_jwk_create_oct_spec(bytes, bytes.count, &error) else {
            throw cjoseFailure("secret key", error)
        }
        return key
    }
}
