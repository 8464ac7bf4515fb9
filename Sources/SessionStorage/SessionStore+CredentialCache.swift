import Foundation

/// Credentials a session was exchanged for (AWS STS's temporary keys), kept until they expire so the next request
/// does not ask again: sealed under the master key as session secrets are, in a meta row named by a digest of what
/// they were asked for (never a plain file).
extension SessionStore {
    private static let cacheRows = ExpiringRows(
        prefix: "cached_credentials:", purpose: "cached-credentials", what: "cached credentials")

    /// Keeps `value` under `name` until `expiresAt`.
    public func storeCachedCredentials(_ value: [UInt8], name: String, expiresAt: Date) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        try sealExpiring(value, in: Self.cacheRows, name: name, expiresAt: expiresAt)
    }

    /// The value kept under `name` while it stays valid past `validUntil`; nil when none is, or it expires sooner.
    public func cachedCredentials(name: String, validUntil: Date) throws(StoreError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard let cached = try readExpiring(in: Self.cacheRows, name: name) else { return nil }
        return cached.expiresAt > validUntil ? cached.value : nil
    }
}
