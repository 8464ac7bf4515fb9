import COpenSSL

/// HKDF-SHA256 (RFC 5869) in its two halves, computed by OpenSSL's EVP_KDF "HKDF" (modes EXTRACT_ONLY and
/// EXPAND_ONLY), for protocols that label each half themselves (HPKE).
enum HKDF {
    /// HKDF-Extract(salt, ikm): the 32-byte pseudorandom key. An empty salt is 32 zero bytes, as the RFC says.
    static func extract(salt: [UInt8], ikm: [UInt8]) throws(CryptoError) -> [UInt8] {
        let salt = salt.isEmpty ? [UInt8](repeating: 0, count: SHA256.byteCount) : salt
        return try derive(mode: "EXTRACT_ONLY", key: ikm, salt: salt, info: nil, length: SHA256.byteCount)
    }

    /// HKDF-Expand(prk, info, length).
    static func expand(prk: [UInt8], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try derive(mode: "EXPAND_ONLY", key: prk, salt: nil, info: info, length: length)
    }

    private static func derive(
        mode: String, key: [UInt8], salt: [UInt8]?, info: [UInt8]?, length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw openSSLFailure("EVP_KDF_fetch HKDF") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw openSSLFailure("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }
        guard !key.isEmpty else { throw .malformedInput("HKDF needs input keying material") }
        var key = key
        var salt = salt ?? []
        var info = info ?? []
        var digest = Array("SHA256".utf8CString)
        var modeName = Array(mode.utf8CString)
        var output = [UInt8](repeating: 0, count: length)
        let status: Int32 = digest.withUnsafeMutableBufferPointer { digest in
            modeName.withUnsafeMutableBufferPointer { modeName in
                key.withUnsafeMutableBytes { key in
                    salt.withUnsafeMutableBytes { salt in
                        info.withUnsafeMutableBytes { info in
                            var params: [OSSL_PARAM] = [
                                OSSL_PARAM_construct_utf8_string(staticCString("digest"), digest.baseAddress, 0),
                                OSSL_PARAM_construct_utf8_string(staticCString("mode"), modeName.baseAddress, 0),
                                OSSL_PARAM_construct_octet_string(staticCString("key"), key.baseAddress, key.count),
                            ]
                            // Absent rather than empty: OpenSSL refuses a NULL buffer even with length 0.
                            let optional: [(StaticString, UnsafeMutableRawBufferPointer)] = [
                                ("salt", salt), ("info", info),
                            ]
                            for (name, bytes) in optional where bytes.count > 0 {
                                params.append(
                                    OSSL_PARAM_construct_octet_string(
                                        staticCString(name), bytes.baseAddress, bytes.count))
                            }
                            params.append(OSSL_PARAM_construct_end())
                            return EVP_KDF_derive(context, &output, length, &params)
                        }
                    }
                }
            }
        }
        guard status == 1 else { throw openSSLFailure("HKDF \(mode)") }
        return output
    }
}
