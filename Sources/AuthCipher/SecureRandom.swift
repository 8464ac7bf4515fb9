import COpenSSL

/// Cryptographically secure random bytes from OpenSSL's CSPRNG (seeded by the kernel).
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&buffer, Int32(count)) == 1 else { throw .randomUnavailable }
        return buffer
    }
}
