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
        sort: SessionSort, filter: String, at date: Date, after key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]? {
        page { store throws(StoreError) in
            try store.page(Self.query(sort, filter, date), after: key, skip: skip, limit: limit)
        }
    }

    func rows(
        sort: SessionSort, filter: String, at date: Date, before key: String?, skip: Int,
        limit: Int
    ) -> [SessionItem]? {
        page { store throws(StoreError) in
            try store.page(Self.query(sort, filter, date), before: key, skip: skip, limit: limit)
        }
    }

    func rowNumber(of key: String, sort: SessionSort, filter: String, at date: Date) -> Int? {
        read(nil) { store throws(StoreError) in try store.rowNumber(of: key, in: Self.query(sort, filter, date)) }
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
    static func query(_ sort: SessionSort, _ filter: String, _ date: Date) -> SessionQuery {
        let terms = SessionList.terms(filter).map { term -> SessionQuery.Term in
            switch term {
            case .text(let text): return .text(text)
            case .status(let prefix): return .status(prefix)
            case .backend(let prefix): return .backend(prefix)
            case .provider(let prefix): return .provider(prefix)
            }
        }
        return SessionQuery(order: SessionOrder(rawValue: sort.rawValue) ?? .key, terms: terms, now: date)
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
