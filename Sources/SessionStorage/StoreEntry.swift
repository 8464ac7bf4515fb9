import AuthCore
import Foundation

/// One session as the store lists it: the clear-text record, whether it is the selected one, and the refresh
/// token's expiry (kept in clear so `status` needs no key).
public struct StoreEntry: Sendable, Equatable {
    public var record: SessionRecord
    public var isSelected: Bool
    public var refreshExpiresAt: Date?

    public init(record: SessionRecord, isSelected: Bool, refreshExpiresAt: Date? = nil) {
        self.record = record
        self.isSelected = isSelected
        self.refreshExpiresAt = refreshExpiresAt
    }
}

extension StoreEntry {
    /// Whether the session can no longer give a token: its access token expired and no refresh can renew it (no
    /// refresh token, or one that expired too). What `logout --expired` removes.
    public func isUnusable(at now: Date) -> Bool {
        guard record.status(at: now) == .expired else { return false }
        guard record.refreshable else { return true }
        return refreshExpiresAt.map { $0 <= now } ?? false
    }
}
