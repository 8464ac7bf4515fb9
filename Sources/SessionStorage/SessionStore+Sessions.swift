import AuthCore
import AuthCrypto
import Foundation

/// Sessions: listing and reading need no key (metadata is clear text); secrets and writes do.
extension SessionStore {
    // MARK: - Reading metadata

    /// Every session, ordered by key.
    public func entries() throws(StoreError) -> [StoreEntry] {
        lock.lock()
        defer { lock.unlock() }
        do {
            let selected = try Self.readMetaText(database, StoreSchema.Meta.selected)
            let statement = try database.prepare("SELECT \(StoreSchema.sessionReadColumns) FROM sessions ORDER BY key")
            var result: [StoreEntry] = []
            while try statement.step() {
                result.append(Self.entry(from: statement, selected: selected))
            }
            return result
        } catch {
            throw fail(error)
        }
    }

    /// `entries()` as `list --json` prints it: `ListJSON`, the one writer both binaries use, straight from the rows
    /// (at 100,000 sessions, building a record per row first would cost more than the budget allows).
    package func listJSON(now: Date) throws(StoreError) -> JSONBuffer {
        lock.lock()
        defer { lock.unlock() }
        do { return try ListJSON.render(database, now: now.timeIntervalSince1970) } catch { throw fail(error) }
    }

