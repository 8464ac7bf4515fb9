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

/// A prepared statement; parameters are bound by 1-based index.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(statement)
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value {
            sqlite3_bind_text(statement, index, value, -1, csqlite_transient())
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    func bind(_ index: Int32, _ value: [UInt8]?) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        _ = value.withUnsafeBytes { bytes in
            // An empty array may have no address; SQLite needs one to store a zero-length blob.
            sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                              Int32(bytes.count), csqlite_transient())
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    /// Steps once: true when a row is ready, false when done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: status, message: database.lastMessage)
        }
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func double(_ column: Int32) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, column) }
}

/// What SQLite said went wrong: its (extended) result code and message.
struct SQLiteError: Error {
    let code: Int32
    let message: String

    /// The primary result code, without the extended bits.
    var primary: Int32 { code & 0xff }

    /// The file is not a database or its pages do not add up.
    var isDamage: Bool { primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB }

    var isBusy: Bool { primary == SQLITE_BUSY || primary == SQLITE_LOCKED }
}
