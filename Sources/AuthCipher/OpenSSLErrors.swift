import COpenSSL

/// Turns OpenSSL's thread-local error queue into a one-line CryptoError and empties the queue,
/// so a stale entry never surfaces in an unrelated later call on the same thread.
package func openSSLFailure(_ operation: String) -> CryptoError {
    let code = ERR_peek_last_error()
    var message = operation
    if code != 0, let reason = ERR_reason_error_string(code) {
        // Reason strings are fixed texts inside OpenSSL; they never carry key or message bytes.
        message += " (\(String(cString: reason)))"
    }
    ERR_clear_error()
    return .library(message)
}

/// Drops whatever OpenSSL queued during a failure we report in our own words.
package func clearOpenSSLErrors() {
    ERR_clear_error()
}

/// A NUL-terminated C string that lives for the whole program, for OSSL_PARAM keys that
/// OpenSSL keeps pointing at after the call that built them returns.
package func staticCString(_ string: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
}
