import AuthCore
import Foundation

/// One row of the Sessions screen: the store's clear-text record, whether it is the selected session, and what
/// the TUI knows about refreshing it. Built by the event loop from the store's entries.
public struct SessionItem: Equatable, Sendable {
    /// Where a refresh of this session stands while the TUI runs.
    public enum Refresh: Equatable, Sendable {
        /// Nothing asked yet.
        case idle
        /// A refresh is out (`r`, or auto-refresh near expiry).
        case refreshing
        /// The last refresh worked at this time.
        case refreshed(Date)
        /// The last refresh failed; auto-refresh does not retry it until the user asks.
        case failed(String)
    }

    public var record: SessionRecord
    public var isSelected: Bool
    public var refreshExpiresAt: Date?
    public var refresh: Refresh
    public init(record: SessionRecord, isSelected: Bool, refreshExpiresAt: Date? = nil, refresh: Refresh = .idle) {
        self.record = record
        self.isSelected = isSelected
        self.refreshExpiresAt = refreshExpiresAt
        self.refresh = refresh
    }

    /// Lower-cased key, user, email, phone, provider and backend: what `/` matches in a list held in memory. Worked
    /// out when asked: the rows of a paged list (every real store) are filtered by the store's search index, and
    /// built every time the window moves.
    public var searchText: String {
        [record.key, record.userLabel, record.email ?? "", record.phone ?? "", record.provider, record.backend]
            .joined(separator: "\u{1}").lowercased()
    }

    public var key: String { record.key }
}
