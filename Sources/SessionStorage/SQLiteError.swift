import CSQLite

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
