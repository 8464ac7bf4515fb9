/// Every way a sign-in can fail, one enum for the TUI and the command line alike. The cases mirror the
/// seeds' error types; each has a one-line message that names no token or secret.
public enum SignInError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The user cancelled (Esc, Ctrl-C) or the provider answered `access_denied`.
    case closed
    /// A sign-in is already running; the new one was not started.
    case signInInProgress
    /// The flow could not start: no browser, no receiver, a misconfigured backend.
    case unavailable(reason: String)
    /// A callback carried no sign-in result (no code, token or error) for this attempt.
    case callbackIncomplete
    /// A callback's `state` did not match the attempt's.
    case stateMismatch
    /// The authorization response came from another issuer than the request went to (RFC 9207 `iss` another, or
    /// missing where the issuer always sends it): a mix-up. `received` is nil when `iss` was missing.
    case issuerMismatch(received: String?, expected: String)
    /// The backend does not offer this sign-in method.
    case authMethodUnavailable(method: String)
    /// `login --grant` asked for a grant this provider or client cannot run (no CIBA endpoint, a public client).
    case grantUnavailable(grant: String, reason: String)
    /// The provider or backend refused the sign-in; its own description rides along.
    case authenticationFailed(providerError: String)
    /// An ID token failed verification (signature, issuer, audience, expiry, nonce).
    case invalidIdToken(reason: String)
    /// The backend refused the request (wrong client, redirect not allowed, grant rejected).
    case unauthorized
    /// Too many attempts or requests; try again later.
    case rateLimited
    /// The session could not be saved; it is not reported as signed in.
    case sessionStorageFailure(message: String)
    /// The attempt passed its deadline.
    case timedOut
    /// The email address or phone number is not valid.
    case invalidContact
    /// The code has the wrong length or characters, or the backend refused it.
    case invalidCode
    /// The backend refused a typed code with its own reason (wrong, expired, too many tries); the code step stays,
    /// as the service's SDK keeps its code screen, for another code or a resend.
    case codeRefused(reason: String)
    /// A transport failure talking to the provider or backend.
    case network(message: String)

    public var description: String { message }

    /// Whether this refusal of a typed code leaves the code step open for another try.
    public var refusesCode: Bool {
        if case .codeRefused = self { return true }
        return false
    }

    /// One line for a person: what happened, and where useful what to do next.
    public var message: String {
        switch self {
        case .closed: return "Sign-in cancelled."
        case .signInInProgress: return "A sign-in is already in progress; finish or cancel it first."
        case .unavailable(let reason): return "Sign-in unavailable: \(reason)."
        case .callbackIncomplete: return "The browser returned no sign-in result for this attempt."
        case .stateMismatch: return "Refused a callback whose state does not match this sign-in."
        case .issuerMismatch(let received?, let expected):
            return "The response came from another issuer: its iss is \(Self.printable(received)), "
                + "not \(expected); nothing was stored."
        case .issuerMismatch(nil, let expected):
            return "The response came from another issuer: it carried no iss, which \(expected) always sends "
                + "(RFC 9207); nothing was stored."
        case .authMethodUnavailable(let method): return "\(method) sign-in is not enabled for this backend."
        case .grantUnavailable(let grant, let reason): return "The \(grant) grant cannot run: \(reason)."
        case .authenticationFailed(let providerError): return "Authentication failed: \(providerError)."
        case .invalidIdToken(let reason): return "Refused the ID token: \(reason)."
        case .unauthorized:
            return "The backend refused the request (check the client id, redirect URI and environment)."
        case .rateLimited: return "Too many attempts; wait and try again."
        case .sessionStorageFailure(let message): return "The session could not be saved: \(message)."
        case .timedOut: return "The sign-in timed out."
        case .invalidContact: return "That is not a valid email address or phone number (+ and 8–15 digits)."
        case .invalidCode: return "That code is not valid."
        case .codeRefused(let reason): return "The code was refused: \(reason)."
        case .network(let message): return "Network error: \(message)."
        }
    }
}
