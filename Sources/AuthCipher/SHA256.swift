import COpenSSL

/// SHA-256 through OpenSSL's one-shot EVP digest.
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest only fails when OpenSSL itself is broken (no SHA-256 provider); that is a build fault.
        precondition(ok == 1 && length == UInt32(byteCount), "OpenSSL SHA-256 unavailable")
        return digest
    }

    public static func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }
}
