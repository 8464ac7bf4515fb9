import AuthBase

/// `list --json` as both binaries print it (SPEC section 5): every session's metadata ordered by key, one
/// `ListJSONObject` a line, straight from the rows' bytes into a buffer, already as the command line prints text
/// (`TerminalText.sanitizedLines`), so the buffer is written as it is. Only the metadata columns are read, never a
/// sealed secret, so no key is needed: listing works on a locked store.
///
/// The lean `authdeck` serves `list --json` through `write` alone, a chunk at a time; authdeck-full opens the store
/// the long way (repairs, migrations, errors explained) and renders the whole listing with `render`.
package enum ListJSON {
    /// How a listing written as it was made ended.
    package enum Ending: Equatable {
        case complete
        /// SQLite failed after the first part was written: the output is cut short, and this says why.
        case cutShort(String)
    }

    /// Writes the answer at `now` (seconds since 1970) to `descriptor` as it is made, a chunk at a time (at 100,000
    /// sessions, 30 MB never sit in memory), for a store that needs nothing but reading. Nil, with nothing written,
    /// leaves authdeck-full to answer (and explain): a folder or file with the wrong mode (the store would repair it
    /// and warn), a damaged file, another schema (it would migrate, or refuse a newer one), or any SQLite error
    /// before the first chunk. No store at all lists nothing, as authdeck-full does. It changes nothing (only
    /// SQLite's WAL housekeeping, as for any reader). `before` runs once, before the first byte is written (so always, unless nil is returned).
    package static func write(
        location: StoreLocation, now: Double, to descriptor: Int32, before: @escaping () -> Void = {}
    ) -> Ending? {
        guard location.databaseExists else {
            guard let empty = try? render(rows: nil, selected: nil, now: now, chunk: nil) else { return nil }
            before()
            empty.write(to: descriptor)
            return .complete
        }
        guard location.permissionsAreRight,
            let database = try? SQLiteDatabase(path: location.databasePath, busyTimeoutMilliseconds: 5_000)
        else { return nil }
        defer { database.close() }
        do {
            try StoreFileHeader.check(database)
        } catch {
            return nil
        }
        var started = false
        do {
            let version = try database.prepare("PRAGMA user_version")
            guard try version.step(), version.int64(0) == Int64(StoreSchema.currentVersion) else { return nil }
            let storeID = try database.prepare("SELECT value FROM meta WHERE name = ?1")
            storeID.bind(1, StoreSchema.Meta.storeID)
            guard try storeID.step(), storeID.string(0) != nil else { return nil }
            let rest = try render(database, now: now) { chunk in
                if !started { before() }
                started = true
                chunk.write(to: descriptor)
            }
            if !started { before() }
            rest.write(to: descriptor)
            return .complete
        } catch {
            return started ? .cutShort(error.message) : nil
        }
    }

    /// The answer at `now` (seconds since 1970) from an open store's connection: whole, or (given `chunk`) handed
    /// to `chunk` a part at a time as it grows past `chunkBytes`, and what is left returned.
    package static func render(
        _ database: SQLiteDatabase, now: Double, chunk: ((JSONBuffer) -> Void)? = nil
    ) throws(SQLiteError) -> JSONBuffer {
        let meta = try database.prepare("SELECT value FROM meta WHERE name = ?1")
        meta.bind(1, StoreSchema.Meta.selected)
        let selected = try meta.step() ? meta.string(0) : nil
        let rows = try database.prepare(
            """
            SELECT key, backend, provider, subject, email, phone, issuer, created_at, expires_at, refreshable \
            FROM sessions ORDER BY key
            """)
        return try render(rows: rows, selected: selected, now: now, chunk: chunk)
    }

    /// How much of a listing is made before a part of it is handed on.
    static let chunkBytes = 1 << 20

    /// `[`, then each row on its own line as `  {…}` with a comma after all but the last, then `]`; `[]` when
    /// there are no rows.
    private static func render(
        rows: SQLiteStatement?, selected: String?, now: Double, chunk: ((JSONBuffer) -> Void)?
    ) throws(SQLiteError) -> JSONBuffer {
        let selected = selected.map { Array($0.utf8) }
        // Written in chunks, one block is reused: no growing copies, no fresh pages to clear past the first chunk.
        var buffer = JSONBuffer(capacity: chunk == nil ? 1 << 16 : chunkBytes + (1 << 16))
        buffer.raw("[")
        var first = true
        while let rows, try rows.step() {
            buffer.raw(first ? "\n  {" : ",\n  {")
            first = false
            let key = rows.utf8(0)
            var isSelected = false
            if let selected, let key, selected.count == key.count {
                isSelected = selected.withUnsafeBufferPointer { $0.elementsEqual(key) }
            }
            ListJSONObject(
                key: .bytes(key), backend: .bytes(rows.utf8(1)), provider: .bytes(rows.utf8(2)),
                subject: .bytes(rows.utf8(3)), email: .bytes(rows.utf8(4)), phone: .bytes(rows.utf8(5)),
                issuer: .bytes(rows.utf8(6)), createdAt: rows.doubleOrZero(7), expiresAt: rows.double(8),
                refreshable: rows.int64(9) != 0, selected: isSelected
            )
            .appendFields(now: now, to: &buffer)
            buffer.raw("}")
            if let chunk, buffer.count >= chunkBytes {
                chunk(buffer)
                buffer.removeLast(from: 0)
            }
        }
        buffer.raw(first ? "]\n" : "\n]\n")
        return buffer
    }
}