    /// A number that changes whenever another connection (another process, or another store object) commits a
    /// change; a watcher compares it to see whether to look again.
    public func changeCounter() throws(StoreError) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        do { return try database.dataVersion() } catch { throw fail(error) }
    }

    /// One session's metadata.
    public func entry(_ key: String) throws(StoreError) -> StoreEntry {
        lock.lock()
        defer { lock.unlock() }
        do {
            let selected = try Self.readMetaText(database, StoreSchema.Meta.selected)
            let statement = try database.prepare(
                "SELECT \(StoreSchema.sessionReadColumns) FROM sessions WHERE key = ?1")
            statement.bind(1, key)
            guard try statement.step() else { throw StoreError.noSuchSession(key) }
            return Self.entry(from: statement, selected: selected)
        } catch {
            throw fail(any: error)
        }
    }

    /// The selected session's key, if one is selected.
    public func selectedKey() throws(StoreError) -> String? {
        lock.lock()
        defer { lock.unlock() }
        do { return try Self.readMetaText(database, StoreSchema.Meta.selected) } catch { throw fail(error) }
    }

    /// The key a command should act on: the one it was given, else the selected one.
    public func resolveKey(_ key: String?) throws(StoreError) -> String {
        if let key { return key }
        guard let selected = try selectedKey() else { throw .noSessionSelected }
        return selected
    }

    // MARK: - Reading secrets

    /// The whole session, secrets decrypted; `key` nil means the selected session. This is `authdeck token`'s
    /// path: one indexed read, the key from the kernel keyring when cached, one AES-GCM open. The lock is held for
    /// the read only (its statement kept prepared, so no SQL is parsed per call); the blob is opened after.
    public func session(_ key: String? = nil) throws(StoreError) -> Session {
        let found: (entry: StoreEntry, blob: [UInt8], masterKey: [UInt8])
        lock.lock()
        do {
            let statement = try sessionRead()
            // Reset before the lock is let go: a statement left on its row would hold its read transaction open.
            defer { statement.reset() }
            statement.bind(1, key)
            guard try statement.step() else {
                throw key.map { StoreError.noSuchSession($0) } ?? StoreError.noSessionSelected
            }
            let selected = statement.string(16)
            let entry = Self.entry(from: statement, selected: selected)
            found = (entry, statement.blob(15) ?? [], try unlockedKey())
        } catch {
            lock.unlock()
            throw fail(any: error)
        }
        lock.unlock()
        let secrets = try decrypt(found.blob, key: found.entry.record.key, masterKey: found.masterKey)
        return Session(record: found.entry.record, secrets: secrets)
    }

    /// `session`'s statement, prepared on its first use and kept (the caller holds `lock`, and resets it after).
    private func sessionRead() throws(SQLiteError) -> SQLiteStatement {
        if let sessionReadStatement { return sessionReadStatement }
        let statement = try database.prepare(
            """
            SELECT \(StoreSchema.sessionReadColumns), secret, (SELECT value FROM meta WHERE name = 'selected') \
            FROM sessions WHERE key = coalesce(?1, (SELECT value FROM meta WHERE name = 'selected'))
            """)
        sessionReadStatement = statement
        return statement
    }

    /// Every session with its secrets (for export). Fails on the first damaged one, naming it.
    public func allSessions() throws(StoreError) -> [Session] {
        var result: [Session] = []
        for entry in try entries() {
            result.append(try session(entry.record.key))
        }
        return result
    }

    /// Opens session `key`'s blob under `masterKey` (checked when the store was unlocked, so a blob that does not
    /// open is damage). Needs no lock: it touches neither the database nor the store's state.
    private func decrypt(_ blob: [UInt8], key: String, masterKey: [UInt8]) throws(StoreError) -> SessionSecrets {
        guard let plaintext = try? AESGCM.open(blob, key: masterKey, associatedData: Array(key.utf8)),
            let secrets = SecretsCodec.decode(plaintext)
        else { throw StoreError.damagedSession(key) }
        return secrets
    }

    /// Opens a blob sealed under the master key; `damaged` is the error when it does not open. The key was checked
    /// against the store's key-check value when it was unlocked, so a blob that does not open is damage.
    func openSealed(_ blob: [UInt8], associatedData: [UInt8], damaged: StoreError) throws(StoreError) -> [UInt8] {
        let masterKey = try unlockedKey()
        do {
            return try AESGCM.open(blob, key: masterKey, associatedData: associatedData)
        } catch {
            throw damaged
        }
    }

    // MARK: - Writing

    /// Stores `session` and returns its record only after the write is committed (SPEC section 2, rule 5).
    /// A taken key is `keyTaken` unless `replace`. The first session stored when none is selected becomes selected.
    @discardableResult
    public func persist(_ session: Session, replace: Bool) throws(StoreError) -> SessionRecord {
        try persist([session], replace: replace)[0]
    }

    /// Stores a freshly signed-in session whose key authdeck made up (`provider-user`). The key never changes
    /// whose session it names: the session replaces an existing one only for the same backend, issuer and subject
    /// (a re-login); otherwise it is stored under the first free `key-2`, `key-3`, … and the returned record
    /// says which. The selection is left as it was (unless none was selected).
    @discardableResult
    public func persistGenerated(_ session: Session) throws(StoreError) -> SessionRecord {
        lock.lock()
        defer { lock.unlock() }
        try Self.checkKey(session.record.key)
        let sealer = try self.sealer()
        let base = session.record.key
        do {
            return try database.writeTransaction { () throws(SQLiteError) -> SessionRecord in
                let identity = try database.prepare("SELECT backend, issuer, subject FROM sessions WHERE key = ?1")
                for number in 1...1_000 {
                    let key = number == 1 ? base : "\(base)-\(number)"
                    identity.reset()
                    identity.bind(1, key)
                    if try identity.step() {
                        let record = session.record
                        let same =
                            identity.string(0) == record.backend && identity.string(1) == record.issuer
                            && identity.string(2) == record.subject
                        guard same else { continue }
                    }
                    var stored = session
                    stored.record.key = key
                    try insert([stored], sealer: sealer)
                    return stored.record
                }
                throw SQLiteError(code: -2, message: "no free key after \(base)-1000")
            }
        } catch {
            if error.code == -3 { throw .storage(error.message) }
            if error.code == -2 { throw .keyTaken(base) }
            throw fail(error)
        }
    }

    /// What storing a session under a key that is taken does.
    public enum KeyConflict: Sendable {
        /// Fail with `keyTaken`, storing nothing.
        case refuse
        /// Overwrite the session with that key.
        case replace
        /// Leave the existing session and store the others (`store import --skip-existing`).
        case skip
    }

    /// Stores several sessions in one transaction: all of them or, on any error, none.
    @discardableResult
    public func persist(_ sessions: [Session], replace: Bool) throws(StoreError) -> [SessionRecord] {
        try persist(sessions, onConflict: replace ? .replace : .refuse)
    }

    /// Stores several sessions in one transaction and returns the records stored (with `.skip`, those whose keys
    /// were free).
    @discardableResult
    public func persist(_ sessions: [Session], onConflict: KeyConflict) throws(StoreError) -> [SessionRecord] {
        lock.lock()
        defer { lock.unlock() }
        for session in sessions { try Self.checkKey(session.record.key) }
        let sealer = try self.sealer()
        let bulk = sessions.count >= Self.bulkRows
        do {
            // A bulk write keeps its pages in memory: with SQLite's default 2 MB cache, 100,000 rows spilled pages
            // to the WAL mid-transaction and read them back, writing about four times the database's size.
            var previousCache: Int64?
            if bulk {
                let cacheSize = try database.prepare("PRAGMA cache_size")
                if try cacheSize.step() { previousCache = cacheSize.int64(0) }
                try database.execute("PRAGMA cache_size = -\(Self.bulkCacheKiB)")
            }
            defer { if let previousCache { try? database.execute("PRAGMA cache_size = \(previousCache)") } }
            return try database.writeTransaction { () throws(SQLiteError) -> [SessionRecord] in
                let empty = try !database.prepare("SELECT 1 FROM sessions LIMIT 1").step()
                var stored = sessions
                // An empty table has no key to conflict with (keys repeated within `sessions` replace, as always).
                if onConflict != .replace && !empty {
                    let exists = try database.prepare("SELECT 1 FROM sessions WHERE key = ?1")
                    stored = []
                    for session in sessions {
                        exists.reset()
                        exists.bind(1, session.record.key)
                        if try exists.step() {
                            if onConflict == .skip { continue }
                            throw SQLiteError(code: -1, message: session.record.key)
                        }
                        stored.append(session)
                    }
                }
                // Into an empty table, the indexes and the filter's search index are built once after the rows,
                // in the same transaction, rather than row by row (SessionStore+SearchIndex says why).
                let rebuilt = empty && bulk ? try dropSessionIndexes() : []
                let search = empty && bulk ? try suspendSearchIndex() : nil
                try insert(stored, sealer: sealer)
                for definition in rebuilt { try database.execute(definition) }
                if let search { try restoreSearchIndex(search) }
                return stored.map(\.record)
            }
        } catch {
            // Code -1 is this function's own signal for a taken key, raised inside the transaction.
            if error.code == -1 { throw .keyTaken(error.message) }
            if error.code == -3 { throw .storage(error.message) }
            throw fail(error)
        }
    }

    /// From this many rows on, `persist` writes as a bulk load (`store import`).
    static let bulkRows = 1_000

    /// The page cache a bulk write may use, in KiB (SQLite grows it only as pages are needed).
    static let bulkCacheKiB = 65_536

    /// Drops the secondary indexes of `sessions` inside the caller's transaction and returns their definitions,
    /// read from the schema, to be run again after the rows are in: filling an empty table and then building each
    /// index by one sort is cheaper than keeping four indexes ordered row by row.
    private func dropSessionIndexes() throws(SQLiteError) -> [String] {
        let query = try database.prepare(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'sessions' AND sql IS NOT NULL")
        var found: [(name: String, sql: String)] = []
        while try query.step() {
            if let name = query.string(0), let sql = query.string(1) { found.append((name, sql)) }
        }
        for index in found {
            try database.execute("DROP INDEX \"\(index.name.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
        return found.map(\.sql)
    }

    /// Rewrites what a refresh changes in a session that exists: never brings back one that another process removed
    /// meanwhile, and keeps its key, identity, creation time, selection and auto-refresh flag.
    public func update(_ session: Session) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        let masterKey = try unlockedKey()
        let record = session.record
        guard let blob = Self.sealed(session, masterKey: masterKey) else { throw .storage("cannot encrypt") }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                let statement = try database.prepare(
                    """
                    UPDATE sessions SET email = ?2, phone = ?3, display_name = ?4, expires_at = ?5, refreshable = ?6, \
                    scopes = ?7, refresh_expires_at = ?8, secret = ?9, updated_at = ?10 WHERE key = ?1
                    """)
                statement.bind(1, record.key)
                statement.bind(2, record.email)
                statement.bind(3, record.phone)
                statement.bind(4, record.displayName)
                statement.bind(5, record.expiresAt?.timeIntervalSince1970)
                statement.bind(6, Int64(record.refreshable ? 1 : 0))
                statement.bind(7, record.scopes.joined(separator: " "))
                statement.bind(8, session.secrets.refreshExpiresAt?.timeIntervalSince1970)
                statement.bind(9, blob)
                statement.bind(10, Date().timeIntervalSince1970)
                try statement.step()
                if database.changes == 0 { throw SQLiteError(code: -1, message: record.key) }
            }
        } catch {
            if error.code == -1 { throw .noSuchSession(error.message) }
            if error.code == -3 { throw .storage(error.message) }
            throw fail(error)
        }
    }

    /// Seals and writes rows inside the caller's transaction; the first session becomes selected when none is.
    /// Every step's error propagates: a row that did not go in is never reported as stored.
    private func insert(_ sessions: [Session], sealer: AESGCMSealer) throws(SQLiteError) {
        let statement = try database.prepare(
            """
            INSERT OR REPLACE INTO sessions (\(StoreSchema.sessionColumns), secret, updated_at) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            """)
        let now = Date().timeIntervalSince1970
        for session in sessions {
            let record = session.record
            let blob: [UInt8]
            do {
                blob = try sealer.seal(
                    SecretsCodec.encode(session.secrets), associatedData: Array(record.key.utf8))
            } catch {
                throw SQLiteError(code: -3, message: "cannot encrypt")
            }
            statement.reset()
            statement.bind(1, record.key)
            statement.bind(2, record.backend)
            statement.bind(3, record.provider)
            statement.bind(4, record.subject)
            statement.bind(5, record.email)
            statement.bind(6, record.phone)
            statement.bind(7, record.displayName)
            statement.bind(8, record.issuer)
            statement.bind(9, record.createdAt.timeIntervalSince1970)
            statement.bind(10, record.expiresAt?.timeIntervalSince1970)
            statement.bind(11, Int64(record.refreshable ? 1 : 0))
            statement.bind(12, record.scopes.joined(separator: " "))
            statement.bind(13, Int64(record.autoRefresh ? 1 : 0))
            statement.bind(14, session.secrets.refreshExpiresAt?.timeIntervalSince1970)
            statement.bind(15, blob)
            statement.bind(16, record.storedAt?.timeIntervalSince1970 ?? now)
            try statement.step()
        }
        if let first = sessions.first, try Self.selectedIsMissing(database) {
            try Self.writeMeta(database, StoreSchema.Meta.selected, text: first.record.key)
        }
    }

    /// A sealer under the unlocked master key, for the rows of one write.
    private func sealer() throws(StoreError) -> AESGCMSealer {
        let masterKey = try unlockedKey()
        do { return try AESGCMSealer(key: masterKey) } catch { throw .storage("cannot encrypt") }
    }

    /// The session's secrets sealed under the master key, with the session key as associated data: a blob moved onto
    /// another row does not open there. Nil only when the cipher fails.
    private static func sealed(_ session: Session, masterKey: [UInt8]) -> [UInt8]? {
        try? AESGCM.seal(
            SecretsCodec.encode(session.secrets), key: masterKey,
            associatedData: Array(session.record.key.utf8))
    }

    /// The session-key rule (`SessionKeyRule`), enforced again here so no entry point can store a key it broke.
    static func checkKey(_ key: String) throws(StoreError) {
        if let problem = SessionKeyRule.problem(key) { throw .invalidKey(problem) }
    }

    /// Makes `key` the selected session.
    public func select(_ key: String) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                let exists = try database.prepare("SELECT 1 FROM sessions WHERE key = ?1")
                exists.bind(1, key)
                guard try exists.step() else { throw SQLiteError(code: -1, message: key) }
                try Self.writeMeta(database, StoreSchema.Meta.selected, text: key)
            }
        } catch {
            if error.code == -1 { throw .noSuchSession(key) }
            throw fail(error)
        }
    }

    /// Leaves no session selected (the TUI's undo of a `u` when there was no default before).
    public func clearSelection() throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                try Self.deleteMeta(database, StoreSchema.Meta.selected)
            }
        } catch {
            throw fail(error)
        }
    }

    /// Turns background refresh on or off for one session.
    public func setAutoRefresh(_ key: String, _ enabled: Bool) throws(StoreError) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try database.writeTransaction { () throws(SQLiteError) in
                // updated_at stays: it is when the tokens were stored, which the refresh window counts from.
                let update = try database.prepare("UPDATE sessions SET auto_refresh = ?2 WHERE key = ?1")
                update.bind(1, key)
                update.bind(2, Int64(enabled ? 1 : 0))
                try update.step()
                if database.changes == 0 { throw SQLiteError(code: -1, message: key) }
            }
        } catch {
            if error.code == -1 { throw .noSuchSession(key) }
            throw fail(error)
        }
    }

    /// Removes one session; the selection is cleared when it pointed at it.
    public func remove(_ key: String) throws(StoreError) {
        if try remove([key]) == 0 { throw .noSuchSession(key) }
    }

    /// Removes the sessions named (those still there); returns how many went. One transaction: all or none.
    @discardableResult
    public func remove(_ keys: [String]) throws(StoreError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try database.writeTransaction { () throws(SQLiteError) -> Int in
                let delete = try database.prepare("DELETE FROM sessions WHERE key = ?1")
                var removed = 0
                for key in keys {
                    delete.reset()
                    delete.bind(1, key)
                    try delete.step()
                    removed += database.changes
                }
                if try Self.selectedIsMissing(database) { try Self.deleteMeta(database, StoreSchema.Meta.selected) }
                return removed
            }
        } catch {
            throw fail(error)
        }
    }

    // MARK: - Rows

    private static func selectedIsMissing(_ database: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let statement = try database.prepare(
            """
            SELECT 1 FROM meta JOIN sessions ON sessions.key = meta.value WHERE meta.name = 'selected'
            """)
        return try !statement.step()
    }

    static func entry(from statement: SQLiteStatement, selected: String?) -> StoreEntry {
        let key = statement.string(0) ?? ""
        let scopes = statement.string(11) ?? ""
        let record = SessionRecord(
            key: key, backend: statement.string(1) ?? "", provider: statement.string(2) ?? "",
            subject: statement.string(3) ?? "", email: statement.string(4), phone: statement.string(5),
            displayName: statement.string(6), issuer: statement.string(7) ?? "",
            createdAt: Date(timeIntervalSince1970: statement.double(8) ?? 0),
            expiresAt: statement.double(9).map { Date(timeIntervalSince1970: $0) },
            refreshable: statement.int64(10) != 0,
            scopes: scopes.split(separator: " ").map(String.init),
            autoRefresh: statement.int64(12) != 0,
            storedAt: statement.double(14).flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0) : nil })
        return StoreEntry(
            record: record, isSelected: key == selected,
            refreshExpiresAt: statement.double(13).map { Date(timeIntervalSince1970: $0) })
    }
}
