import COpenSSL

/// HMAC (RFC 2104) through OpenSSL's one-shot HMAC.
public enum HMAC {
    public enum Algorithm: Sendable {
        case sha1, sha256, sha512

        var evp: OpaquePointer? {
            switch self {
            case .sha1: return EVP_sha1()
            case .sha256: return EVP_sha256()
            case .sha512: return EVP_sha512()
            }
        }
    }

    public static func authenticationCode(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                COpenSSL.HMAC(
                    algorithm.evp, keyBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                    &output, &length)
            }
        }
        precondition(result != nil, "OpenSSL HMAC unavailable")
        return Array(output.prefix(Int(length)))
    }

    public static func sha1(key: [UInt8], message: [UInt8]) -> [UInt8] {
        authenticationCode(.sha1, key: key, message: message)
    }

    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        authenticationCode(.sha256, key: key, message: message)
    }
}
