/// Why a store operation failed. Every message is one line, says what to do where it can, and never
/// contains a token, a passphrase or key material.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The master key is not available: no source could unlock the store. Carries how to unlock.
    case locked(String)
    /// The passphrase did not unwrap the master key.
    case wrongPassphrase
    /// The Secret Service did not answer within the keyring timeout; the store stays locked.
    case keyringTimeout(seconds: Int)
    /// The Secret Service answered with an error (or holds no key for this store).
    case secretService(String)
    /// No session has this key.
    case noSuchSession(String)
    /// No key was given and no session is selected.
    case noSessionSelected
    /// A session already has this key and `replace` was not asked for.
    case keyTaken(String)
    /// The database file is not a readable SQLite database (truncated, zeroed, garbage). Never rewritten.
    case damagedDatabase(path: String, detail: String)
    /// One session's encrypted secrets do not decrypt: that session is damaged, the others are fine.
    case damagedSession(String)
    /// The database was written by a newer authdeck whose schema this one does not know.
    case newerSchema(found: Int, known: Int)
    /// Reading or writing failed for another reason (disk full, permissions, busy past the timeout).
    case storage(String)
    /// Input to an import or export was not what it should be.
    case invalidInput(String)
    /// A session key breaks the key rule (`SessionKeyRule`); carries the one-line reason.
    case invalidKey(String)

    public var description: String {
        switch self {
        case .locked(let how):
            return "the store is locked: \(how)"
        case .wrongPassphrase:
            return "wrong passphrase: the store stays locked"
        case .keyringTimeout(let seconds):
            return "the Secret Service did not answer within \(seconds) s; the store stays locked "
                + "(check gnome-keyring or raise --keyring-timeout)"
        case .secretService(let why):
            return "Secret Service: \(why)"
        case .noSuchSession(let key):
            return "no session '\(key)' (see authdeck list)"
        case .noSessionSelected:
            return "no session selected (pass a KEY, --session, or run authdeck use KEY)"
        case .keyTaken(let key):
            return "a session '\(key)' already exists (use --replace to overwrite it)"
        case .damagedDatabase(let path, let detail):
            return "the session database \(path) is damaged (\(detail)); it was left untouched"
        case .damagedSession(let key):
            return "the secrets of session '\(key)' are damaged and cannot be decrypted; other sessions are fine"
        case .newerSchema(let found, let known):
            return "the store has schema version \(found) but this authdeck knows only up to \(known); "
                + "upgrade authdeck"
        case .storage(let why):
            return "storage failure: \(why)"
        case .invalidInput(let why), .invalidKey(let why):
            return why
        }
    }
}
