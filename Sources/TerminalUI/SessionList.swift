import Foundation

/// The sessions the table shows: every item, the filter and sort order, and the cursor.
///
/// The filter is words that must all match: plain text matches key, user, provider and backend; `status:`,
/// `backend:` and `provider:` match that field's start (`status:exp` finds expired and expiring).
///
/// The filtered and sorted order is a cached list of indices, rebuilt only when the items, the filter or the
/// order change, so a key press that only moves the cursor costs nothing at 100,000 sessions.
public struct SessionList: Equatable, Sendable {
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

    /// The session under the cursor.
    public var current: SessionItem? {
        visible.indices.contains(cursor) ? items[visible[cursor]] : nil
    }

    /// The item drawn on table row `row`.
    public func item(atRow row: Int) -> SessionItem {
        items[visible[row]]
    }

    public var count: Int { visible.count }

    // MARK: - Changing the items

    /// Everything the store listed; the cursor stays on the same key when it is still there.
    public mutating func replaceAll(_ newItems: [SessionItem], focus: String? = nil) {
        let keep = focus ?? current?.key
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
        guard let index = items.firstIndex(where: { $0.key == key }) else { return }
        let row = cursor
        items.remove(at: index)
        rebuild(keeping: nil)
        cursor = min(row, max(0, visible.count - 1))
    }

    /// Marks `key` as the store's selected session (and no other).
    public mutating func markSelected(_ key: String) {
        for index in items.indices where items[index].isSelected != (items[index].key == key) {
            items[index].isSelected = items[index].key == key
        }
    }

    /// Changes one item in place; the order is not rebuilt (only refresh state and flags change this way).
    public mutating func update(_ key: String, _ change: (inout SessionItem) -> Void) {
        guard let index = items.firstIndex(where: { $0.key == key }) else { return }
        change(&items[index])
    }

    public mutating func setSort(_ order: SessionSort) {
        guard order != sort else { return }
        sort = order
        rebuild(keeping: current?.key)
    }

    /// A new filter: the cursor goes to the first match.
    public mutating func setFilter(_ text: String, now: Date) {
        guard text != filter || now != filterDate && text.contains(":") else { return }
        filter = text
        filterDate = now
        rebuild(keeping: nil)
        cursor = 0
        scrollOffset = 0
    }

    // MARK: - Moving the cursor

    public mutating func moveCursor(by offset: Int) {
        guard !visible.isEmpty else { cursor = 0; return }
        cursor = min(max(0, cursor + offset), visible.count - 1)
    }

    public mutating func moveCursor(toRow row: Int) {
        guard !visible.isEmpty else { cursor = 0; return }
        cursor = min(max(0, row), visible.count - 1)
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
    enum Term: Equatable {
        case text(String)
        case status(String)
        case backend(String)
        case provider(String)

        func matches(_ item: SessionItem, at date: Date) -> Bool {
            switch self {
            case .text(let needle): return item.searchText.contains(needle)
            case .status(let prefix): return item.record.status(at: date).rawValue.hasPrefix(prefix)
            case .backend(let prefix): return item.record.backend.lowercased().hasPrefix(prefix)
            case .provider(let prefix): return item.record.provider.lowercased().hasPrefix(prefix)
            }
        }
    }

    /// The filter's words, lower-cased; an unknown `field:` is plain text.
    static func terms(_ filter: String) -> [Term] {
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
