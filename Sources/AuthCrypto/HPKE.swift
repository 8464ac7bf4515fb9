import COpenSSL

/// HPKE (RFC 9180) in base mode for one suite: DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM, one
/// message per context (sequence number 0). Turnkey encrypts OTP codes to its enclave this way. The Diffie-Hellman,
/// HKDF and AES-GCM steps are OpenSSL's (3.0 has no HPKE of its own); only the RFC's labels and key schedule are
/// written here.
public enum HPKE {
    /// `kem_id` 0x0010, `kdf_id` 0x0001, `aead_id` 0x0002 (RFC 9180 section 7).
    static let kemSuite: [UInt8] = Array("KEM".utf8) + [0x00, 0x10]
    static let suite: [UInt8] = Array("HPKE".utf8) + [0x00, 0x10, 0x00, 0x01, 0x00, 0x02]

    /// One sealed message: `enc` (the ephemeral public key, 65 bytes uncompressed) and ciphertext ‖ tag.
    public struct Sealed: Sendable, Equatable {
        public let encapsulatedKey: [UInt8]
        public let ciphertext: [UInt8]

        public init(encapsulatedKey: [UInt8], ciphertext: [UInt8]) {
            self.encapsulatedKey = encapsulatedKey
            self.ciphertext = ciphertext
        }
    }

    /// Seals `plaintext` to `recipient` (SetupBaseS, then Seal) with the ephemeral key `ephemeral`, drawn fresh
    /// when nil; a caller whose associated data holds `enc` draws it first. Never reuse one.
    public static func seal(
        _ plaintext: [UInt8], to recipient: P256PublicKey, info: [UInt8], associatedData: [UInt8],
        ephemeral: P256PrivateKey? = nil
    ) throws(CryptoError) -> Sealed {
        let sender: P256PrivateKey
        if let ephemeral { sender = ephemeral } else { sender = try P256PrivateKey() }
        let enc = sender.publicKey.x963Representation
        let dh = try sharedSecret(sender, recipient)
        let (key, nonce) = try keySchedule(
            sharedSecret: try encapsulatedSecret(dh: dh, enc: enc, recipient: recipient.x963Representation), info: info)
        let sealed = try AESGCM.seal(plaintext, key: key, associatedData: associatedData, nonce: nonce)
        return Sealed(encapsulatedKey: enc, ciphertext: Array(sealed.dropFirst(AESGCM.nonceByteCount)))
    }

    /// Opens what `seal` made for `recipient` (SetupBaseR, then Open); authenticationFailed on any change.
    public static func open(
        _ sealed: Sealed, recipient: P256PrivateKey, info: [UInt8], associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        let sender = try P256PublicKey(x963Representation: sealed.encapsulatedKey)
        let dh = try sharedSecret(recipient, sender)
        let (key, nonce) = try keySchedule(
            sharedSecret: try encapsulatedSecret(
                dh: dh, enc: sealed.encapsulatedKey, recipient: recipient.publicKey.x963Representation),
            info: info)
        return try AESGCM.open(nonce + sealed.ciphertext, key: key, associatedData: associatedData)
    }

    // MARK: - RFC 9180's pieces

    /// ExtractAndExpand of DHKEM (section 4.1): the KEM's shared secret from the DH value and both public keys.
    static func encapsulatedSecret(dh: [UInt8], enc: [UInt8], recipient: [UInt8]) throws(CryptoError) -> [UInt8] {
        let prk = try labeledExtract(salt: [], label: "eae_prk", ikm: dh, suite: kemSuite)
        return try labeledExpand(prk: prk, label: "shared_secret", info: enc + recipient, length: 32, suite: kemSuite)
    }

    /// KeySchedule for mode_base with no PSK (section 5.1): the AEAD key and base nonce.
    static func keySchedule(sharedSecret: [UInt8], info: [UInt8]) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8])
    {
        let pskIDHash = try labeledExtract(salt: [], label: "psk_id_hash", ikm: [], suite: suite)
        let infoHash = try labeledExtract(salt: [], label: "info_hash", ikm: info, suite: suite)
        let context = [0x00] + pskIDHash + infoHash
        let secret = try labeledExtract(salt: sharedSecret, label: "secret", ikm: [], suite: suite)
        return (
            try labeledExpand(prk: secret, label: "key", info: context, length: AESGCM.keyByteCount, suite: suite),
            try labeledExpand(
                prk: secret, label: "base_nonce", info: context, length: AESGCM.nonceByteCount, suite: suite)
        )
    }

    static func labeledExtract(salt: [UInt8], label: String, ikm: [UInt8], suite: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        try HKDF.extract(salt: salt, ikm: Array("HPKE-v1".utf8) + suite + Array(label.utf8) + ikm)
    }

    static func labeledExpand(
        prk: [UInt8], label: String, info: [UInt8], length: Int, suite: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        let labeled = [UInt8(length >> 8), UInt8(length & 0xff)] + Array("HPKE-v1".utf8) + suite + Array(label.utf8)
        return try HKDF.expand(prk: prk, info: labeled + info, length: length)
    }

    /// The x coordinate of d·Q (ECDH on P-256), by OpenSSL's EVP_PKEY_derive.
    static func sharedSecret(_ own: P256PrivateKey, _ peer: P256PublicKey) throws(CryptoError) -> [UInt8] {
        let key = try P256Curve.makeKey(
            publicX963: own.publicKey.x963Representation, privateScalar: own.rawRepresentation)
        defer { EVP_PKEY_free(key) }
        let peerKey = try P256Curve.makeKey(publicX963: peer.x963Representation, privateScalar: nil)
        defer { EVP_PKEY_free(peerKey) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw openSSLFailure("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1,
            EVP_PKEY_derive(context, nil, &length) == 1
        else {
            throw openSSLFailure("P-256 key agreement")
        }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == P256Curve.scalarByteCount else {
            throw openSSLFailure("P-256 key agreement")
        }
        return Array(secret.prefix(length))
    }
}
