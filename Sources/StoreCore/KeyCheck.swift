/// The check value a store keeps beside its master key (meta `key_check`): HMAC-SHA256 of
/// "authdeck-key-check:<store id>" under the key. It tells a wrong key from a damaged secret without decrypting
/// anything, and holds nothing about the key. Both binaries compute it here, with Nettle, so unlocking a store loads
/// no OpenSSL.
package enum KeyCheck {
    package static func value(masterKey: [UInt8], storeID: String) -> [UInt8] {
        TokenCipher.hmacSHA256(key: masterKey, message: Array(("authdeck-key-check:" + storeID).utf8))
    }

    /// Whether `masterKey` is the key `stored` was made with (in time that depends only on the lengths).
    package static func matches(_ stored: [UInt8], masterKey: [UInt8], storeID: String) -> Bool {
        TokenCipher.equal(stored, value(masterKey: masterKey, storeID: storeID))
    }
}
