import Foundation
import SessionStorage
import Synchronization
import TerminalUI

/// The Sessions table's rows straight from the store: the TUI's `SessionList` asks for the count and the rows on
/// screen (`SessionStore+Pages`), so the TUI holds no row it does not show. Before a first sign-in creates the
/// store there is nothing to list. A store error is kept for the event loop to show, never swallowed.
final class TUIPageSource: SessionPageSource {
    private let store: TUIStore
    private let failure = Mutex<String?>(nil)
    /// Where a count worked out off the loop's thread goes (the loop's inbox); nil until the loop says.
    private let reporter = Mutex<(@Sendable (AppEvent) -> Void)?>(nil)
    /// The count the list waits for; a count whose request is no longer this one stops at its next step.
    private let latestCount = Mutex(0)
    /// Counts run one at a time, off the loop's thread.
    private let counter = DispatchQueue(label: "authdeck.tui.count")
    /// How long a count waits before it starts: while the user types, each key asks for a new one, and this lets
    /// the old one go before it read anything (a person's next key comes later than this; the number then shows).
    static let countDelay: TimeInterval = 0.05

    init(store: TUIStore) {
        self.store = store
    }

    /// The last store error since the last call, for the message line.
    func takeFailure() -> String? {
        failure.withLock { value in
            defer { value = nil }
            return value
        }
    }

    func count(sort: SessionSort, filter: String, at date: Date) -> (total: Int, matching: Int) {
        read((0, 0)) { store throws(StoreError) in
            let total = try store.count(SessionQuery())
            return (total, filter.isEmpty ? total : try store.count(Self.query(sort, filter, date)))
        }
    }

    func rows(
        sort: SessionSort, descending: Bool, filter: String, at date: Date, after key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]? {
        page { store throws(StoreError) in
            try store.page(Self.query(sort, filter, date, descending: descending), after: key, skip: skip, limit: limit)
        }
    }

    func rows(
        sort: SessionSort, descending: Bool, filter: String, at date: Date, before key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]? {
        page { store throws(StoreError) in
            try store.page(
                Self.query(sort, filter, date, descending: descending), before: key, skip: skip, limit: limit)
        }
    }

    /// Counts worked out later are posted through `report` (the event loop's inbox).
    func reportCounts(_ report: @escaping @Sendable (AppEvent) -> Void) {
        reporter.withLock { $0 = report }
    }

    func countLater(sort: SessionSort, filter: String, at date: Date, request: Int) -> Bool {
        guard let report = reporter.withLock({ $0 }) else { return false }
        latestCount.withLock { $0 = request }
        let query = Self.query(sort, filter, date)
        counter.asyncAfter(deadline: .now() + Self.countDelay) { [self] in
            let stale = { self.latestCount.withLock { $0 } != request }
            guard !stale() else { return }
            guard let opened = open() else {
                // No store (nothing to count) or one that failed to open: the list must not wait on.
                report(takeFailure().map(AppEvent.storeFailed) ?? .sessionsCounted(request: request, matching: 0))
                return
            }
            do throws(StoreError) {
                guard let matching = try opened.count(query, until: stale) else { return }
                report(.sessionsCounted(request: request, matching: matching))
            } catch {
                report(.storeFailed(error.description))
            }
        }
        return true
    }

    func stopCounting() {
        latestCount.withLock { $0 = -1 }
    }

    func rowNumber(of key: String, sort: SessionSort, descending: Bool, filter: String, at date: Date) -> Int? {
        read(nil) { store throws(StoreError) in
            try store.rowNumber(of: key, in: Self.query(sort, filter, date, descending: descending))
        }
    }

    func item(_ key: String) -> SessionItem? {
        read(nil) { store throws(StoreError) -> SessionItem? in
            do throws(StoreError) {
                return TUIStore.item(try store.entry(key))
            } catch {
                if case .noSuchSession = error { return nil }
                throw error
            }
        }
    }

    func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem] {
        read([]) { store throws(StoreError) in try store.autoRefreshCandidates(expiringBy: horizon).map(TUIStore.item) }
    }

    /// The TUI's filter words as the store's query terms.
    static func query(_ sort: SessionSort, _ filter: String, _ date: Date, descending: Bool = false) -> SessionQuery {
        let words = SessionList.terms(filter)
        let terms = words.map { term -> SessionQuery.Term in
            switch term {
            case .text(let text): return .text(text)
            case .anchored(let text, let start, let end): return .anchored(text, start: start, end: end)
            case .key(let name, let prefix): return .key(name, prefix: prefix)
            case .status(let prefix): return .status(prefix)
            case .backend(let prefix): return .backend(prefix)
            case .provider(let prefix): return .provider(prefix)
            case .fuzzy(let letters): return .fuzzy(letters)
            }
        }
        var query = SessionQuery(order: SessionOrder(rawValue: sort.rawValue) ?? .key, terms: terms, now: date)
        query.rankWords = words.compactMap(\.rankWord)
        query.descending = descending
        query.fuzzyWords = words.compactMap { term in if case .fuzzy(let letters) = term { letters } else { nil } }
        return query
    }

    /// A page, nil when its anchor row went away (the list then reads from an end of the listing).
    private func page(_ body: (SessionStore) throws(StoreError) -> [StoreEntry]) -> [SessionItem]? {
        guard let opened = open() else { return [] }
        do throws(StoreError) {
            return try body(opened).map(TUIStore.item)
        } catch {
            if case .noSuchSession = error { return nil }
            failure.withLock { $0 = error.description }
            return []
        }
    }

    private func read<T>(_ fallback: T, _ body: (SessionStore) throws(StoreError) -> T) -> T {
        guard let opened = open() else { return fallback }
        do throws(StoreError) {
            return try body(opened)
        } catch {
            failure.withLock { $0 = error.description }
            return fallback
        }
    }

    private func open() -> SessionStore? {
        do throws(StoreError) {
            return try store.store(create: false)
        } catch {
            failure.withLock { $0 = error.description }
            return nil
        }
    }
}
