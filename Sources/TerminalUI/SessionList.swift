import AuthCore
import Foundation

/// The sessions the table shows: every item, the filter and sort order, and the cursor.
///
/// The filter is words that must all match: plain text matches key, user, provider and backend; `status:`,
/// `backend:` and `provider:` match that field's start (`status:exp` finds expired and expiring).
///
/// Two ways to hold the rows. In memory (tests, and any caller that hands over items): every item, with the
/// filtered and sorted order a cached list of indices rebuilt only when the items, the filter or the order change.
/// Paged (the TUI over a store): a `SessionPageSource` answers the count and the rows, and the list keeps only a
/// window of rows around the view, moved by keyset from its edge rows, plus what the TUI alone knows (the selected
/// key, refresh states), so its memory and its work per key press do not grow with the store.
public struct SessionList: Equatable, Sendable {
    /// Every item in memory mode; empty when paged.
    public private(set) var items: [SessionItem]
    public private(set) var sort: SessionSort
    public private(set) var filter: String
    /// The time statuses are judged at for a `status:` filter (when it was typed).
    public private(set) var filterDate: Date
    /// Indices into `items`, filtered and in `sort` order: row `n` of the table is `items[visible[n]]`.
    public private(set) var visible: [Int]
    /// The row under the cursor, an index into `visible`.
    public private(set) var cursor: Int
    /// The first row shown, kept between frames so the view moves only when the cursor leaves it.
    public var scrollOffset: Int

    /// The paged mode's source, compared by identity.
    private var source: PagedSource?
    /// Paged: rows `windowStart ..< windowStart + window.count` of the listing.
    private var window: [SessionItem] = []
    private var windowStart = 0
    /// Paged: how many sessions there are, and how many the filter leaves.
    private var total = 0
    private var matching = 0
    /// Paged: the filter's count is still being worked out off the loop's thread (`countLater`); `matching` is then
    /// the rows read so far, and `countRequest` names the count the list waits for.
    private var counting = false
    private var countRequest = 0
    /// Paged: the store's selected key, and refresh states by key (the TUI's own knowledge, laid over fetched rows).
    private var pagedSelectedKey: String?
    private var refreshStates: [String: SessionItem.Refresh] = [:]

    /// A paged list over `source`, the cursor on `focus` when it is listed.
    public init(source: SessionPageSource, selected: String?, focus: String? = nil, sort: SessionSort = .key) {
        items = []
        self.sort = sort
        filter = ""
        filterDate = Date(timeIntervalSince1970: 0)
        visible = []
        cursor = 0
        scrollOffset = 0
        self.source = PagedSource(source)
        pagedSelectedKey = selected
        reload(keeping: focus ?? selected)
    }

    public init(items: [SessionItem] = [], sort: SessionSort = .key, filter: String = "") {
        self.items = items
        self.sort = sort
        self.filter = filter
        filterDate = Date(timeIntervalSince1970: 0)
        visible = []
        cursor = 0
        scrollOffset = 0
        rebuild(keeping: nil)
    }

    /// Whether rows come from a `SessionPageSource` rather than `items`.
    public var isPaged: Bool { source != nil }

    /// The session under the cursor.
    public var current: SessionItem? {
        guard source != nil else { return visible.indices.contains(cursor) ? items[visible[cursor]] : nil }
        return matching > 0 ? pagedItem(atRow: cursor) : nil
    }

    /// The item drawn on table row `row`.
    public func item(atRow row: Int) -> SessionItem {
        guard source != nil else { return items[visible[row]] }
        return pagedItem(atRow: row) ?? SessionItem(record: SessionList.missingRecord, isSelected: false)
    }

    /// How many rows the filter leaves.
    public var count: Int { source == nil ? visible.count : matching }

    /// How many sessions there are, filtered or not.
    public var totalCount: Int { source == nil ? items.count : total }

    /// Whether the filter's count is still being worked out: `count` is then only the rows read so far.
    public var isCounting: Bool { counting }

    /// The store's selected session.
    public var selectedKey: String? {
        source == nil ? items.first { $0.isSelected }?.key : pagedSelectedKey
    }

    /// Whether `key` is stored (whatever the filter).
    public func contains(_ key: String) -> Bool {
        item(forKey: key) != nil
    }

    /// The session stored under `key` (whatever the filter), with what the TUI knows about refreshing it.
    public func item(forKey key: String) -> SessionItem? {
        guard let source else { return items.first { $0.key == key } }
        if let shown = window.first(where: { $0.key == key }) { return shown }
        return source.value.item(key).map(decorated)
    }

