import CCjose
import COpenSSL

extension JWK {
    /// A signing key from an unencrypted PEM private key (PKCS#8, PKCS#1 or SEC1): RSA of at least 2048 bits, or
    /// EC P-256. OpenSSL parses the PEM and cjose holds the key; an encrypted PEM, a public key, another curve or
    /// another key type is refused with what was found, never prompting for a passphrase.
    public convenience init(privateKeyPEM pem: String, keyID: String?) throws(CryptoError) {
        if pem.contains("ENCRYPTED") { throw .invalidKey("the PEM key is encrypted") }
        guard let key = P256PrivateKey.openSSLKey(pem: pem) else {
            clearOpenSSLErrors()
            if pem.contains("PUBLIC KEY") || pem.contains("CERTIFICATE") {
                throw .invalidKey("the PEM holds a public key or certificate, not the private key")
            }
            throw .invalidKey("not a PEM private key")
        }
        defer { EVP_PKEY_free(key) }
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_EC:
            try self.init(p256: P256PrivateKey(rawRepresentation: P256Curve.privateScalar(of: key)), keyID: keyID)
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            try self.init(taking: Self.rsaKey(key), keyID: keyID)
        default:
            throw .invalidKey("the PEM key is neither RSA nor EC P-256")
        }
    }

    /// cjose's copy of an OpenSSL RSA private key, built from its CRT parameters (RFC 7518 6.3.2).
    private static func rsaKey(_ key: OpaquePointer) throws(CryptoError) -> OpaquePointer {
        let names = ["e", "n", "d", "rsa-factor1", "rsa-factor2", "rsa-exponent1", "rsa-exponent2", "rsa-coefficient1"]
        // Every parameter in one buffer, so cjose gets pointers that stay valid for the whole call.
        var joined: [UInt8] = []
        var ranges: [(offset: Int, count: Int)] = []
        defer { joined.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        for name in names {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
                clearOpenSSLErrors()
                throw .invalidKey("the RSA key has no private part")
            }
            var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
            BN_bn2bin(number, &bytes)
            BN_clear_free(number)
            ranges.append((joined.count, bytes.count))
            joined += bytes
            bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        }
        var error = cjose_err()
        let created: OpaquePointer? = joined.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress
            func part(_ index: Int) -> (UnsafeMutablePointer<UInt8>?, Int) {
                (base.map { $0 + ranges[index].offset }, ranges[index].count)
            }
            var spec = cjose_jwk_rsa_keyspec()
            (spec.e, spec.elen) = part(0)
            (spec.n, spec.nlen) = part(1)
            (spec.d, spec.dlen) = part(2)
            (spec.p, spec.plen) = part(3)
            (spec.q, spec.qlen) = part(4)
            (spec.dp, spec.dplen) = part(5)
            (spec.dq, spec.dqlen) = part(6)
            (spec.qi, spec.qilen) = part(7)
            return cjose_jwk_create_RSA_spec(&spec, &error)
        }
        guard let created else { throw cjoseFailure("RSA key import", error) }
        return created
    }
}
