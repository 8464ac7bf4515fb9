import AuthCore
import Foundation

/// Pages of the session listing for the TUI: only the rows on screen are read, as keyset ranges of the index of
/// the chosen order (each ends in the key, so a row's position is unique), with the filter in the query and the
/// count from SQL. Nothing here reads every row, except the filter itself when it has text to look for.
extension SessionStore {
    /// How many sessions `query` matches.
    public func count(_ query: SessionQuery) throws(StoreError) -> Int {
        let condition = query.condition()
        return try locked { () throws(SQLiteError) -> Int in
            // With no filter, a bare count lets SQLite count the smallest index's pages.
            let filtered = query.terms.isEmpty ? "" : " WHERE \(condition.sql)"
            let statement = try database.prepare("SELECT count(*) FROM sessions\(filtered)")
            for (index, value) in condition.values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            _ = try statement.step()
            return Int(statement.int64(0))
        }
    }

    /// Up to `limit` sessions in `query`'s order that come after the session `key` (from the first when nil),
    /// leaving out the first `skip` of them. Throws `noSuchSession` when `key` is no longer stored.
    public func page(
        _ query: SessionQuery, after key: String?, skip: Int = 0,
        limit: Int
    ) throws(StoreError) -> [StoreEntry] {
        try page(query, anchor: key, forward: true, skip: skip, limit: limit)
    }

    /// Up to `limit` sessions that come before the session `key` (before the end when nil), leaving out the
    /// `skip` nearest to it; returned in `query`'s order.
    public func page(
        _ query: SessionQuery, before key: String?, skip: Int = 0,
        limit: Int
    ) throws(StoreError) -> [StoreEntry] {
        try page(query, anchor: key, forward: false, skip: skip, limit: limit).reversed()
    }

    /// The 0-based row of `key` in `query`'s listing, nil when the filter leaves it out or it is not stored.
    public func rowNumber(of key: String, in query: SessionQuery) throws(StoreError) -> Int? {
        let condition = query.condition()
        let order = query.order
        return try locked { () throws(SQLiteError) -> Int? in
            let next = Int32(condition.values.count + 1)
            let anchor = try database.prepare(
                """
                SELECT \(order.sortExpression) FROM sessions WHERE key = ?\(next) AND (\(condition.sql))
                """)
            for (index, value) in condition.values.enumerated() { value.bind(to: anchor, at: Int32(index + 1)) }
            anchor.bind(next, key)
            guard try anchor.step() else { return nil }
            let before = try database.prepare(
                """
                SELECT count(*) FROM sessions WHERE (\(condition.sql)) AND \(Self.range(order, forward: false,
                                                                                         first: next))
                """)
            for (index, value) in condition.values.enumerated() { value.bind(to: before, at: Int32(index + 1)) }
            Self.bindAnchor(anchor, into: before, order: order, first: next, key: key)
            _ = try before.step()
            return Int(before.int64(0))
        }
    }

    /// The sessions marked for auto-refresh that can refresh and expire at or before `horizon`: what the TUI's
    /// tick looks for, through the expiry index rather than over every row.
    public func autoRefreshCandidates(expiringBy horizon: Date) throws(StoreError) -> [StoreEntry] {
        try locked { () throws(SQLiteError) -> [StoreEntry] in
            let selected = try Self.readMetaText(database, StoreSchema.Meta.selected)
            let statement = try database.prepare(
                """
                SELECT \(StoreSchema.sessionColumns) FROM sessions \
                WHERE \(SessionOrder.expiry.sortExpression) <= ?1 AND auto_refresh != 0 AND refreshable != 0 \
                ORDER BY \(SessionOrder.expiry.sortExpression), key
                """)
            statement.bind(1, horizon.timeIntervalSince1970)
            var result: [StoreEntry] = []
            while try statement.step() { result.append(Self.entry(from: statement, selected: selected)) }
            return result
        }
    }

    // MARK: - Private

    private func page(
        _ query: SessionQuery, anchor key: String?, forward: Bool, skip: Int,
        limit: Int
    ) throws(StoreError) -> [StoreEntry] {
        let condition = query.condition()
        let order = query.order
        let direction = forward ? "" : " DESC"
        let ordering = order == .key ? "key\(direction)" : "\(order.sortExpression)\(direction), key\(direction)"
        return try locked { () throws(SQLiteError) -> [StoreEntry] in
            let next = Int32(condition.values.count + 1)
            var anchor: SQLiteStatement?
            if let key {
                let found = try database.prepare("SELECT \(order.sortExpression) FROM sessions WHERE key = ?1")
                found.bind(1, key)
                guard try found.step() else { throw SQLiteError(code: -2, message: key) }
                anchor = found
            }
            let range = anchor == nil ? "1" : Self.range(order, forward: forward, first: next)
            let after = anchor == nil ? next : next + 2
            let selected = try Self.readMetaText(database, StoreSchema.Meta.selected)
            let statement = try database.prepare(
                """
                SELECT \(StoreSchema.sessionColumns) FROM sessions WHERE (\(condition.sql)) AND \(range) \
                ORDER BY \(ordering) LIMIT ?\(after) OFFSET ?\(after + 1)
                """)
            for (index, value) in condition.values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            if let anchor, let key { Self.bindAnchor(anchor, into: statement, order: order, first: next, key: key) }
            statement.bind(after, Int64(max(0, limit)))
            statement.bind(after + 1, Int64(max(0, skip)))
            var result: [StoreEntry] = []
            while try statement.step() { result.append(Self.entry(from: statement, selected: selected)) }
            return result
        }
    }

    /// Rows strictly after (or before) the anchor bound at `?first` (its sort value) and `?first+1` (its key).
    /// The leading single-column bound lets SQLite search the expression index; the row value settles ties.
    private static func range(_ order: SessionOrder, forward: Bool, first: Int32) -> String {
        let op = forward ? ">" : "<"
        if order == .key { return "key \(op) ?\(first + 1)" }
        let value = order.sortExpression
        return "\(value) \(op)= ?\(first) AND (\(value), key) \(op) (?\(first), ?\(first + 1))"
    }

    /// Binds the anchor's sort value (column 0 of `anchor`, a REAL for expiry, else TEXT) and its key.
    private static func bindAnchor(
        _ anchor: SQLiteStatement, into statement: SQLiteStatement, order: SessionOrder,
        first: Int32, key: String
    ) {
        if order == .expiry {
            statement.bind(first, anchor.double(0))
        } else {
            statement.bind(first, anchor.string(0))
        }
        statement.bind(first + 1, key)
    }

    /// Runs `body` under the store's lock, turning SQLite errors into store errors (code -2: the anchor is gone).
    private func locked<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body()
        } catch {
            if error.code == -2 { throw .noSuchSession(error.message) }
            throw fail(error)
        }
    }
}
