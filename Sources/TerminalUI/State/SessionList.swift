import AuthCore
import Foundation

/// The sessions the table shows: every item, the filter and sort order, and the cursor.
///
/// The filter is words that must all match: plain text matches key, user, provider and backend; `status:`,
/// `backend:` and `provider:` match that field's start (`status:exp` finds expired and expiring); `key:` a key
/// (`key:name*` its start), `^`/`$` a field's start or end and `"quoted text"` a whole field (`terms`). Keys equal
/// to a text or key word come first, then keys starting with one, then the rest, each in the sort order.
///
/// Two ways to hold the rows. In memory (tests, and any caller that hands over items): every item, with the
/// filtered and sorted order a cached list of indices rebuilt only when the items, the filter or the order change.
/// Paged (the TUI over a store): the list keeps only a window of rows around the view, moved by keyset from its
/// edge rows, plus what the TUI alone knows (the selected key, refresh states), so its memory and its work per key
/// press do not grow with the store. It never reads: what it lacks it names in a `SessionPageRequest`
/// (`takeRequest`, returned by `AppState.apply` as `AppEffect.readPage`), and the answer comes back as a
/// `SessionPage` (`pageArrived`). Rows not yet read draw as loading.
public struct SessionList: Equatable, Sendable {
    /// Every item in memory mode; empty when paged.
    public private(set) var items: [SessionItem]
    public private(set) var sort: SessionSort
    /// The sort turned round (`I`): latest expiry first, keys from z to a; keys the filter ranks stay first.
    public private(set) var descending = false
    public private(set) var filter: String
    /// The time statuses are judged at for a `status:` filter (when it was typed).
    public private(set) var filterDate: Date
    /// Indices into `items`, filtered and in `sort` order: row `n` of the table is `items[visible[n]]`.
    public private(set) var visible: [Int]
    /// The row under the cursor, an index into `visible`.
    public private(set) var cursor: Int
    /// The first row shown, kept between frames so the view moves only when the cursor leaves it.
    public var scrollOffset: Int

    /// Whether the rows are read a page at a time (`SessionPageRequest`) rather than held in `items`.
    public let isPaged: Bool
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
    /// Paged: what the list waits for before its rows mean anything (a new count, a new filter's first rows).
    private var listing: Listing?
    /// Paged: a count running off the loop's thread must be stopped by the next request.
    private var stopCountPending = false
    /// Paged: the rows of the listing the view needs and the window lacks.
    private var need: Range<Int>?
    /// Paged: keys the state needs to know about beyond the window (marked rows, a key typed on New sign-in), what
    /// was found of them (items and rows), and which were looked up since the listing last changed.
    private var watched: Set<String> = []
    private var known: [String: SessionItem] = [:]
    private var knownRows: [String: Int] = [:]
    private var lookedUp: Set<String> = []
    /// Paged: the auto-refresh candidates are wanted, up to this time.
    private var autoRefreshBy: Date?
    /// The keys of every row shown are wanted, this many at most (`A`); asked with the next request.
    private var shownKeysWanted: Int?
    /// The keys asked for by `askShownKeys`, once read.
    private var shownKeys: [String]?
    /// Paged: the last request's token, and the one asked and not yet answered.
    private var token = 0
    private var asked: Asked?
    /// Paged: the last request answered (token left out), so a read that came back short is not asked again.
    private var answered: SessionPageRequest?

    /// A paged list, the cursor on `focus` (else the selected session) once the first read lands.
    public init(selected: String?, focus: String? = nil, sort: SessionSort = .key) {
        items = []
        self.sort = sort
        filter = ""
        filterDate = Date(timeIntervalSince1970: 0)
        visible = []
        cursor = 0
        scrollOffset = 0
        isPaged = true
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
        isPaged = false
        rebuild(keeping: nil)
    }

