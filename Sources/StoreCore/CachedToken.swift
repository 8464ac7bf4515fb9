/// A token `authdeck token` hands out: the session's key, the token, and when it expires.
public struct CachedToken: Sendable, Equatable {
    public let key: String
    public let token: String
    /// Seconds since 1970; nil for a token with no known expiry (and for an ID token).
    public let expiresAt: Double?

    public init(key: String, token: String, expiresAt: Double?) {
        self.key = key
        self.token = token
        self.expiresAt = expiresAt
    }

    /// What `token --json` prints: `{"key":…,"token":…,"expiresAt":…}` (the one writer of that object).
    public var json: String {
        var buffer = JSONBuffer(capacity: 64 + key.utf8.count + token.utf8.count)
        buffer.raw("{\"key\":")
        buffer.string(key)
        buffer.raw(",\"token\":")
        buffer.string(token)
        buffer.raw(",\"expiresAt\":")
        buffer.date(seconds: expiresAt)
        buffer.raw("}")
        return buffer.text
    }
}
