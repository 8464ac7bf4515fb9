import CCjose
import COpenSSL

// OpenSSL's errors are turned into CryptoErrors by AuthCipher's `openSSLFailure`; cjose's here, with the JOSE half.

/// A cjose failure as one line; cjose's messages are fixed texts per error code.
func cjoseFailure(_ operation: String, _ error: cjose_err) -> CryptoError {
    ERR_clear_error()
    guard error.code != CJOSE_ERR_NONE, let text = error.message else { return .library(operation) }
    return .library("\(operation): \(String(cString: text))")
}
