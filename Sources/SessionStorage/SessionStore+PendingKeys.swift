import AuthCore
import AuthCrypto
import Foundation

/// Session keys waiting for their OIDC token (`login --oidc-token-only`, then `login --oidc-token`): Turnkey's
/// `completeOAuth(oidcToken:publicKey:)` finishes with the private key the SDK made for that public key, so the
/// store keeps it, sealed under the master key as session secrets are, in a meta row named by the public key.
/// No session is stored until the token is used; a pending key is dropped when used or once it has expired.
extension SessionStore {
    private static let pendingRows = ExpiringRows(prefix: "pending_key:", purpose: "pending-key", what: "pending key")

    /// Keeps `privateKey` (32 raw bytes) for `publicKeyHex` until `expiresAt`; expired ones go at the same time.
    public func storePendingKey(_ privateKey: [UInt8], publicKeyHex: String, expiresAt: Date) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        try sealExpiring(privateKey, in: Self.pendingRows, name: publicKeyHex, expiresAt: expiresAt)
    }

    /// The private key kept for `publicKeyHex`, or nil when none is pending (never made here, used, or expired).
    public func pendingKey(publicKeyHex: String, now: Date = Date()) throws(StoreError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        guard let pending = try readExpiring(in: Self.pendingRows, name: publicKeyHex) else { return nil }
        guard pending.value.count == 32 else { throw Self.pendingRows.damaged(publicKeyHex) }
        return pending.expiresAt > now ? pending.value : nil
    }

    /// Drops the pending key of `publicKeyHex` (its token was used).
    public func removePendingKey(publicKeyHex: String) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        try removeExpiring(in: Self.pendingRows, name: publicKeyHex)
    }
}
