/// What wraps the store's master key, as recorded in the database. The master key itself (32 random bytes) never
/// changes; `store migrate` only moves it from one source to the other.
public enum MasterKeySource: String, Sendable, Equatable, CaseIterable {
    /// The key lives in the Secret Service (libsecret); the database holds only a check value.
    case secretService = "secret-service"
    /// The key is in the database, AES-256-GCM-wrapped under a key derived from a passphrase with scrypt.
    case passphrase
    /// The key is an entry of `pass`, the standard Unix password manager (GPG-encrypted, unlocked through
    /// gpg-agent); the database holds the entry's name and a check value.
    case pass
}
