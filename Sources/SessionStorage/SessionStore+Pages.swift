import AuthCore
import Foundation

/// Pages of the session listing for the TUI: only the rows on screen are read, as keyset ranges of the index of
/// the chosen order (each ends in the key, so a row's position is unique), with the filter in the query and the
/// count from SQL. A filter with text to look for reads, by the cheaper of two ways: the listing in order until a
/// page matched (when most rows match), or the rows the trigram index `session_search` (schema 4) names (when few
/// do). Either way the filter's own condition is checked on each row, so the index only narrows, never decides.
extension SessionStore {
    /// How many sessions `query` matches.
    public func count(_ query: SessionQuery) throws(StoreError) -> Int {
        try count(query, until: { false }) ?? 0
    }

    /// How many sessions `query` matches, counted in short steps that let other calls on this store in between;
    /// nil as soon as `cancelled` says so (checked between steps). For the TUI, which counts off its loop's thread.
    public func count(_ query: SessionQuery, until cancelled: () -> Bool) throws(StoreError) -> Int? {
        let condition = query.condition()
        let way = try locked { () throws(SQLiteError) -> (Search, Int64, Int64) in
            guard !query.terms.isEmpty else { return (.all, 0, 0) }
            let way = try search(query)
            guard case .scan = way else { return (way, 0, 0) }
            let bounds = try database.prepare("SELECT min(rowid), max(rowid) FROM sessions")
            _ = try bounds.step()
            return (way, bounds.int64(0), bounds.int64(1))
        }
        switch way.0 {
        case .nothing:
            return 0
        case .all:
            return try locked { () throws(SQLiteError) -> Int in
                // With no filter, a bare count lets SQLite count the smallest index's pages.
                let statement = try database.prepare("SELECT count(*) FROM sessions")
                _ = try statement.step()
                return Int(statement.int64(0))
            }
        case .index(let match):
            return try locked { () throws(SQLiteError) -> Int in
                let statement = try database.prepare(
                    "SELECT count(*) FROM \(Self.searched) WHERE \(Self.matching(condition)) AND (\(condition.sql))")
                for (index, value) in condition.values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
                Self.bind(condition, match, to: statement)
                _ = try statement.step()
                return Int(statement.int64(0))
            }
        case .scan:
            // Every row is read: in ranges of rowids, the lock let go between them.
            var total = 0
            var low = way.1 - 1
            while low < way.2 {
                if cancelled() { return nil }
                let high = low + Self.countStep
                total += try locked { () throws(SQLiteError) -> Int in
                    let next = Int32(condition.values.count + 1)
                    let statement = try database.prepare(
                        """
                        SELECT count(*) FROM sessions WHERE rowid > ?\(next) AND rowid <= ?\(next + 1) \
                        AND (\(condition.sql))
                        """)
                    for (index, value) in condition.values.enumerated() {
                        value.bind(to: statement, at: Int32(index + 1))
                    }
                    statement.bind(next, low)
                    statement.bind(next + 1, high)
                    _ = try statement.step()
                    return Int(statement.int64(0))
                }
                low = high
            }
            return cancelled() ? nil : total
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
        try locked { () throws(SQLiteError) -> Int? in
            let query = try ranked(query)
            let condition = query.condition()
            let order = query.order
            let next = Int32(condition.values.count + 1)
            let anchor = try database.prepare(
                """
                SELECT \(order.sortExpression) FROM sessions WHERE key = ?\(next) AND (\(condition.sql))
                """)
            for (index, value) in condition.values.enumerated() { value.bind(to: anchor, at: Int32(index + 1)) }
            anchor.bind(next, key)
            guard try anchor.step() else { return nil }
            let way = query.terms.isEmpty ? Search.all : try search(query)
            var from = "sessions WHERE"
            if case .index = way { from = "\(Self.searched) WHERE \(Self.matching(condition)) AND" }
            let before = try database.prepare(
                """
                SELECT count(*) FROM \(from) (\(condition.sql)) AND \
                \(Self.range(
                    order, forward: false, descending: query.descending, first: next, rank: query.rank(of:_:), condition))
                """)
            for (index, value) in condition.values.enumerated() { value.bind(to: before, at: Int32(index + 1)) }
            Self.bindAnchor(anchor, into: before, order: order, first: next, key: key)
            if case .index(let match) = way { Self.bind(condition, match, to: before) }
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
                SELECT \(StoreSchema.sessionReadColumns) FROM sessions \
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
        try locked { () throws(SQLiteError) -> [StoreEntry] in
            let query = try ranked(query)
            let condition = query.condition()
            let order = query.order
            let direction = forward ? "" : " DESC"
            // The order's own value and the key run the other way in a descending listing; the rank never does.
            let own = forward != query.descending ? "" : " DESC"
            var ordering = order == .key ? "key\(own)" : "\(order.sortExpression)\(own), key\(own)"
            if let rank = query.rank(of: "key", condition) { ordering = "\(rank)\(direction), " + ordering }
            let next = Int32(condition.values.count + 1)
            var anchor: SQLiteStatement?
            if let key {
                let found = try database.prepare("SELECT \(order.sortExpression) FROM sessions WHERE key = ?1")
                found.bind(1, key)
                guard try found.step() else { throw SQLiteError(code: -2, message: key) }
                anchor = found
            }
            let range =
                anchor == nil
                ? "1"
                : Self.range(
                    order, forward: forward, descending: query.descending, first: next, rank: query.rank(of:_:),
                    condition)
            let after = anchor == nil ? next : next + 2
            let selected = try Self.readMetaText(database, StoreSchema.Meta.selected)
            /// The page read from `from` (FROM's text up to its WHERE) with `extra` ANDed to the filter, and what
            /// `bind` binds for `extra`.
            func read(
                _ from: String, _ extra: String, bind: (SQLiteStatement) -> Void = { _ in }
            ) throws(SQLiteError) -> [StoreEntry] {
                let statement = try database.prepare(
                    """
                    SELECT \(StoreSchema.sessionReadColumns) FROM \(from) WHERE \(extra)(\(condition.sql)) AND \(range) \
                    ORDER BY \(ordering) LIMIT ?\(after) OFFSET ?\(after + 1)
                    """)
                for (index, value) in condition.values.enumerated() {
                    value.bind(to: statement, at: Int32(index + 1))
                }
                if let anchor, let key { Self.bindAnchor(anchor, into: statement, order: order, first: next, key: key) }
                statement.bind(after, Int64(max(0, limit)))
                statement.bind(after + 1, Int64(max(0, skip)))
                bind(statement)
                var result: [StoreEntry] = []
                while try statement.step() { result.append(Self.entry(from: statement, selected: selected)) }
                return result
            }
            guard !query.searchableTexts.isEmpty || !query.shortASCIITexts.isEmpty else {
                return try read("sessions", "")
            }
            if let match = query.trigramMatch() {
                // A word whose trigrams no row holds: nothing to read (the index answers at once).
                let any = try database.prepare("SELECT 1 FROM session_search WHERE session_search MATCH ?1 LIMIT 1")
                any.bind(1, match)
                guard try any.step() else { return [] }
            }
            // Most filters' words are in most rows: the listing in order up to its `scanBudget`th row (the
            // order's index, stopped by that row), a page of matches among them enough. Not when keys rank: no
            // index holds that order.
            if query.rankWords.isEmpty {
                let edge = try database.prepare(
                    """
                    SELECT \(order.sortExpression), key FROM sessions WHERE \(range) ORDER BY \(ordering) \
                    LIMIT 1 OFFSET \(Self.scanBudget - 1)
                    """)
                if let anchor, let key { Self.bindAnchor(anchor, into: edge, order: order, first: next, key: key) }
                guard try edge.step(), let edgeKey = edge.string(1) else {
                    return try read("sessions", "")  // no more rows than that: all of them
                }
                let last = Int32(condition.values.count + 6)
                let found = try read(
                    "sessions",
                    Self.range(order, forward: !forward, descending: query.descending, first: last, inclusive: true)
                        + " AND "
                ) {
                    Self.bindAnchor(edge, into: $0, order: order, first: last, key: edgeKey)
                }
                if found.count == max(0, limit) { return found }
            }
            switch try search(query) {
            case .nothing: return []
            case .index(let match):
                return try read(Self.searched, Self.matching(condition) + " AND ") {
                    Self.bind(condition, match, to: $0)
                }
            case .all, .scan: return try read("sessions", "")
            }
        }
    }

    /// `query` without its rank words when no key equals or starts with one: the listing is then in the order's
    /// index. Each word is one look-up in the key's index.
    func ranked(_ query: SessionQuery) throws(SQLiteError) -> SessionQuery {
        var query = query
        // Fuzzy words rank by their letters in the key too, which no prefix probe can rule out.
        guard !query.rankWords.isEmpty, query.fuzzyWords.isEmpty else { return query }
        let probe = try database.prepare("SELECT 1 FROM sessions WHERE key >= ?1 AND key < ?2 LIMIT 1")
        for word in query.rankWords {
            probe.reset()
            probe.bind(1, word)
            probe.bind(2, SessionQuery.pastPrefix(word))
            if try probe.step() { return query }
        }
        query.rankWords = []
        return query
    }

    // MARK: - The trigram index

    /// How a filter's rows are found.
    enum Search: Equatable {
        /// No filter.
        case all
        /// Every row is read in the listing's order, the filter checked on each.
        case scan
        /// The rows the FTS5 query names (few), the filter checked on each.
        case index(String)
        /// No row can match: a short word starts no trigram in the index.
        case nothing
    }

    /// The index's candidates cheaper than the listing when fewer than this many rows hold the words' trigrams.
    static let searchLimit = 2_048
    /// Rows of the listing a filter with text reads in order for a page of matches before the index is asked.
    static let scanBudget = 512
    /// Rowids a counting step reads under the lock.
    static let countStep: Int64 = 2_048

    /// The index joined to its rows: the index drives (CROSS JOIN keeps it the outer loop).
    static let searched = "session_search CROSS JOIN sessions ON sessions.rowid = session_search.rowid"

    /// The MATCH on the index, its query bound after the condition's values and the page's own parameters.
    static func matching(_ condition: (sql: String, values: [SQLiteValue])) -> String {
        "session_search MATCH ?\(condition.values.count + 5)"
    }

    static func bind(_ condition: (sql: String, values: [SQLiteValue]), _ match: String, to statement: SQLiteStatement)
    {
        statement.bind(Int32(condition.values.count + 5), match)
    }

    /// Chooses how to find `query`'s rows: through the index when its words' trigrams are in fewer than
    /// `searchLimit` rows. Words of three characters or more are looked up as they are; with none, the trigrams
    /// that one- and two-character ASCII words start are looked up in the index's vocabulary.
    func search(_ query: SessionQuery) throws(SQLiteError) -> Search {
        if let match = query.trigramMatch() {
            let probe = try database.prepare(
                "SELECT count(*) FROM (SELECT rowid FROM session_search WHERE session_search MATCH ?1 LIMIT ?2)")
            probe.bind(1, match)
            probe.bind(2, Int64(Self.searchLimit))
            _ = try probe.step()
            let found = probe.int64(0)
            if found == 0 { return .nothing }
            return found < Self.searchLimit ? .index(match) : .scan
        }
        let short = query.shortASCIITexts
        guard !short.isEmpty else { return .scan }
        try database.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.session_search_terms USING fts5vocab(main, session_search, 'row')")
        var best: (terms: [String], rows: Int64)?
        for needle in short {
            var bytes = Array(needle.utf8)
            bytes[bytes.count - 1] += 1
            let terms = try database.prepare(
                "SELECT term, doc FROM temp.session_search_terms WHERE term >= ?1 AND term < ?2")
            terms.bind(1, needle)
            terms.bind(2, String(decoding: bytes, as: UTF8.self))
            var found: [String] = []
            var rows: Int64 = 0
            while try terms.step() {
                found.append(terms.string(0) ?? "")
                rows += terms.int64(1)
            }
            if found.isEmpty { return .nothing }
            if rows < best?.rows ?? Int64.max { best = (found, rows) }
        }
        guard let best, best.rows < Int64(Self.searchLimit) else { return .scan }
        return .index(best.terms.map(SessionQuery.quoted).joined(separator: " OR "))
    }

    /// Rows strictly after (or before) the anchor bound at `?first` (its sort value) and `?first+1` (its key).
    /// The leading single-column bound lets SQLite search the expression index; the row value settles ties.
    /// With `inclusive`, the anchor's row too. `descending` turns the order's value and key round, not the rank.
    private static func range(
        _ order: SessionOrder, forward: Bool, descending: Bool = false, first: Int32, inclusive: Bool = false,
        rank: (String, (sql: String, values: [SQLiteValue])) -> String? = { _, _ in nil },
        _ condition: (sql: String, values: [SQLiteValue]) = ("1", [])
    ) -> String {
        let op = forward != descending ? ">" : "<"
        let rowOp = op + (inclusive ? "=" : "")
        if let rows = rank("key", condition), let anchor = rank("?\(first + 1)", condition) {
            // Ranked keys first: the rank leads the row value, the anchor's rank worked out from its key.
            let value = order == .key ? "" : "\(order.sortExpression), "
            let anchorValue = order == .key ? "" : "?\(first), "
            guard descending else {
                return "(\(rows), \(value)key) \(rowOp) (\(anchor), \(anchorValue)?\(first + 1))"
            }
            // The rank keeps its direction while the rest turns: no one row value compares both ways.
            let rankOp = forward ? ">" : "<"
            let rest = "(\(value)key) \(rowOp) (\(anchorValue)?\(first + 1))"
            return "(\(rows) \(rankOp) \(anchor) OR (\(rows) = \(anchor) AND \(rest)))"
        }
        if order == .key { return "key \(rowOp) ?\(first + 1)" }
        let value = order.sortExpression
        return "\(value) \(op)= ?\(first) AND (\(value), key) \(rowOp) (?\(first), ?\(first + 1))"
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
