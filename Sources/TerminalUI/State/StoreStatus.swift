import Foundation

/// What the status bar says about the session store.
public enum StoreStatus: Equatable, Sendable {
    /// The master key is unlocked; `until` is when the kernel keyring cache forgets it (nil when not cached),
    /// `source` names what wraps the key (`secret-service`, `passphrase`).
    case unlocked(until: Date?, source: String?)
    /// The master key is not available: sessions are listed, tokens stay closed. Carries how to unlock.
    case locked(String)
    /// No store exists yet; the first sign-in creates it.
    case empty
    /// No store exists yet and nothing but a passphrase can keep its key (no keyring, no passphrase file): the
    /// TUI opens on choosing one. Carries why.
    case needsPassphrase(String)
}
