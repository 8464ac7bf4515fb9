import CSQLite

/// One SQLite connection with prepared statements and bound parameters; no SQL is ever built from data.
/// Not thread-safe on its own: `SessionStore` serialises every call.
final class SQLiteDatabase {
    let path: String
    private var handle: OpaquePointer?

    /// Opens (never creates) the database at `path`. SQLite reads the file lazily, so a damaged file is
    /// reported by the first statement, not here.
    init(path: String, create: Bool = false, busyTimeoutMilliseconds: Int32) throws(SQLiteError) {
        self.path = path
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let error = SQLiteError(code: status, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs statements that take no parameters and return nothing worth reading.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text)
        }
    }

    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError(code: status, message: lastMessage) }
        return SQLiteStatement(statement, database: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so two writers never
    /// deadlock upgrading read locks, and `busy_timeout` covers the wait. Returns only after COMMIT succeeded.
    func writeTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may leave the transaction open; roll it back so the connection stays usable.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }
}
