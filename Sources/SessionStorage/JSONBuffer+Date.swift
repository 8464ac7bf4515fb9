import Foundation

/// JSONBuffer (StoreCore, which has no Foundation) with the store's `Date`s.
extension JSONBuffer {
    /// `"2024-05-01T12:00:00Z"` (UTC, whole seconds), or `null`.
    mutating func date(_ value: Date?) {
        date(seconds: value?.timeIntervalSince1970)
    }

    static func appendISO8601(_ date: Date, to bytes: inout [UInt8]) {
        appendISO8601(seconds: date.timeIntervalSince1970, to: &bytes)
    }
}
