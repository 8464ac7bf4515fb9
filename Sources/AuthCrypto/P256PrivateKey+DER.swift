/// DER signatures, for protocols that send ECDSA signatures as ASN.1 (Turnkey's API stamps).
extension P256PrivateKey {
    /// ECDSA P-256 over SHA-256(message), DER-encoded (SEQUENCE of r and s).
    public func derSignature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let raw = try signature(for: message)
        guard let der = ECDSASignature.der(fromRaw: raw) else { throw openSSLFailure("ECDSA signature encoding") }
        return der
    }
}
