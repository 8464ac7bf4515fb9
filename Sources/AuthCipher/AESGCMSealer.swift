import COpenSSL

/// `AESGCM.seal` for many boxes under one key (`store import` seals one per session): the cipher is fetched and
/// the key expanded once, and each box only sets a fresh random nonce on the same context. The boxes are exactly
/// what `AESGCM.seal` makes (nonce ‖ ciphertext ‖ tag) and open with `AESGCM.open`. Not for sharing between
/// threads.
public final class AESGCMSealer {
    private let context: OpaquePointer

    public init(key: [UInt8]) throws(CryptoError) {
        guard key.count == AESGCM.keyByteCount else { throw .invalidKey("AES-256-GCM needs a 32-byte key") }
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nil) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw openSSLFailure("AES-GCM encrypt init")
        }
        self.context = context
    }

    deinit {
        // Frees the expanded key with the context (OpenSSL cleanses it).
        EVP_CIPHER_CTX_free(context)
    }

    /// nonce(12) ‖ ciphertext ‖ tag(16). A random nonce is drawn when `nonce` is nil; pass one only for
    /// known-answer tests, as with `AESGCM.seal`.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8], nonce given: [UInt8]? = nil) throws(CryptoError)
        -> [UInt8]
    {
        let nonceCount = AESGCM.nonceByteCount
        let tagCount = AESGCM.tagByteCount
        if let given, given.count != nonceCount { throw .malformedInput("AES-GCM nonce must be 12 bytes") }
        var output = [UInt8](repeating: 0, count: nonceCount + plaintext.count + tagCount)
        let status: Int32 = output.withUnsafeMutableBufferPointer { buffer in
            let nonce = buffer.baseAddress!
            if let given {
                nonce.update(from: given, count: nonceCount)
            } else {
                guard RAND_bytes(nonce, Int32(nonceCount)) == 1 else { return -2 }
            }
            // A nil cipher and key keep both; only the nonce changes, and the GCM state starts over.
            guard EVP_EncryptInit_ex(context, nil, nil, nil, nonce) == 1 else { return -1 }
            var length: Int32 = 0
            if !associatedData.isEmpty {
                guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                    return -1
                }
            }
            let body = nonce + nonceCount
            var total: Int32 = 0
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, body, &total, plaintext, Int32(plaintext.count)) == 1 else {
                    return -1
                }
            }
            var final: Int32 = 0
            guard EVP_EncryptFinal_ex(context, body + Int(total), &final) == 1 else { return -1 }
            total += final
            guard total == Int32(plaintext.count),
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagCount), body + Int(total)) == 1
            else {
                return -1
            }
            return 1
        }
        if status == -2 { throw .randomUnavailable }
        guard status == 1 else { throw openSSLFailure("AES-GCM encrypt") }
        return output
    }
}
