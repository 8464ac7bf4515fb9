import AuthCore
import AuthCrypto
import CSQLite
import Foundation

/// The encrypted session store: one SQLite database (WAL, one transaction per change, a busy timeout so several
/// authdeck processes share it) with clear-text metadata and AES-256-GCM secret blobs under a master key.
///
/// Every method is safe to call from any thread (calls are serialised), and every write returns only after its
/// COMMIT succeeded: what a caller was told is stored survives a crash of this process.
// Unchecked: every method holds `lock` while it uses `database` (a transaction spans many statements), and
// `database`, `masterKey`, `passphraseOverride` and `sessionReadStatement` are touched only under it.
public final class SessionStore: @unchecked Sendable {
    public let location: StoreLocation
    public let options: StoreOptions
    /// The store's random id: names its Secret Service item and its kernel keyring cache entry.
    public let storeID: String

    let database: SQLiteDatabase
    let lock = NSLock()
    /// The unlocked master key, once a call needed it.
    var masterKey: [UInt8]?
    /// The passphrase source of one `unlock(passphrase:)` call, in place of `options.passphrase`.
    var passphraseOverride: PassphraseUnlock?
    var passphraseSource: PassphraseUnlock { passphraseOverride ?? options.passphrase }
    /// `session`'s read, kept prepared once used (the agent asks for it per request).
    var sessionReadStatement: SQLiteStatement?

    private init(location: StoreLocation, options: StoreOptions, database: SQLiteDatabase, storeID: String) {
        self.location = location
        self.options = options
        self.database = database
        self.storeID = storeID
    }