    /// The session under the cursor.
    public var current: SessionItem? {
        guard isPaged else { return visible.indices.contains(cursor) ? items[visible[cursor]] : nil }
        return matching > 0 ? pagedItem(atRow: cursor) : nil
    }

    /// The item drawn on table row `row`, nil while it is being read.
    public func loadedItem(atRow row: Int) -> SessionItem? {
        guard isPaged else { return items[visible[row]] }
        return pagedItem(atRow: row)
    }

    /// The item drawn on table row `row` (an empty one while it is being read).
    public func item(atRow row: Int) -> SessionItem {
        loadedItem(atRow: row) ?? SessionItem(record: SessionList.missingRecord, isSelected: false)
    }

    /// How many rows the filter leaves.
    public var count: Int { isPaged ? matching : visible.count }

    /// How many sessions there are, filtered or not.
    public var totalCount: Int { isPaged ? total : items.count }

    /// Whether the list waits for a read it asked for (the cursor's row may not be there yet).
    public var isReading: Bool { asked != nil || listing != nil }

    /// Whether the filter's count is still being worked out: `count` is then only the rows read so far.
    public var isCounting: Bool { counting }

    /// The store's selected session.
    public var selectedKey: String? {
        isPaged ? pagedSelectedKey : items.first { $0.isSelected }?.key
    }

    /// Whether `key` is stored (whatever the filter).
    public func contains(_ key: String) -> Bool {
        item(forKey: key) != nil
    }

    /// The session stored under `key` (whatever the filter), with what the TUI knows about refreshing it. Paged,
    /// only a held row or a watched key (`watch`) is known.
    public func item(forKey key: String) -> SessionItem? {
        guard isPaged else { return items.first { $0.key == key } }
        if let shown = window.first(where: { $0.key == key }) { return shown }
        return known[key].map(decorated)
    }

    /// Whether the store has been asked about `key` (in memory, always): `item(forKey:)` nil then means it is not stored.
    public func hasLookedUp(_ key: String) -> Bool {
        !isPaged || lookedUp.contains(key) || window.contains { $0.key == key }
    }

    /// The table row of `key`, nil when the filter leaves it out (or, paged, it is neither held nor watched).
    public func row(of key: String) -> Int? {
        guard isPaged else { return visible.firstIndex { items[$0].key == key } }
        if let index = window.firstIndex(where: { $0.key == key }) { return windowStart + index }
        return knownRows[key]
    }

    /// `keys` in table order, then those the filter hides, sorted.
    public func inTableOrder(_ keys: Set<String>) -> [String] {
        guard isPaged else {
            let shown = visible.map { items[$0].key }.filter { keys.contains($0) }
            return shown + keys.subtracting(shown).sorted()
        }
        let rows = keys.map { ($0, row(of: $0)) }
        let shown = rows.compactMap { key, row in row.map { ($0, key) } }.sorted { $0.0 < $1.0 }.map(\.1)
        return shown + keys.subtracting(shown).sorted()
    }