    /// The table row of `key`, nil when the filter leaves it out.
    public func row(of key: String) -> Int? {
        guard let source else { return visible.firstIndex { items[$0].key == key } }
        if let index = window.firstIndex(where: { $0.key == key }) { return windowStart + index }
        return source.value.rowNumber(of: key, sort: sort, filter: filter, at: filterDate)
    }

    /// `keys` in table order, then those the filter hides, sorted.
    public func inTableOrder(_ keys: Set<String>) -> [String] {
        guard source != nil else {
            let shown = visible.map { items[$0].key }.filter { keys.contains($0) }
            return shown + keys.subtracting(shown).sorted()
        }
        let rows = keys.map { ($0, row(of: $0)) }
        let shown = rows.compactMap { key, row in row.map { ($0, key) } }.sorted { $0.0 < $1.0 }.map(\.1)
        return shown + keys.subtracting(shown).sorted()
    }

    /// The sessions with auto-refresh on that can refresh and expire by `horizon`.
    public func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem] {
        guard let source else {
            return items.filter { item in
                item.record.autoRefresh && item.record.refreshable
                    && (item.record.expiresAt.map { $0 <= horizon }
                        ?? false)
            }
        }
        return source.value.autoRefreshCandidates(expiringBy: horizon).map(decorated)
    }

    /// Sets the first row shown; a paged list reads the rows `rows` from there on if it does not hold them.
    public mutating func scroll(to offset: Int, rows: Int) {
        scrollOffset = offset
        guard source != nil, matching > 0 else { return }
        ensure(offset..<min(matching, offset + max(1, rows)))
    }

    /// Another process changed the store. Paged (as the TUI runs), the count and the view are read again and the
    /// cursor stays on its session; in memory (reducer tests), the keys known to be gone are dropped.
    public mutating func applyExternal(removed: [String]) {
        guard source == nil else {
            reload(keeping: current?.key)
            return
        }
        for key in removed { remove(key) }
    }

    // MARK: - Changing the items

    /// Everything the store listed; the cursor stays on the same key when it is still there.
    public mutating func replaceAll(_ newItems: [SessionItem], focus: String? = nil) {
        let keep = focus ?? current?.key
        guard source == nil else {
            reload(keeping: keep)
            return
        }
        var merged = newItems
        // What the TUI learned about refreshes survives a reload.
        let known = Dictionary(items.map { ($0.key, $0.refresh) }, uniquingKeysWith: { first, _ in first })
        if !known.isEmpty {
            for index in merged.indices { merged[index].refresh = known[merged[index].key] ?? .idle }
        }
        items = merged
        rebuild(keeping: keep)
    }

    /// Adds or replaces one session (a new sign-in, a refresh) and, when asked, puts the cursor on it.
    public mutating func upsert(_ item: SessionItem, focus: Bool) {
        let keep = focus ? item.key : current?.key
        guard source == nil else {
            if case .idle = item.refresh {} else { refreshStates[item.key] = item.refresh }
            if item.isSelected { pagedSelectedKey = item.key }
            reload(keeping: keep)
            return
        }
        if let index = items.firstIndex(where: { $0.key == item.key }) {
            var updated = item
            if case .idle = updated.refresh { updated.refresh = items[index].refresh }
            items[index] = updated
        } else {
            items.append(item)
        }
        if item.isSelected { markSelected(item.key) }
        rebuild(keeping: keep)
    }

    /// Removes a signed-out session; the cursor moves to its neighbour.
    public mutating func remove(_ key: String) {
        guard source == nil else {
            let row = cursor
            refreshStates[key] = nil
            reload(keeping: nil)
            moveCursor(toRow: min(row, max(0, matching - 1)))
            return
        }
        guard let index = items.firstIndex(where: { $0.key == key }) else { return }
        let row = cursor
        items.remove(at: index)
        rebuild(keeping: nil)
        cursor = min(row, max(0, visible.count - 1))
    }

    /// Marks `key` as the store's selected session (and no other).
    public mutating func markSelected(_ key: String) {
        guard source == nil else {
            pagedSelectedKey = key.isEmpty ? nil : key
            for index in window.indices { window[index].isSelected = window[index].key == key }
            return
        }
        for index in items.indices where items[index].isSelected != (items[index].key == key) {
            items[index].isSelected = items[index].key == key
        }
    }

    /// Changes one item in place; the order is not rebuilt (only refresh state and flags change this way).
    public mutating func update(_ key: String, _ change: (inout SessionItem) -> Void) {
        guard source == nil else {
            guard var item = item(forKey: key) else { return }
            change(&item)
            refreshStates[key] = item.refresh
            if let index = window.firstIndex(where: { $0.key == key }) { window[index] = item }
            return
        }
        guard let index = items.firstIndex(where: { $0.key == key }) else { return }
        change(&items[index])
    }

    public mutating func setSort(_ order: SessionSort) {
        guard order != sort else { return }
        let keep = current?.key
        sort = order
        guard source == nil else {
            reload(keeping: keep)
            return
        }
        rebuild(keeping: keep)
    }

    /// A new filter: the cursor goes to the first match.
    public mutating func setFilter(_ text: String, now: Date) {
        guard text != filter || now != filterDate && text.contains(":") else { return }
        filter = text
        filterDate = now
        cursor = 0
        scrollOffset = 0
        guard source == nil else {
            firstPage()
            return
        }
        rebuild(keeping: nil)
        cursor = 0
    }

    /// The count `countLater` was asked for (`request`) arrived; an older one is ignored.
    public mutating func countArrived(_ value: Int, request: Int) {
        guard source != nil, counting, request == countRequest else { return }
        counting = false
        matching = value
        if windowStart + window.count > value { window = Array(window.prefix(max(0, value - windowStart))) }
        cursor = min(cursor, max(0, matching - 1))
    }

    // MARK: - Moving the cursor

    public mutating func moveCursor(by offset: Int) {
        moveCursor(toRow: cursor + offset)
    }

    public mutating func moveCursor(toRow row: Int) {
        guard count > 0 else {
            cursor = 0
            return
        }
        cursor = min(max(0, row), count - 1)
        if source != nil { ensure(cursor..<cursor + 1) }
    }

    // MARK: - Paged

    /// The source, equal only to itself, so two states compare equal only over the same store handle.
    private struct PagedSource: Equatable, Sendable {
        let value: SessionPageSource
        init(_ value: SessionPageSource) { self.value = value }
        static func == (a: PagedSource, b: PagedSource) -> Bool { a.value === b.value }
    }

    /// Rows the window holds at least: a screen and a half either side of the view, so a run of single steps or
    /// a page key is one small keyset read.
    private static let windowRows = 128

    /// Rows a new filter reads for its first frame: a tall terminal's screen. The fewer, the sooner a filter whose
    /// matches are sparse near the top of the listing has them; the rest come by keyset as the view needs them.
    private static let firstRows = 64

    /// Shown for a row the store no longer has (it went away between the count and the read).
    private static let missingRecord = SessionRecord(
        key: "", backend: "", provider: "", subject: "", issuer: "",
        createdAt: Date(timeIntervalSince1970: 0), expiresAt: nil,
        refreshable: false, scopes: [])

    private func pagedItem(atRow row: Int) -> SessionItem? {
        if row >= windowStart, row < windowStart + window.count { return window[row - windowStart] }
        // Not held (the store changed under the view): one row by offset.
        return source?.value.rows(sort: sort, filter: filter, at: filterDate, after: nil, skip: row, limit: 1)?
            .first.map(decorated)
    }

    /// A fetched row with the selection and what the TUI knows about its refresh.
    private func decorated(_ item: SessionItem) -> SessionItem {
        var item = item
        item.isSelected = item.key == pagedSelectedKey
        if let state = refreshStates[item.key] { item.refresh = state }
        return item
    }

    /// A new filter's first rows, read at once; the count too when they are all there is, else it is asked for
    /// off the loop's thread (a filter whose words most rows hold would read every row to count them) and arrives
    /// with `countArrived`, so the frame never waits for it.
    private mutating func firstPage() {
        guard let source else { return }
        guard !filter.isEmpty else {
            reload(keeping: nil)
            return
        }
        if counting { source.value.stopCounting() }
        countRequest += 1
        counting = false
        windowStart = 0
        let rows =
            source.value.rows(
                sort: sort, filter: filter, at: filterDate, after: nil, skip: 0, limit: Self.firstRows) ?? []
        window = rows.map(decorated)
        matching = window.count
        guard window.count == Self.firstRows else { return }
        if source.value.countLater(sort: sort, filter: filter, at: filterDate, request: countRequest) {
            counting = true
        } else {
            (total, matching) = source.value.count(sort: sort, filter: filter, at: filterDate)
        }
    }

    /// Reads the count again and the rows around the cursor, which stays on `key` when it is still listed.
    private mutating func reload(keeping key: String?) {
        guard let source else { return }
        if counting { source.value.stopCounting() }
        countRequest += 1
        counting = false
        (total, matching) = source.value.count(sort: sort, filter: filter, at: filterDate)
        window = []
        windowStart = 0
        if let key, let row = source.value.rowNumber(of: key, sort: sort, filter: filter, at: filterDate) {
            cursor = row
        }
        cursor = min(cursor, max(0, matching - 1))
        guard matching > 0 else { return }
        ensure(cursor..<cursor + 1)
    }

    /// Makes the window hold `needed` (rows of the listing), reading only what it lacks: by keyset after its last
    /// row or before its first when the rows are near, else from whichever end of the listing is nearer.
    private mutating func ensure(_ needed: Range<Int>) {
        guard let source = source?.value, !needed.isEmpty else { return }
        let end = windowStart + window.count
        if !window.isEmpty, needed.lowerBound >= windowStart, needed.upperBound <= end { return }
        let size = max(Self.windowRows, needed.count * 3)
        var start = max(0, needed.lowerBound - (size - needed.count) / 2)
        start = max(0, min(start, matching - size))
        let stop = min(matching, start + size)
        let (sort, filter, date) = (self.sort, self.filter, filterDate)
        var fetched: [SessionItem]?
        if let last = window.last, start < end, stop > end, start >= windowStart {
            // Forward, overlapping: keep what is held from `start`, read the rest after the last row.
            fetched = source.rows(sort: sort, filter: filter, at: date, after: last.key, skip: 0, limit: stop - end)
                .map { Array(window[(start - windowStart)...]) + $0.map(decorated) }
        } else if let first = window.first, stop > windowStart, start < windowStart, stop <= end {
            // Backward, overlapping.
            fetched = source.rows(
                sort: sort, filter: filter, at: date, before: first.key, skip: 0,
                limit: windowStart - start
            )
            .map { $0.map(decorated) + window[..<(stop - windowStart)] }
        } else if let last = window.last, start >= end, start - end < size {
            fetched = source.rows(
                sort: sort, filter: filter, at: date, after: last.key, skip: start - end,
                limit: stop - start)?.map(decorated)
        } else if let first = window.first, stop <= windowStart, windowStart - stop < size {
            fetched = source.rows(
                sort: sort, filter: filter, at: date, before: first.key,
                skip: windowStart - stop, limit: stop - start)?.map(decorated)
        }
        if fetched == nil {
            // Far from the window (or its edge row went away): from the nearer end of the listing.
            fetched =
                start <= matching - stop
                ? source.rows(sort: sort, filter: filter, at: date, after: nil, skip: start, limit: stop - start)
                : source.rows(
                    sort: sort, filter: filter, at: date, before: nil, skip: matching - stop,
                    limit: stop - start)
            fetched = fetched?.map(decorated)
        }
        window = fetched ?? []
        windowStart = start
    }

    // MARK: - Private

    private mutating func rebuild(keeping key: String?) {
        let terms = Self.terms(filter)
        var indices: [Int]
        if terms.isEmpty {
            indices = Array(items.indices)
        } else {
            let date = filterDate
            indices = items.indices.filter { index in terms.allSatisfy { $0.matches(items[index], at: date) } }
        }
        let order = sort
        let all = items
        // The store lists by key already; checking first avoids sorting 100,000 rows that are in order.
        let sorted = zip(indices, indices.dropFirst()).allSatisfy { !order.precedes(all[$0.1], all[$0.0]) }
        if !sorted { indices.sort { order.precedes(all[$0], all[$1]) } }
        visible = indices
        if let key, let row = visible.firstIndex(where: { items[$0].key == key }) {
            cursor = row
        } else {
            cursor = min(cursor, max(0, visible.count - 1))
        }
    }

    /// One word of the filter.
    public enum Term: Equatable, Sendable {
        case text(String)
        case status(String)
        case backend(String)
        case provider(String)

        public func matches(_ item: SessionItem, at date: Date) -> Bool {
            switch self {
            case .text(let needle): return item.searchText.contains(needle)
            case .status(let prefix): return item.record.status(at: date).rawValue.hasPrefix(prefix)
            case .backend(let prefix): return item.record.backend.lowercased().hasPrefix(prefix)
            case .provider(let prefix): return item.record.provider.lowercased().hasPrefix(prefix)
            }
        }
    }

    /// The filter's words, lower-cased; an unknown `field:` is plain text.
    public static func terms(_ filter: String) -> [Term] {
        filter.lowercased().split(whereSeparator: { $0 == " " }).map { word in
            let text = String(word)
            for (name, make) in [("status:", Term.status), ("backend:", Term.backend), ("provider:", Term.provider)]
            where text.hasPrefix(name) {
                return make(String(text.dropFirst(name.count)))
            }
            return .text(text)
        }
    }
}