    /// Opens the store in `location`, creating the folder and an empty database when `create` is true and there
    /// is none. With `create` false and no database, returns nil: a reader has nothing to read.
    public static func open(
        _ location: StoreLocation, options: StoreOptions = StoreOptions(),
        create: Bool = true
    ) throws(StoreError) -> SessionStore? {
        if !location.databaseExists {
            guard create else { return nil }
            try location.createDirectory()
            try location.enforcePermissions(warn: options.warn)
            try createDatabase(location, options: options)
        }
        try location.enforcePermissions(warn: options.warn)
        let path = location.databasePath
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        } catch {
            throw diagnose(error, path: path, database: nil)
        }
        try StoreFileHeader.check(database)
        // Whatever a commit changed, no `token` may answer from the rows it read before (TokenCache).
        database.observeCommits { TokenCache(databasePath: path)?.drop() }
        let storeID: String
        do {
            try database.execute("PRAGMA synchronous=FULL")
            // The filter's trigram index (schema 4) is kept by triggers: a REPLACE must fire the delete trigger.
            try database.execute("PRAGMA recursive_triggers=ON")
            var version = try readVersion(database)
            if version < StoreSchema.currentVersion {
                try database.writeTransaction { () throws(SQLiteError) in
                    // Another process may have migrated while this one waited for the lock.
                    version = try readVersion(database)
                    try migrate(database, from: version)
                }
                version = StoreSchema.currentVersion
            }
            guard version == StoreSchema.currentVersion else {
                throw StoreError.newerSchema(found: version, known: StoreSchema.currentVersion)
            }
            guard let id = try readMetaText(database, StoreSchema.Meta.storeID) else {
                throw StoreError.damagedDatabase(path: path, detail: "it has no store id")
            }
            storeID = id
        } catch let error as SQLiteError {
            throw diagnose(error, path: path, database: database)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage("\(error)")
        }
        return SessionStore(location: location, options: options, database: database, storeID: storeID)
    }

    /// Closes the database connection now rather than when the last reference goes; the store is unusable after.
    /// The last connection to close checkpoints the WAL into the main file.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        sessionReadStatement = nil
        database.close()
    }

    // MARK: - Creating and checking the file

    /// Builds a new database under a temporary name and links it into place, so no process ever sees a
    /// half-made store, and an empty `sessions.db` can only mean damage.
    private static func createDatabase(_ location: StoreLocation, options: StoreOptions) throws(StoreError) {
        let suffix: String
        do { suffix = Hex.encode(try SecureRandom.bytes(6)) } catch { throw .storage("\(error)") }
        let temporary = location.directory + "/.sessions.db.new-" + suffix
        let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storage("cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        defer {
            for name in [temporary, temporary + "-wal", temporary + "-shm", temporary + "-journal"] { unlink(name) }
        }
        do {
            let id = Hex.encode(try SecureRandom.bytes(16))
            let database = try SQLiteDatabase(
                path: temporary,
                busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
            try database.execute("PRAGMA journal_mode=WAL")
            try database.writeTransaction { () throws(SQLiteError) in
                try migrate(database, from: 0)
                try writeMeta(database, StoreSchema.Meta.storeID, text: id)
            }
            database.close()
        } catch let error as SQLiteError {
            throw .storage("cannot create the session database: \(error.message)")
        } catch {
            throw .storage("cannot create the session database: \(error)")
        }
        if link(temporary, location.databasePath) != 0 && errno != EEXIST {
            throw .storage("cannot create \(location.databasePath): \(String(cString: strerror(errno)))")
        }
    }

    /// Turns an SQLite failure into a StoreError; when it looks like damage, asks `PRAGMA quick_check` what is wrong
    /// (only now: checking every open would cost every `token` call).
    static func diagnose(_ error: SQLiteError, path: String, database: SQLiteDatabase?) -> StoreError {
        if error.isBusy {
            return .storage("the database stayed busy (another authdeck is writing): \(error.message)")
        }
        guard error.isDamage else { return .storage(error.message) }
        var detail = error.message
        if let database, let statement = try? database.prepare("PRAGMA quick_check(1)"),
            (try? statement.step()) == true, let answer = statement.string(0), answer != "ok"
        {
            detail = answer
        }
        return .damagedDatabase(path: path, detail: detail)
    }

    func fail(_ error: SQLiteError) -> StoreError {
        Self.diagnose(error, path: location.databasePath, database: database)
    }

    /// Whatever a store operation threw as the error it reports: SQLite's diagnosed, a StoreError as it is.
    func fail(any error: any Error) -> StoreError {
        switch error {
        case let error as SQLiteError: fail(error)
        case let error as StoreError: error
        default: .storage("\(error)")
        }
    }

    // MARK: - Schema

    private static func readVersion(_ database: SQLiteDatabase) throws(SQLiteError) -> Int {
        let statement = try database.prepare("PRAGMA user_version")
        guard try statement.step() else { return 0 }
        return Int(statement.int64(0))
    }

    private static func migrate(_ database: SQLiteDatabase, from version: Int) throws(SQLiteError) {
        guard version < StoreSchema.currentVersion else { return }
        for step in version..<StoreSchema.currentVersion {
            try database.execute(StoreSchema.migrations[step])
        }
        // user_version takes no bound parameter; the value is a compile-time constant.
        try database.execute("PRAGMA user_version = \(StoreSchema.currentVersion)")
    }

    // MARK: - Meta rows

    static func readMetaText(_ database: SQLiteDatabase, _ name: String) throws(SQLiteError) -> String? {
        let statement = try database.prepare("SELECT value FROM meta WHERE name = ?1")
        statement.bind(1, name)
        guard try statement.step() else { return nil }
        return statement.string(0)
    }

    static func readMetaBlob(_ database: SQLiteDatabase, _ name: String) throws(SQLiteError) -> [UInt8]? {
        let statement = try database.prepare("SELECT value FROM meta WHERE name = ?1")
        statement.bind(1, name)
        guard try statement.step() else { return nil }
        return statement.blob(0)
    }

    static func writeMeta(_ database: SQLiteDatabase, _ name: String, text: String?) throws(SQLiteError) {
        let statement = try database.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)")
        statement.bind(1, name)
        statement.bind(2, text)
        try statement.step()
    }

    static func writeMeta(_ database: SQLiteDatabase, _ name: String, blob: [UInt8]?) throws(SQLiteError) {
        let statement = try database.prepare("INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)")
        statement.bind(1, name)
        statement.bind(2, blob)
        try statement.step()
    }

    static func deleteMeta(_ database: SQLiteDatabase, _ name: String) throws(SQLiteError) {
        let statement = try database.prepare("DELETE FROM meta WHERE name = ?1")
        statement.bind(1, name)
        try statement.step()
    }
}
