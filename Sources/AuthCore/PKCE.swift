import AuthCrypto

/// Proof Key for Code Exchange (RFC 7636), S256 only.
public struct PKCE: Equatable, Sendable {
    public let verifier: String
    public let challenge: String
    public static let method = "S256"

    /// From 32 random bytes: the verifier is their base64url (43 characters).
    public init(randomBytes: [UInt8]) {
        precondition(randomBytes.count == 32, "PKCE wants 32 random bytes")
        self.init(verifier: Base64URL.encode(randomBytes))
    }

    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = PKCE.challenge(for: verifier)
    }

    /// base64url(SHA-256(ASCII(verifier))).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(Array(verifier.utf8)))
    }
}

/// The random values an attempt is bound by: `state` (128 bits) and the OIDC `nonce`.
public enum AttemptSecrets {
    /// 16 random bytes as base64url (22 characters).
    public static func state(randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count == 16, "state wants 128 random bits")
        return Base64URL.encode(randomBytes)
    }

    /// A nonce from random bytes, for providers that take one.
    public static func nonce(randomBytes: [UInt8]) -> String {
        precondition(randomBytes.count >= 16, "a nonce wants at least 128 random bits")
        return Base64URL.encode(randomBytes)
    }

    /// The turnkey binding: lower-case hex of SHA-256 over the UTF-8 of the compressed public key hex.
    /// The proxy checks `nonce == sha256(publicKey)`, so the ID token can only mint a session for this key.
    public static func turnkeyNonce(sessionPublicKeyHex: String) -> String {
        Hex.encode(SHA256.hash(Array(sessionPublicKeyHex.utf8)))
    }
}
