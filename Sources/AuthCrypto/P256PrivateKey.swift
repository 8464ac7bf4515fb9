import COpenSSL

/// A P-256 (secp256r1) private key: a Turnkey session key, or an operator's Apple .p8 signing key.
/// Holds only the 32-byte scalar and its public point; OpenSSL objects are built per operation.
public struct P256PrivateKey: Sendable {
    private let scalar: [UInt8]
    public let publicKey: P256PublicKey

    /// A fresh random key from OpenSSL's key generator.
    public init() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw openSSLFailure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else {
            throw openSSLFailure("P-256 key generation")
        }
        defer { EVP_PKEY_free(key) }
        try self.init(rawRepresentation: P256Curve.privateScalar(of: key))
    }

    /// A key from its 32-byte big-endian scalar, which must lie in 1..<n.
    public init(rawRepresentation: [UInt8]) throws(CryptoError) {
        let point = try P256Curve.publicPoint(forScalar: rawRepresentation)
        scalar = rawRepresentation
        publicKey = try P256PublicKey(x963Representation: point)
    }

    /// A key from PEM: PKCS#8 "BEGIN PRIVATE KEY" (Apple's .p8 files) or SEC1 "BEGIN EC PRIVATE KEY".
    /// Encrypted PEM is refused rather than prompting on the terminal.
    public init(pemRepresentation: String) throws(CryptoError) {
        guard let key = Self.openSSLKey(pem: pemRepresentation) else {
            clearOpenSSLErrors()
            throw .invalidKey("not an unencrypted PEM private key")
        }
        defer { EVP_PKEY_free(key) }
        try self.init(rawRepresentation: P256Curve.privateScalar(of: key))
    }

    /// OpenSSL's key from PEM (the caller frees it), never prompting: without a callback OpenSSL would ask for a
    /// passphrase on the controlling terminal.
    static func openSSLKey(pem: String) -> OpaquePointer? {
        let text = Array(pem.utf8)
        return text.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
    }

    /// The 32-byte big-endian private scalar.
    public var rawRepresentation: [UInt8] { scalar }

    /// ECDSA P-256 over SHA-256(message); returns raw r‖s, 64 bytes.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let key = try P256Curve.makeKey(publicX963: publicKey.x963Representation, privateScalar: scalar)
        defer { EVP_PKEY_free(key) }
        guard let digestContext = EVP_MD_CTX_new() else { throw openSSLFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(digestContext) }
        guard EVP_DigestSignInit(digestContext, nil, EVP_sha256(), nil, key) == 1 else {
            throw openSSLFailure("ECDSA sign init")
        }
        var derLength = 0
        guard EVP_DigestSign(digestContext, nil, &derLength, message, message.count) == 1 else {
            throw openSSLFailure("ECDSA sign")
        }
        var der = [UInt8](repeating: 0, count: derLength)
        guard EVP_DigestSign(digestContext, &der, &derLength, message, message.count) == 1 else {
            throw openSSLFailure("ECDSA sign")
        }
        return try ECDSASignature.raw(fromDER: Array(der.prefix(derLength)))
    }
}

/// Conversions between OpenSSL's DER ECDSA signatures and the fixed-width r‖s that JOSE and Turnkey use.
enum ECDSASignature {
    static func raw(fromDER der: [UInt8], coordinateByteCount: Int = 32) throws(CryptoError) -> [UInt8] {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw openSSLFailure("ECDSA signature decoding") }
        defer { ECDSA_SIG_free(signature) }
        var output = [UInt8](repeating: 0, count: 2 * coordinateByteCount)
        let width = Int32(coordinateByteCount)
        let ok = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, width) == width
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + coordinateByteCount, width) == width
        }
        guard ok else { throw openSSLFailure("ECDSA signature encoding") }
        return output
    }

    /// DER for a raw r‖s, or nil when it is not two equal halves that OpenSSL accepts.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard !raw.isEmpty, raw.count % 2 == 0 else { return nil }
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, Int32(half), nil) else { return nil }
        guard let s = Array(raw[half...]).withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32(half), nil) })
        else {
            BN_free(r)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? output : nil
    }
}
