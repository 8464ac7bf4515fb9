import CSQLite

/// What SQLite said went wrong: its (extended) result code and message.
package struct SQLiteError: Error {
    package let code: Int32
    package let message: String

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code, without the extended bits.
    package var primary: Int32 { code & 0xff }

    /// The file is not a database or its pages do not add up.
    package var isDamage: Bool { primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB }

    package var isBusy: Bool { primary == SQLITE_BUSY || primary == SQLITE_LOCKED }
}
