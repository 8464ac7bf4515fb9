import AuthCore

extension SignInError {
    /// The same failure with a note after its reason, keeping its kind (and so its exit code) where it has a reason
    /// to extend; the others become an authentication failure that quotes them.
    func adding(_ note: String) -> SignInError {
        switch self {
        case .invalidIdToken(let reason): return .invalidIdToken(reason: reason + "; " + note)
        case .authenticationFailed(let providerError):
            return .authenticationFailed(providerError: providerError + "; " + note)
        case .unavailable(let reason): return .unavailable(reason: reason + "; " + note)
        case .network(let message): return .network(message: message + "; " + note)
        case .closed, .signInInProgress, .callbackIncomplete, .stateMismatch, .issuerMismatch, .authMethodUnavailable,
            .grantUnavailable, .unauthorized, .rateLimited, .sessionStorageFailure, .timedOut, .invalidContact,
            .invalidCode, .codeRefused:
            return .authenticationFailed(providerError: message.trimmingSuffix(".") + "; " + note)
        }
    }
}
