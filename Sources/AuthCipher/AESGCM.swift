import COpenSSL

/// AES-256-GCM through OpenSSL's EVP interface, as one sealed box: nonce ‖ ciphertext ‖ tag.
public enum AESGCM {
    public static let keyByteCount = 32, nonceByteCount = 12, tagByteCount = 16

    /// Returns nonce(12) ‖ ciphertext ‖ tag(16). A random nonce is drawn when `nonce` is nil.
    /// Pass a nonce only for known-answer tests: reusing one with the same key breaks GCM.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8], nonce: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        try AESGCMSealer(key: key).seal(plaintext, associatedData: associatedData, nonce: nonce)
    }

    /// Opens what `seal` returned; throws CryptoError.authenticationFailed on any tampering or wrong key/aad,
    /// .malformedInput when too short.
    public static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keyByteCount else { throw .invalidKey("AES-256-GCM needs a 32-byte key") }
        guard sealed.count >= nonceByteCount + tagByteCount else {
            throw .malformedInput("sealed box shorter than nonce and tag")
        }
        let bodyCount = sealed.count - nonceByteCount - tagByteCount
        guard let context = EVP_CIPHER_CTX_new() else { throw openSSLFailure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }

        let nonce = Array(sealed[..<nonceByteCount])
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
            throw openSSLFailure("AES-GCM decrypt init")
        }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw openSSLFailure("AES-GCM associated data")
            }
        }
        var plaintext = [UInt8](repeating: 0, count: bodyCount)
        var tag = Array(sealed[(sealed.count - tagByteCount)...])
        let verified: Bool = sealed.withUnsafeBufferPointer { input in
            plaintext.withUnsafeMutableBufferPointer { output in
                var total: Int32 = 0
                if bodyCount > 0 {
                    guard
                        EVP_DecryptUpdate(
                            context, output.baseAddress, &total,
                            input.baseAddress! + nonceByteCount, Int32(bodyCount)) == 1
                    else {
                        return false
                    }
                }
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &tag) == 1 else {
                    return false
                }
                var final: Int32 = 0
                // The tag is checked here; a mismatch is the only expected failure.
                return EVP_DecryptFinal_ex(context, output.baseAddress.map { $0 + Int(total) }, &final) == 1
            }
        }
        guard verified else {
            clearOpenSSLErrors()
            // Never hand back plaintext that did not authenticate.
            plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw .authenticationFailed
        }
        return plaintext
    }
}
