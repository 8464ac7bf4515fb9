/// The filter's trigram index (schema 4) around a bulk import. Its triggers cost every row a write: SQLite opens a
/// statement savepoint for each INSERT that fires a trigger, and FTS5 writes its pending terms out at every
/// savepoint, so 100,000 one-row INSERTs write 100,000 tiny index segments (about 8 s of CPU at 100,000 rows,
/// against 0.5 s for one rebuild). A caller that inserts many rows into an empty table suspends the triggers inside
/// its transaction and restores them before it commits; the index is then built from the rows in one pass.
extension SessionStore {
    /// Drops the search index's triggers inside the caller's write transaction; returns their SQL for
    /// `restoreSearchIndex`. The caller holds the store's lock.
    func suspendSearchIndex() throws(SQLiteError) -> [String] {
        let statement = try database.prepare(
            """
            SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'sessions' \
            AND name LIKE 'sessions_search_%' ORDER BY name
            """)
        var found: [(name: String, sql: String)] = []
        while try statement.step() { found.append((statement.string(0) ?? "", statement.string(1) ?? "")) }
        for trigger in found {
            try database.execute("DROP TRIGGER \"\(trigger.name.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
        return found.map(\.sql)
    }

    /// Re-creates the triggers `suspendSearchIndex` dropped and rebuilds the index from every row, in the same
    /// transaction, so no other connection ever sees rows the index lacks.
    func restoreSearchIndex(_ triggers: [String]) throws(SQLiteError) {
        for sql in triggers { try database.execute(sql) }
        try database.execute("INSERT INTO session_search (session_search) VALUES ('rebuild')")
    }
}
