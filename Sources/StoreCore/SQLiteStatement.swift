import CSQLite

/// A prepared statement; parameters are bound by 1-based index.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase

    package init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit {
        sqlite3_finalize(statement)
    }

    package func bind(_ index: Int32, _ value: String?) {
        if var value {
            // Bound with its byte length: a NUL inside the text is kept, never cut short at it.
            value.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress {
                        sqlite3_bind_text(statement, index, base, Int32(chars.count), csqlite_transient())
                    } else {
                        sqlite3_bind_text(statement, index, "", 0, csqlite_transient())
                    }
                }
            }
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    package func bind(_ index: Int32, _ value: [UInt8]?) {
        guard let value else {
            sqlite3_bind_null(statement, index)
            return
        }
        _ = value.withUnsafeBytes { bytes in
            // An empty array may have no address; SQLite needs one to store a zero-length blob.
            sqlite3_bind_blob(
                statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                Int32(bytes.count), csqlite_transient())
        }
    }

    package func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    package func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    /// Steps once: true when a row is ready, false when done.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: status, message: database.lastMessage)
        }
    }

    package func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    package func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's UTF-8 bytes, valid only until the next step; nil for NULL.
    package func utf8(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column)))
    }

    package func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
    }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    package func double(_ column: Int32) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(statement, column)
    }

    /// The column as a double, 0 for NULL (SQLite's own conversion): one call where `double(_:) ?? 0` makes two.
    package func doubleOrZero(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }
}
