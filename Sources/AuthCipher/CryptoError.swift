/// Why a cryptographic operation failed. Messages are one line and never contain key material.
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system's random generator did not deliver.
    case randomUnavailable
    /// A key had the wrong size or could not be parsed.
    case invalidKey(String)
    /// Decryption failed: wrong key, wrong associated data, or tampered data.
    case authenticationFailed
    /// Input had the wrong shape (a truncated sealed box, a malformed token).
    case malformedInput(String)
    /// A signature did not verify.
    case invalidSignature
    /// The library reported an internal failure.
    case library(String)

    public var description: String {
        switch self {
        case .randomUnavailable: return "the system random generator is unavailable"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .authenticationFailed: return "decryption failed: wrong key or damaged data"
        case .malformedInput(let why): return "malformed input: \(why)"
        case .invalidSignature: return "signature does not verify"
        case .library(let why): return "crypto library failure: \(why)"
        }
    }
}
