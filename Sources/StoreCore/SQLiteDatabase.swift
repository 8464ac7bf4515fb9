import CSQLite

/// One SQLite connection with prepared statements and bound parameters; no SQL is ever built from data.
/// Not thread-safe on its own: `SessionStore` serialises every call.
package final class SQLiteDatabase {
    package let path: String
    private var handle: OpaquePointer?

    /// Opens (never creates) the database at `path`. SQLite reads the file lazily, so a damaged file is
    /// reported by the first statement, not here.
    ///
    /// `readOnly` is for one short read that must not write (`TokenRead`): SQLite's read-only open with a read-only
    /// `-shm` (`readonly_shm`). Its read takes the same WAL read lock as any reader's, but when no other connection
    /// has the store open it reads the WAL itself instead of resetting and rebuilding the `-shm` file, which was a
    /// fifth of `token`'s time (a truncate and eight writes of that file, with their file-system journal entries).
    /// Without the `-wal` and `-shm` files it fails, and the caller goes the long way.
    package init(
        path: String, create: Bool = false, readOnly: Bool = false, busyTimeoutMilliseconds: Int32
    ) throws(SQLiteError) {
        self.path = path
        if Self.configuresOnFirstOpen {
            Self.configuresOnFirstOpen = false
            Self.configureForOneShortProcess()
        }
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        if readOnly { flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI }
        let status = sqlite3_open_v2(readOnly ? Self.readOnlyURI(path) : path, &handle, flags, nil)
        guard status == SQLITE_OK else {
            let error = SQLiteError(code: status, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        // A read-only connection never checkpoints nor deletes the WAL's files on close.
        if !readOnly { keepWriteAheadLogFiles() }
    }

    /// `path` as a `file:` URI asking for a read-only `-shm`; every byte but letters, digits and `/-._~` escaped.
    private static func readOnlyURI(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var uri = Array("file:".utf8)
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                uri.append(byte)
            default:
                uri += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: uri, as: UTF8.self) + "?readonly_shm=1"
    }

    /// The last connection to close keeps the `-wal` and `-shm` files instead of deleting them, and empties the
    /// WAL after its checkpoint (any `journal_size_limit` cuts it to zero bytes then). The next process to open the
    /// store (most often a `token` call) then opens the two files instead of creating, chowning and unlinking them
    /// again: a third of that call's file-system work. What stays behind holds no page: the WAL is empty and the
    /// `-shm` file only indexes it.
    private func keepWriteAheadLogFiles() {
        var persist: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        // 64 MiB: a limit so the WAL is emptied on close; while open, a bulk import's WAL is cut back to it.
        sqlite3_exec(handle, "PRAGMA journal_size_limit=67108864", nil, nil, nil)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Sets SQLite up for a process that opens one connection, reads and exits (the lean binary's `token` and
    /// `list --json`); called before the first connection (later it has no effect). Memory statistics off: they
    /// count every allocation under a global mutex, and nothing in authdeck reads them or sets a heap limit. No
    /// page-cache block up front: SQLite's default zeroes 20 pages (14 page faults) where `token` reads about six.
    package static func configureForOneShortProcess() {
        _ = csqlite_config_memstatus(0)
        _ = csqlite_config_no_initial_page_cache()
    }

    /// Set by the lean binary: `configureForOneShortProcess` runs just before its first connection opens, so a
    /// `token` answered from the keyring (`TokenCache`) never touches SQLite's code at all.
    nonisolated(unsafe) package static var configuresOnFirstOpen = false

    package func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs statements that take no parameters and return nothing worth reading.
    package func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text)
        }
    }

    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw SQLiteError(code: status, message: lastMessage) }
        return SQLiteStatement(statement, database: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so two writers never
    /// deadlock upgrading read locks, and `busy_timeout` covers the wait. Returns only after COMMIT succeeded.
    package func writeTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            committing?()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may leave the transaction open; roll it back so the connection stays usable.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Called just before `writeTransaction` commits and after every commit of this connection (SQLite's WAL hook,
    /// which runs once the commit is in the WAL and its locks are released). The store drops its `TokenCache` here.
    private var committing: (() -> Void)?

    /// Installs `changed` as the call before and after every commit (see `committing`). The WAL hook replaces
    /// SQLite's automatic checkpoint, so it checkpoints the same way: passively, once the WAL holds 1,000 pages.
    /// (`PRAGMA wal_autocheckpoint` would in turn replace this hook: nothing may run it on such a connection.)
    package func observeCommits(_ changed: @escaping () -> Void) {
        committing = changed
        sqlite3_wal_hook(
            handle,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteDatabase>.fromOpaque(context).takeUnretainedValue().committing?()
                if pages >= SQLiteDatabase.automaticCheckpointPages {
                    sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// SQLite's default `wal_autocheckpoint`.
    static let automaticCheckpointPages: Int32 = 1_000

    /// The main file's size and first `count` bytes, read through SQLite's own file handle. Opening and closing a
    /// second descriptor of the database would drop every POSIX lock this process holds on it (close(2) releases
    /// them all), and other processes would then delete the WAL under a live connection.
    package func fileHead(_ count: Int) throws(SQLiteError) -> (size: Int64, bytes: [UInt8]) {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let status = sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard status == SQLITE_OK, let file, let methods = file.pointee.pMethods,
            let size = methods.pointee.xFileSize, let read = methods.pointee.xRead
        else {
            throw SQLiteError(code: status == SQLITE_OK ? SQLITE_ERROR : status, message: "no file handle")
        }
        var length: sqlite3_int64 = 0
        let sized = size(file, &length)
        guard sized == SQLITE_OK else { throw SQLiteError(code: sized, message: "cannot read the file size") }
        var bytes = [UInt8](repeating: 0, count: count)
        let available = Int(min(Int64(count), max(0, length)))
        if available > 0 {
            let result = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(available), 0) }
            guard result == SQLITE_OK || result == Self.shortRead else {
                throw SQLiteError(code: result, message: "cannot read the file header")
            }
        }
        return (Int64(length), Array(bytes[0..<available]))
    }

    /// SQLITE_IOERR_SHORT_READ, an extended code Swift does not import: the file ended before the bytes asked for.
    private static let shortRead = SQLITE_IOERR | (2 << 8)

    /// Increases whenever another connection (any process) commits a change; for noticing others' writes.
    package func dataVersion() throws(SQLiteError) -> Int64 {
        let statement = try prepare("PRAGMA data_version")
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    package var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }
}
