import COpenSSL

/// scrypt cost parameters (RFC 7914), stored next to a salt so a passphrase can be re-derived later.
public struct ScryptParameters: Sendable, Equatable, Codable {
    public var n: UInt64
    public var r: UInt32
    public var p: UInt32

    public init(n: UInt64, r: UInt32, p: UInt32) {
        self.n = n
        self.r = r
        self.p = p
    }

    /// About 32 MiB and a few tenths of a second: the cost an interactive unlock can afford.
    public static let interactive = ScryptParameters(n: 32768, r: 8, p: 1)

    /// What a new store's passphrase wraps the master key with: N = 2^17, about 128 MiB, so each guess at a stolen
    /// store costs four times what `interactive` does. Stores made with other parameters keep theirs.
    public static let storeKey = ScryptParameters(n: 1 << 17, r: 8, p: 1)

    /// The memory scrypt needs (128·r·(N + p + 2) bytes, RFC 7914), nil on overflow.
    var memoryBytes: UInt64? {
        let (sum, overflowA) = n.addingReportingOverflow(UInt64(p) + 2)
        let (perBlock, overflowB) = UInt64(128).multipliedReportingOverflow(by: UInt64(r))
        let (total, overflowC) = perBlock.multipliedReportingOverflow(by: sum)
        return overflowA || overflowB || overflowC ? nil : total
    }
}

/// Password-based key derivation with scrypt, computed by OpenSSL's EVP_KDF "SCRYPT".
public enum Scrypt {
    /// Parameters read from a file may be hostile; past this the derivation is refused rather than attempted.
    public static let maximumMemoryBytes: UInt64 = 1 << 30

    public static func deriveKey(
        password: [UInt8], salt: [UInt8], parameters: ScryptParameters, length: Int
    ) throws(CryptoError) -> [UInt8] {
        let n = parameters.n
        let r = parameters.r
        let p = parameters.p
        guard n > 1, n & (n - 1) == 0 else { throw .malformedInput("scrypt N must be a power of two above 1") }
        guard r > 0, p > 0, UInt64(r) * UInt64(p) < 1 << 30 else {
            throw .malformedInput("scrypt r and p out of range")
        }
        guard length > 0 else { throw .malformedInput("scrypt output length must be positive") }
        guard let memory = parameters.memoryBytes, memory <= maximumMemoryBytes else {
            throw .malformedInput("scrypt parameters need more than 1 GiB of memory")
        }

        guard let kdf = EVP_KDF_fetch(nil, "SCRYPT", nil) else { throw openSSLFailure("EVP_KDF_fetch SCRYPT") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw openSSLFailure("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }

        var nValue = n
        var rValue = r
        var pValue = p
        // Let OpenSSL allocate what these (already capped) parameters need, whatever its built-in default.
        var maxMemory = memory + (1 << 20)
        // OpenSSL rejects a NULL buffer even with length 0, and empty arrays may have no address.
        var emptyByte: UInt8 = 0
        var output = [UInt8](repeating: 0, count: length)
        let status: Int32 = password.withUnsafeBytes { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                withUnsafeMutablePointer(to: &emptyByte) { empty in
                    withUnsafeMutablePointer(to: &nValue) { nPointer in
                        withUnsafeMutablePointer(to: &rValue) { rPointer in
                            withUnsafeMutablePointer(to: &pValue) { pPointer in
                                withUnsafeMutablePointer(to: &maxMemory) { memoryPointer in
                                    let passwordAddress = UnsafeMutableRawPointer(mutating: passwordBytes.baseAddress)
                                    let saltAddress = UnsafeMutableRawPointer(mutating: saltBytes.baseAddress)
                                    var params: [OSSL_PARAM] = [
                                        OSSL_PARAM_construct_octet_string(
                                            staticCString("pass"), passwordAddress ?? UnsafeMutableRawPointer(empty),
                                            password.count),
                                        OSSL_PARAM_construct_octet_string(
                                            staticCString("salt"), saltAddress ?? UnsafeMutableRawPointer(empty),
                                            salt.count),
                                        OSSL_PARAM_construct_uint64(staticCString("n"), nPointer),
                                        OSSL_PARAM_construct_uint32(staticCString("r"), rPointer),
                                        OSSL_PARAM_construct_uint32(staticCString("p"), pPointer),
                                        OSSL_PARAM_construct_uint64(staticCString("maxmem_bytes"), memoryPointer),
                                        OSSL_PARAM_construct_end(),
                                    ]
                                    return EVP_KDF_derive(context, &output, length, &params)
                                }
                            }
                        }
                    }
                }
            }
        }
        guard status == 1 else { throw openSSLFailure("scrypt derivation") }
        return output
    }
}
