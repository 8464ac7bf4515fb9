import AuthCrypto

/// Small conveniences over AuthCrypto used across this module.
enum AuthCryptoBridge {
    static func hexDigest(_ text: String) -> String {
        Hex.encode(SHA256.hash(Array(text.utf8)))
    }
}
