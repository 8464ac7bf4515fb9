import CNettle

/// The two primitives `TokenRead` needs, from Nettle rather than OpenSSL: the lean binary then loads neither
/// libcrypto nor its providers. The boxes are the ones AuthCipher's `AESGCM` seals (nonce(12) ‖ ciphertext ‖
/// tag(16)); the tests check both libraries agree, and AuthCipher stays the one that seals.
package enum TokenCipher {
    /// Opens nonce ‖ ciphertext ‖ tag under a 32-byte key; nil when the key or box is malformed or does not
    /// authenticate (no plaintext is returned then).
    package static func openAESGCM(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8]) -> [UInt8]? {
        let nonceCount = 12
        let tagCount = 16
        guard key.count == 32, sealed.count >= nonceCount + tagCount else { return nil }
        let bodyCount = sealed.count - nonceCount - tagCount
        var context = gcm_aes256_ctx()
        var plaintext = [UInt8](repeating: 0, count: bodyCount)
        var tag = [UInt8](repeating: 0, count: tagCount)
        sealed.withUnsafeBufferPointer { box in
            let base = box.baseAddress!
            nettle_gcm_aes256_set_key(&context, key)
            nettle_gcm_aes256_set_iv(&context, nonceCount, base)
            nettle_gcm_aes256_update(&context, associatedData.count, associatedData)
            plaintext.withUnsafeMutableBufferPointer { output in
                nettle_gcm_aes256_decrypt(&context, bodyCount, output.baseAddress, base + nonceCount)
            }
            nettle_gcm_aes256_digest(&context, tagCount, &tag)
        }
        let verified = sealed.withUnsafeBufferPointer { box in
            nettle_memeql_sec(box.baseAddress! + nonceCount + bodyCount, tag, tagCount) != 0
        }
        withUnsafeMutableBytes(of: &context) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        guard verified else {
            plaintext.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            return nil
        }
        return plaintext
    }

    /// HMAC-SHA256 of `message` under `key`.
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var context = hmac_sha256_ctx()
        var output = [UInt8](repeating: 0, count: 32)
        nettle_hmac_sha256_set_key(&context, key.count, key)
        nettle_hmac_sha256_update(&context, message.count, message)
        nettle_hmac_sha256_digest(&context, 32, &output)
        withUnsafeMutableBytes(of: &context) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        return output
    }

    /// Whether two byte strings are equal, in time that depends only on their length.
    package static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.count == rhs.count && nettle_memeql_sec(lhs, rhs, lhs.count) != 0
    }
}
