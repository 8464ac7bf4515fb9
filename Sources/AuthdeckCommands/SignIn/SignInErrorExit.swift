import AuthCore

extension SignInError {
    /// SPEC section 5's exit code for a sign-in that ended in this error.
    var exitCode: ExitCode {
        switch self {
        case .closed: return .cancelled
        case .timedOut: return .timedOut
        case .authenticationFailed, .invalidIdToken, .unauthorized, .stateMismatch, .invalidCode, .rateLimited,
            .authMethodUnavailable, .grantUnavailable, .issuerMismatch, .codeRefused:
            return .authenticationFailed
        case .sessionStorageFailure: return .store
        case .invalidContact: return .usage
        case .signInInProgress, .unavailable, .callbackIncomplete, .network: return .failed
        }
    }

    var commandFailure: CommandFailure { CommandFailure(exitCode, message) }
}
