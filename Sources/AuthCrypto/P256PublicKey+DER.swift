/// DER signatures, for protocols that send ECDSA signatures as ASN.1 (Turnkey's enclave bundles).
extension P256PublicKey {
    /// Whether `der` (an ASN.1 SEQUENCE of r and s) is an ECDSA P-256 signature of SHA-256(message) by this key.
    public func isValidSignature(der: [UInt8], for message: [UInt8]) -> Bool {
        guard let raw = try? ECDSASignature.raw(fromDER: der) else {
            clearOpenSSLErrors()
            return false
        }
        return isValidSignature(raw, for: message)
    }
}
