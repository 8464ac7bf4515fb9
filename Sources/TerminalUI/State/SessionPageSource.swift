import Foundation

/// Where the event loop reads what a paged `SessionList` asks for (`SessionPageRequest`, answered by `answer(_:)`):
/// the store, through the loop's handle, or in tests a list of rows. Only the rows on screen are asked for, by
/// keyset from a row already shown; the filter is passed as typed and the list never holds every row. Called on the
/// event loop's thread, never from `AppState.apply`.
public protocol SessionPageSource: AnyObject, Sendable {
    /// How many sessions there are, and how many the filter leaves.
    func count(sort: SessionSort, filter: String, at date: Date) -> (total: Int, matching: Int)
    /// Up to `limit` rows after the row of `key` (from the first row when nil), skipping `skip` of them. Nil when
    /// `key` is no longer stored. `descending` turns the sort round (keys the filter ranks stay first).
    func rows(
        sort: SessionSort, descending: Bool, filter: String, at date: Date, after key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]?
    /// Up to `limit` rows before the row of `key` (before the end when nil), skipping the `skip` nearest, in order.
    func rows(
        sort: SessionSort, descending: Bool, filter: String, at date: Date, before key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]?
    /// The 0-based row of `key`, nil when the filter leaves it out or it is not stored.
    func rowNumber(of key: String, sort: SessionSort, descending: Bool, filter: String, at date: Date) -> Int?
    /// One session, nil when it is not stored.
    func item(_ key: String) -> SessionItem?
    /// The sessions with auto-refresh on that can refresh and expire by `horizon`.
    func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem]
    /// Starts counting the rows `filter` leaves off the caller's thread; the count arrives as
    /// `AppEvent.sessionsCounted(request:matching:)` with this `request`. A later call (or `stopCounting`) makes an
    /// unfinished count stop. False when the source cannot count later: the list then counts at once.
    func countLater(sort: SessionSort, filter: String, at date: Date, request: Int) -> Bool
    /// Stops an unfinished count started by `countLater`.
    func stopCounting()
}

extension SessionPageSource {
    public func countLater(sort: SessionSort, filter: String, at date: Date, request: Int) -> Bool { false }
    public func stopCounting() {}
}
