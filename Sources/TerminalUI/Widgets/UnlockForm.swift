/// The unlock prompt shown when the store's master key is not available: a masked passphrase field. For a new
/// store it chooses the passphrase instead, asked twice.
public struct UnlockForm: Equatable, Sendable {
    /// Why the store is locked, as the store said it.
    public var reason: String
    public var field: TextField
    /// The last attempt's failure (a wrong passphrase, two that differ).
    public var error: String?
    /// An unlock is running (scrypt takes a moment); further Enters wait for it.
    public var isUnlocking: Bool
    /// The store is new: the passphrase is being chosen, not checked.
    public var isNew: Bool
    /// A new passphrase typed once, while it is asked again.
    public var firstEntry: String?

    public init(reason: String, isNew: Bool = false) {
        self.reason = reason
        self.isNew = isNew
        field = TextField(isMasked: true, isFocused: true, maxLength: 1024)
        error = nil
        isUnlocking = false
        firstEntry = nil
    }

    /// Whether the field holds the repeat of a new passphrase.
    public var isRepeating: Bool { firstEntry != nil }
}
