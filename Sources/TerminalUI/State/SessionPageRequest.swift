import Foundation

/// What the Sessions table asks the store for, as a value: `AppState.apply` returns it as `AppEffect.readPage`,
/// the event loop answers it from its `SessionPageSource` (`answer(_:)`), and the rows come back as
/// `AppEvent.pageRead`. The `token` names the ask, so an answer to an older one is dropped.
public struct SessionPageRequest: Equatable, Sendable {
    /// Rows by keyset from `anchor` (from an end of the listing when nil), skipping `skip` of them.
    public struct Rows: Equatable, Sendable {
        /// Before `anchor` (in order, nearest last) rather than after it.
        public var before: Bool
        public var anchor: String?
        public var skip: Int
        public var limit: Int

        public init(before: Bool = false, anchor: String?, skip: Int, limit: Int) {
            self.before = before
            self.anchor = anchor
            self.skip = skip
            self.limit = limit
        }
    }

    /// When the count is wanted.
    public enum Count: Equatable, Sendable {
        case none
        /// Both counts, before anything else.
        case now
        /// Only when the rows fill `rows.limit`: then off the loop's thread (`countLater`) when the source can,
        /// else at once. Fewer rows are the count.
        case laterIfFull
    }

    public var token: Int
    public var sort: SessionSort
    /// The sort turned round (`I`).
    public var descending = false
    public var filter: String
    /// The time statuses are judged at for a `status:` filter.
    public var date: Date
    /// Stop a count still running off the loop's thread first.
    public var stopCounting = false
    public var count = Count.none
    /// The row of this key is wanted (the cursor goes there).
    public var focus: String?
    public var rows: Rows?
    /// Read instead when `rows`' anchor is no longer stored.
    public var fallback: Rows?
    /// Keys whose items and rows the state needs beyond the rows it holds (marked rows, a key being typed).
    public var lookups: [String] = []
    /// The sessions with auto-refresh on that can refresh and expire by this time are wanted.
    public var autoRefreshBy: Date?
    /// The keys of the listing's first rows, this many at most, are wanted (`A` marks every session shown).
    public var shownKeys: Int?

    public init(token: Int, sort: SessionSort, filter: String, date: Date) {
        self.token = token
        self.sort = sort
        self.filter = filter
        self.date = date
    }
}

/// The answer to a `SessionPageRequest` (`AppEvent.pageRead`).
public struct SessionPage: Equatable, Sendable {
    public var token: Int
    /// Set when the request counted now.
    public var total: Int?
    public var matching: Int?
    /// The count was started off the loop's thread; it arrives as `AppEvent.sessionsCounted`.
    public var countingLater = false
    public var focusRow: Int?
    public var rows: [SessionItem] = []
    /// The rows are the fallback's: the anchor row went away.
    public var fromFallback = false
    /// The looked-up sessions that are stored, and the rows of those the filter leaves.
    public var found: [SessionItem] = []
    public var foundRows: [String: Int] = [:]
    public var autoRefresh: [SessionItem]?
    /// The keys of the listing's first rows, when asked for.
    public var shownKeys: [String]?

    public init(token: Int) {
        self.token = token
    }
}

extension SessionPageSource {
    /// Runs `request` against the source: the one place a request turns into reads, for the event loop and for
    /// the tests' list of rows.
    public func answer(_ request: SessionPageRequest) -> SessionPage {
        let (sort, descending, filter, date) = (request.sort, request.descending, request.filter, request.date)
        var page = SessionPage(token: request.token)
        if request.stopCounting { stopCounting() }
        if request.count == .now { (page.total, page.matching) = count(sort: sort, filter: filter, at: date) }
        if let focus = request.focus {
            page.focusRow = rowNumber(of: focus, sort: sort, descending: descending, filter: filter, at: date)
        }
        if let wanted = request.rows {
            var rows = read(wanted, request)
            if rows == nil, let fallback = request.fallback {
                rows = read(fallback, request)
                page.fromFallback = true
            }
            page.rows = rows ?? []
            if request.count == .laterIfFull, page.rows.count == wanted.limit {
                if countLater(sort: sort, filter: filter, at: date, request: request.token) {
                    page.countingLater = true
                } else {
                    (page.total, page.matching) = count(sort: sort, filter: filter, at: date)
                }
            }
        }
        for key in request.lookups {
            guard let found = item(key) else { continue }
            page.found.append(found)
            page.foundRows[key] = rowNumber(of: key, sort: sort, descending: descending, filter: filter, at: date)
        }
        page.autoRefresh = request.autoRefreshBy.map { autoRefreshCandidates(expiringBy: $0) }
        if let limit = request.shownKeys {
            page.shownKeys =
                rows(
                    sort: sort, descending: descending, filter: filter, at: date, after: nil, skip: 0, limit: limit
                )?.map(\.key) ?? []
        }
        return page
    }

    private func read(_ rows: SessionPageRequest.Rows, _ request: SessionPageRequest) -> [SessionItem]? {
        rows.before
            ? self.rows(
                sort: request.sort, descending: request.descending, filter: request.filter, at: request.date,
                before: rows.anchor, skip: rows.skip, limit: rows.limit)
            : self.rows(
                sort: request.sort, descending: request.descending, filter: request.filter, at: request.date,
                after: rows.anchor, skip: rows.skip, limit: rows.limit)
    }
}