    /// The sessions with auto-refresh on that can refresh and expire by `horizon`; nil when paged: they are then
    /// asked for, and come back with the next page (`pageArrived`).
    public mutating func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem]? {
        guard isPaged else { return items.filter { Self.refreshes($0, by: horizon) } }
        autoRefreshBy = horizon
        return nil
    }

    /// Whether `item` has auto-refresh on, can refresh and expires by `horizon`.
    public static func refreshes(_ item: SessionItem, by horizon: Date) -> Bool {
        item.record.autoRefresh && item.record.refreshable && (item.record.expiresAt.map { $0 <= horizon } ?? false)
    }

    /// A row read from the store with what the TUI knows about it (the selection, its refresh).
    public func overlaid(_ item: SessionItem) -> SessionItem {
        decorated(item)
    }

    /// Sets the first row shown; a paged list asks for the rows `rows` from there on if it does not hold them.
    public mutating func scroll(to offset: Int, rows: Int) {
        scrollOffset = offset
        guard isPaged, matching > 0 else { return }
        ensure(offset..<min(matching, offset + max(1, rows)))
    }

    /// The keys the state needs to know about beyond the rows on screen; those not yet looked up are asked for.
    public mutating func watch(_ keys: Set<String>) {
        guard isPaged, keys != watched else { return }
        watched = keys
        known = known.filter { keys.contains($0.key) }
        knownRows = knownRows.filter { keys.contains($0.key) }
        lookedUp.formIntersection(keys)
    }

    /// Another process changed the store. Paged (as the TUI runs), the count and the view are read again and the
    /// cursor stays on its session; in memory (reducer tests), the keys known to be gone are dropped.
    public mutating func applyExternal(removed: [String]) {
        guard !isPaged else {
            reload(keeping: current?.key)
            return
        }
        for key in removed { remove(key) }
    }

    // MARK: - Changing the items

    /// Everything the store listed; the cursor stays on the same key when it is still there.
    public mutating func replaceAll(_ newItems: [SessionItem], focus: String? = nil) {
        let keep = focus ?? current?.key
        guard !isPaged else {
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
        guard !isPaged else {
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
        guard !isPaged else {
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
        guard !isPaged else {
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
        guard !isPaged else {
            // A row neither held nor watched still keeps its refresh state for when it is read.
            var item =
                item(forKey: key)
                ?? SessionItem(record: Self.missingRecord, isSelected: false, refresh: refreshStates[key] ?? .idle)
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
        guard !isPaged else {
            reload(keeping: keep)
            return
        }
        rebuild(keeping: keep)
    }

    /// The sort turned round, or back; the cursor stays on its session.
    public mutating func reverseSort() {
        let keep = current?.key
        descending.toggle()
        guard !isPaged else {
            reload(keeping: keep)
            return
        }
        rebuild(keeping: keep)
    }

    /// Asks for the keys of the rows the filter shows, `limit` at most: at once in memory, else with the next read;
    /// `takeShownKeys` hands them over once they are there.
    public mutating func askShownKeys(limit: Int) {
        guard isPaged else {
            shownKeys = visible.prefix(limit).map { items[$0].key }
            return
        }
        shownKeysWanted = limit
    }

    /// The keys `askShownKeys` asked for, once (nil until they are read).
    public mutating func takeShownKeys() -> [String]? {
        defer { shownKeys = nil }
        return shownKeys
    }

    /// A new filter: the cursor goes to the first match.
    public mutating func setFilter(_ text: String, now: Date) {
        guard text != filter || now != filterDate && text.contains(":") else { return }
        filter = text
        filterDate = now
        cursor = 0
        scrollOffset = 0
        guard !isPaged else {
            firstPage()
            return
        }
        rebuild(keeping: nil)
        cursor = 0
    }

    /// The count `countLater` was asked for (`request`) arrived; an older one is ignored.
    public mutating func countArrived(_ value: Int, request: Int) {
        guard isPaged, counting, request == countRequest else { return }
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
        if isPaged { ensure(cursor..<cursor + 1) }
    }

    // MARK: - Paged

    /// What a paged list waits for before its rows mean anything.
    private enum Listing: Equatable, Sendable {
        /// The count again, and the row of `focus` (the cursor goes there); then the rows around the cursor.
        case reload(focus: String?)
        /// A new filter's first rows, and its count when they fill a screen.
        case firstRows
    }

    /// How the rows of a request join the window they were asked from.
    private enum Merge: Equatable, Sendable {
        /// Kept from row `start` of the listing, the rows read after the window's last row follow.
        case forward
        /// The rows read before the window's first row, then the window up to the request's end.
        case backward(stop: Int)
        /// The rows read are the window.
        case replace
    }

    /// A request asked and not yet answered, with what its answer means to the list.
    private struct Asked: Equatable, Sendable {
        var request: SessionPageRequest
        var listing: Listing?
        var start = 0
        var merge = Merge.replace
    }

    /// Rows the window holds at least: a screen and a half either side of the view, so a run of single steps or
    /// a page key is one small keyset read.
    private static let windowRows = 128

    /// Rows a new filter reads for its first frame: a tall terminal's screen. The fewer, the sooner a filter whose
    /// matches are sparse near the top of the listing has them; the rest come by keyset as the view needs them.
    private static let firstRows = 64

    /// Shown for a row not read yet (or that went away between the count and the read).
    private static let missingRecord = SessionRecord(
        key: "", backend: "", provider: "", subject: "", issuer: "",
        createdAt: Date(timeIntervalSince1970: 0), expiresAt: nil,
        refreshable: false, scopes: [])

    private func pagedItem(atRow row: Int) -> SessionItem? {
        if row >= windowStart, row < windowStart + window.count { return window[row - windowStart] }
        // A watched key looked up on its own (a marked row, the session an unlock resumes a refresh of).
        return knownRows.first { $0.value == row }.flatMap { known[$0.key] }.map(decorated)
    }

    /// A fetched row with the selection and what the TUI knows about its refresh.
    private func decorated(_ item: SessionItem) -> SessionItem {
        var item = item
        item.isSelected = item.key == pagedSelectedKey
        if let state = refreshStates[item.key] { item.refresh = state }
        return item
    }

    /// A new filter's first rows are asked for; the count too when they are all there is, else it is worked out
    /// off the loop's thread (a filter whose words most rows hold would read every row to count them) and arrives
    /// with `countArrived`, so the frame never waits for it.
    private mutating func firstPage() {
        guard isPaged else { return }
        guard !filter.isEmpty else {
            reload(keeping: nil)
            return
        }
        stopCountPending = stopCountPending || counting
        counting = false
        // The old filter's rows are not this one's: they draw as loading until the read lands.
        window = []
        windowStart = 0
        listing = .firstRows
    }

    /// Asks for the count again and the rows around the cursor, which stays on `key` when it is still listed.
    private mutating func reload(keeping key: String?) {
        guard isPaged else { return }
        stopCountPending = stopCountPending || counting
        counting = false
        listing = .reload(focus: key)
    }

    /// Makes the view need `needed` (rows of the listing) when the window does not hold them; the request for them
    /// is made by `takeRequest`, once the event is applied.
    private mutating func ensure(_ needed: Range<Int>) {
        let end = windowStart + window.count
        let held = needed.isEmpty || !window.isEmpty && needed.lowerBound >= windowStart && needed.upperBound <= end
        need = held ? nil : needed
    }

    /// The request for what the list lacks (a listing, rows, watched keys, auto-refresh candidates), nil when it
    /// lacks nothing or asked for exactly this already. `AppState.apply` returns it as `AppEffect.readPage`.
    public mutating func takeRequest() -> SessionPageRequest? {
        guard isPaged else { return nil }
        var next = Asked(request: SessionPageRequest(token: 0, sort: sort, filter: filter, date: filterDate))
        next.request.descending = descending
        next.listing = listing
        switch listing {
        case .reload(let focus):
            next.request.count = .now
            next.request.focus = focus
            next.request.lookups = watched.sorted()
        case .firstRows:
            next.request.count = .laterIfFull
            next.request.rows = SessionPageRequest.Rows(anchor: nil, skip: 0, limit: Self.firstRows)
            next.request.lookups = watched.sorted()
        case nil:
            if let need { plan(need, into: &next) }
            next.request.lookups = watched.subtracting(lookedUp).sorted()
        }
        next.request.stopCounting = stopCountPending
        next.request.autoRefreshBy = autoRefreshBy
        next.request.shownKeys = shownKeysWanted
        guard
            listing != nil || next.request.rows != nil || !next.request.lookups.isEmpty
                || next.request.autoRefreshBy != nil || next.request.shownKeys != nil
        else { return nil }
        // Asked already and not answered, or answered already: not again (a read that came back short would be).
        if var pending = asked?.request {
            pending.token = 0
            if pending == next.request { return nil }
        }
        if next.listing == nil, next.request.autoRefreshBy == nil, next.request == answered { return nil }
        token += 1
        next.request.token = token
        asked = next
        return next.request
    }

    /// The answer to the last request; an answer to an older one is dropped. The auto-refresh candidates asked for,
    /// with what the TUI knows about them, are returned (nil when none were asked).
    public mutating func pageArrived(_ page: SessionPage) -> [SessionItem]? {
        guard isPaged, let asked, page.token == asked.request.token else { return nil }
        self.asked = nil
        var request = asked.request
        request.token = 0
        answered = request
        if request.stopCounting { stopCountPending = false }
        if autoRefreshBy == request.autoRefreshBy { autoRefreshBy = nil }
        if let keys = page.shownKeys, request.shownKeys == shownKeysWanted {
            shownKeysWanted = nil
            shownKeys = keys
        }
        if asked.listing != nil {
            // The rows of looked-up keys are the old listing's: all are looked up again.
            known = [:]
            knownRows = [:]
            lookedUp = []
        }
        for item in page.found { known[item.key] = item }
        knownRows.merge(page.foundRows) { _, new in new }
        lookedUp.formUnion(request.lookups)
        switch asked.listing {
        case .reload:
            total = page.total ?? 0
            matching = page.matching ?? 0
            window = []
            windowStart = 0
            if let row = page.focusRow { cursor = row }
            cursor = min(cursor, max(0, matching - 1))
            need = matching > 0 ? cursor..<cursor + 1 : nil
        case .firstRows:
            window = page.rows.map(decorated)
            windowStart = 0
            matching = window.count
            if page.countingLater {
                counting = true
                countRequest = page.token
            } else if let total = page.total, let matching = page.matching {
                (self.total, self.matching) = (total, matching)
            }
            need = nil
        case nil:
            if request.rows != nil { placeRows(page, asked) }
        }
        if listing == asked.listing { listing = nil }
        return page.autoRefresh?.map(decorated)
    }

    /// The rows of a `need` read joined to the window as `plan` meant them, or as the window when they are the
    /// fallback's.
    private mutating func placeRows(_ page: SessionPage, _ asked: Asked) {
        let rows = page.rows.map(decorated)
        switch page.fromFallback ? .replace : asked.merge {
        case .forward: window = Array(window[(asked.start - windowStart)...]) + rows
        case .backward(let stop): window = rows + window[..<(stop - windowStart)]
        case .replace: window = rows
        }
        windowStart = asked.start
        need = nil
    }

    /// The read that makes the window hold `needed`, for only what it lacks: by keyset after its last row or before
    /// its first when the rows are near, else (or when that edge row went away) from whichever end of the listing is
    /// nearer.
    private func plan(_ needed: Range<Int>, into next: inout Asked) {
        let end = windowStart + window.count
        let size = max(Self.windowRows, needed.count * 3)
        var start = max(0, needed.lowerBound - (size - needed.count) / 2)
        start = max(0, min(start, matching - size))
        let stop = min(matching, start + size)
        typealias Rows = SessionPageRequest.Rows
        var keyset: Rows?
        if let last = window.last, start < end, stop > end, start >= windowStart {
            // Forward, overlapping: keep what is held from `start`, read the rest after the last row.
            keyset = Rows(anchor: last.key, skip: 0, limit: stop - end)
            next.merge = .forward
        } else if let first = window.first, stop > windowStart, start < windowStart, stop <= end {
            // Backward, overlapping.
            keyset = Rows(before: true, anchor: first.key, skip: 0, limit: windowStart - start)
            next.merge = .backward(stop: stop)
        } else if let last = window.last, start >= end, start - end < size {
            keyset = Rows(anchor: last.key, skip: start - end, limit: stop - start)
        } else if let first = window.first, stop <= windowStart, windowStart - stop < size {
            keyset = Rows(before: true, anchor: first.key, skip: windowStart - stop, limit: stop - start)
        }
        // Far from the window (or its edge row went away): from the nearer end of the listing.
        let fromEnd =
            start <= matching - stop
            ? Rows(anchor: nil, skip: start, limit: stop - start)
            : Rows(before: true, anchor: nil, skip: matching - stop, limit: stop - start)
        next.request.rows = keyset ?? fromEnd
        next.request.fallback = keyset == nil ? nil : fromEnd
        next.start = start
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
        let turned = descending
        func precedes(_ a: Int, _ b: Int) -> Bool {
            turned ? order.precedes(all[b], all[a]) : order.precedes(all[a], all[b])
        }
        // The store lists by key already; checking first avoids sorting 100,000 rows that are in order.
        let sorted = zip(indices, indices.dropFirst()).allSatisfy { !precedes($0.1, $0.0) }
        if !sorted { indices.sort(by: precedes) }
        let words = terms.compactMap(\.rankWord)
        if !words.isEmpty {
            let fuzzy = terms.compactMap { term -> String? in if case .fuzzy(let word) = term { word } else { nil } }
            let ranks = indices.map { Self.rank(all[$0].key, words, fuzzy: fuzzy) }
            indices = (0...4).flatMap { rank in indices.indices.filter { ranks[$0] == rank }.map { indices[$0] } }
        }
        visible = indices
        if let key, let row = visible.firstIndex(where: { items[$0].key == key }) {
            cursor = row
        } else {
            cursor = min(cursor, max(0, visible.count - 1))
        }
    }

    /// One word of the filter.
    public enum Term: Equatable, Sendable {
        /// Text found anywhere in the key, user, email, phone, provider or backend.
        case text(String)
        /// Text a field starts with (`^word`), ends with (`word$`) or is whole (both, or `"quoted words"`).
        case anchored(String, start: Bool, end: Bool)
        /// The key as typed (`key:name`), or its start (`key:name*`).
        case key(String, prefix: Bool)
        case status(String)
        case backend(String)
        case provider(String)
        /// The letters of the word in order in one field, others between them allowed (`~` filters).
        case fuzzy(String)

        public func matches(_ item: SessionItem, at date: Date) -> Bool {
            switch self {
            case .text(let needle): return item.searchText.contains(needle)
            case .fuzzy(let letters):
                return item.searchText.split(separator: "\u{1}").contains { SessionList.isSubsequence(letters, of: $0) }
            case .anchored(let needle, let start, let end):
                // Every field is framed by U+0001 in the searched text, so an anchor is that mark.
                let framed = "\u{1}" + item.searchText + "\u{1}"
                return framed.contains((start ? "\u{1}" : "") + needle + (end ? "\u{1}" : ""))
            case .key(let name, let prefix): return prefix ? item.key.hasPrefix(name) : item.key == name
            case .status(let prefix): return item.record.status(at: date).rawValue.hasPrefix(prefix)
            case .backend(let prefix): return item.record.backend.lowercased().hasPrefix(prefix)
            case .provider(let prefix): return item.record.provider.lowercased().hasPrefix(prefix)
            }
        }

        /// The word a key equal to it (or starting with it) ranks first for: text and key words.
        public var rankWord: String? {
            switch self {
            case .text(let word), .anchored(let word, _, _), .key(let word, _), .fuzzy(let word): return word
            case .status, .backend, .provider: return nil
            }
        }
    }

    /// The filter's field keys, the parser's one list of them (help lists them from here): `key:` the key exactly
    /// (`key:name*` the keys it starts), the others the start of a session's status, backend or provider.
    public enum FilterField: String, CaseIterable, Sendable {
        case key, status, backend, provider

        /// What is typed: `status:`.
        public var prefix: String { rawValue + ":" }

        /// The term for what follows the prefix (`value` as typed); nil when nothing is left of it.
        func term(_ value: String) -> Term? {
            switch self {
            case .key:
                if value.hasSuffix("*") { return value.count > 1 ? .key(String(value.dropLast()), prefix: true) : nil }
                return value.isEmpty ? nil : .key(value, prefix: false)
            case .status: return .status(value.lowercased())
            case .backend: return .backend(value.lowercased())
            case .provider: return .provider(value.lowercased())
            }
        }
    }

    /// Whether the characters of `letters` come in order in `text`, others between them allowed.
    static func isSubsequence(_ letters: String, of text: Substring) -> Bool {
        var rest = text[...]
        for letter in letters {
            guard let found = rest.firstIndex(of: letter) else { return false }
            rest = rest[rest.index(after: found)...]
        }
        return true
    }

    /// Whether `filter` is fuzzy: it starts with `~` (Tab in the filter field puts it there or takes it away).
    public static func isFuzzy(_ filter: String) -> Bool {
        filter.drop { $0 == " " }.first == "~"
    }

    /// The filter's words: split at spaces outside double quotes, lower-cased except a `key:` value; an unknown
    /// `field:` is plain text. A quoted text (closed or still being typed) is a whole field; `^` and `$` anchor a
    /// word at a field's start and end; `key:name` is that key exactly and `key:name*` the keys it starts.
    /// A filter starting with `~` is fuzzy: its plain words match their letters in order (`gbob` finds google-bob).
    public static func terms(_ filter: String) -> [Term] {
        var terms: [Term] = []
        let fuzzy = isFuzzy(filter)
        var rest = fuzzy ? Substring(filter).drop { $0 == " " }.dropFirst() : Substring(filter)
        while let first = rest.firstIndex(where: { $0 != " " }) {
            rest = rest[first...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                let text = body[..<close].lowercased()
                if !text.isEmpty { terms.append(.anchored(text, start: true, end: true)) }
                rest = close == body.endIndex ? "" : body[body.index(after: close)...]
                continue
            }
            let stop = rest.firstIndex(of: " ") ?? rest.endIndex
            if let term = term(String(rest[..<stop])) {
                if fuzzy, case .text(let word) = term { terms.append(.fuzzy(word)) } else { terms.append(term) }
            }
            rest = rest[stop...]
        }
        return terms
    }

    /// One unquoted word as a term; nil when nothing is left of it (a lone `^`, `key:`).
    private static func term(_ word: String) -> Term? {
        let text = word.lowercased()
        for field in FilterField.allCases where text.hasPrefix(field.prefix) {
            return field.term(String(word.dropFirst(field.prefix.count)))
        }
        let start = text.hasPrefix("^")
        let end = text.count > (start ? 1 : 0) && text.hasSuffix("$")
        let needle = String(text.dropFirst(start ? 1 : 0).dropLast(end ? 1 : 0))
        if !start && !end { return .text(text) }
        return needle.isEmpty ? nil : .anchored(needle, start: start, end: end)
    }

    /// How a key ranks for the filter's words: 0 when it is one of them, 1 when it starts with one, else 2. With
    /// fuzzy words, a key holding one whole is 2, one holding its letters in order 3, and the rest (a match in
    /// another field) 4: the score fuzzy rows are listed by, the order within each rank.
    public static func rank(_ key: String, _ words: [String], fuzzy: [String] = []) -> Int {
        if words.contains(key) { return 0 }
        if words.contains(where: { key.hasPrefix($0) }) { return 1 }
        guard !fuzzy.isEmpty else { return 2 }
        let folded = key.lowercased()
        if fuzzy.contains(where: { folded.contains($0) }) { return 2 }
        return fuzzy.contains(where: { isSubsequence($0, of: folded[...]) }) ? 3 : 4
    }
}
