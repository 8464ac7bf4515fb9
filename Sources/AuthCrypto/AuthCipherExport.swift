// The OpenSSL-only half (AES-GCM, HMAC, SHA-256, random bytes, encodings) lives in AuthCipher, so the lean
// `authdeck` binary links it without cjose and jansson; every `import AuthCrypto` still sees all of it.
@_exported import AuthCipher
