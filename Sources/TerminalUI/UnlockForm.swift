/// The unlock prompt shown when the store's master key is not available: a masked passphrase field.
public struct UnlockForm: Equatable, Sendable {
    /// Why the store is locked, as the store said it.
    public var reason: String
    public var field: TextField
    /// The last attempt's failure (a wrong passphrase).
    public var error: String?
    /// An unlock is running (scrypt takes a moment); further Enters wait for it.
    public var isUnlocking: Bool

    public init(reason: String) {
        self.reason = reason
        field = TextField(isMasked: true, isFocused: true, maxLength: 1024)
        error = nil
        isUnlocking = false
    }
}
