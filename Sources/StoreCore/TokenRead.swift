import AuthBase

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck token`'s read, the one both binaries run: the lean `authdeck` answers with it alone, and
/// authdeck-full's `token` (and `exec`, `env`, `git-credential`) tries it before opening the store the long way.
///
/// It answers only the plain case: a current store whose master key is in the kernel-keyring cache and a token
/// that needs no refresh. Everything else returns nil, and the caller goes the long way (SessionStore), which
/// unlocks, migrates, repairs modes, refreshes and explains every error: no database, a wrong mode, another schema,
/// no such session, a key not cached or not this store's, a blob that does not open, a token to refresh or absent.
/// It changes nothing in the store: no warning, no repair, and its connection to the database is read-only. The one
/// thing it writes is the row it answered from, into the kernel keyring (`TokenCache`), where the next call finds it.
public enum TokenRead {
    /// The token of session `key` (nil: the selected one) at `now` (seconds since 1970), or nil to go the long way.
    /// - Parameters:
    ///   - idToken: the ID token instead of the bearer token (handed out without an expiry check).
    ///   - minValidSeconds: `--min-valid`: the bearer must stay valid this long (never less than the refresh window).
    public static func cached(
        _ key: String?, idToken: Bool = false, minValidSeconds: Int? = nil,
        location: StoreLocation, now: Double
    ) -> CachedToken? {
        guard location.permissionsAreRight else { return nil }
        // The row from the kernel keyring when a `token` before this one put it there (TokenCache), else from the
        // database; then added to the keyring found or made before that read, never to one made after it.
        let cache = TokenCache(databasePath: location.databasePath)
        var ring = cache?.ring()
        if let ring, let row = TokenCache.row(key, in: ring),
            let found = answer(row, idToken: idToken, minValidSeconds: minValidSeconds, now: now)
        {
            return found
        }
        let made = ring == nil
        if made { ring = cache?.ringMadeIfMissing() }
        guard let row = read(key, location: location),
            let found = answer(row, idToken: idToken, minValidSeconds: minValidSeconds, now: now)
        else {
            // Nothing to keep (a locked store, a token to refresh): a keyring made for it would only use up quota.
            if made, let ring { TokenCache.drop(ring) }
            return nil
        }
        if let ring { TokenCache.add(row, selected: key == nil, to: ring) }
        return found
    }

    /// The token `row` holds for the caller, or nil to go the long way: the master key not cached or not this
    /// store's, a blob that does not open, a bearer token to refresh first or none.
    private static func answer(
        _ row: TokenCache.Row, idToken: Bool, minValidSeconds: Int?, now: Double
    ) -> CachedToken? {
        guard let masterKey = KeyCache(storeID: row.storeID).read() else { return nil }
        if let check = row.keyCheck {
            guard KeyCheck.matches(check, masterKey: masterKey, storeID: row.storeID) else { return nil }
        }
        guard let plaintext = TokenCipher.openAESGCM(row.secret, key: masterKey, associatedData: Array(row.key.utf8)),
            let fields = SecretFields.tokens(plaintext)
        else { return nil }
        if idToken {
            return fields.idToken.map { CachedToken(key: row.key, token: $0, expiresAt: nil) }
        }
        guard let bearer = fields.access ?? fields.sessionJwt,
            !RefreshRule.needsRefresh(
                expiresAt: row.expiresAt, now: now,
                within: RefreshRule.window(
                    expiresAt: row.expiresAt, storedAt: row.storedAt, minValidSeconds: minValidSeconds))
        else {
            return nil
        }
        return CachedToken(key: row.key, token: bearer, expiresAt: row.expiresAt)
    }

    /// Now, in seconds since 1970.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// One indexed read of the session row with the meta rows it needs, on a read-only connection; nil on any failure
    /// or another schema.
    private static func read(_ key: String?, location: StoreLocation) -> TokenCache.Row? {
        guard location.databaseExists,
            let database = try? SQLiteDatabase(
                path: location.databasePath, readOnly: true, busyTimeoutMilliseconds: 5_000)
        else {
            return nil
        }
        defer { database.close() }
        do {
            let version = try database.prepare("PRAGMA user_version")
            guard try version.step(), version.int64(0) == Int64(StoreSchema.currentVersion) else { return nil }
            let statement = try database.prepare(
                """
                SELECT (SELECT value FROM meta WHERE name = ?2), (SELECT value FROM meta WHERE name = ?3), \
                key, expires_at, secret, updated_at FROM sessions \
                WHERE key = coalesce(?1, (SELECT value FROM meta WHERE name = ?4))
                """)
            statement.bind(1, key)
            statement.bind(2, StoreSchema.Meta.storeID)
            statement.bind(3, StoreSchema.Meta.keyCheck)
            statement.bind(4, StoreSchema.Meta.selected)
            guard try statement.step(), let storeID = statement.string(0), let found = statement.string(2),
                let secret = statement.blob(4)
            else { return nil }
            return TokenCache.Row(
                storeID: storeID, keyCheck: statement.blob(1), key: found, expiresAt: statement.double(3),
                storedAt: statement.double(5), secret: secret)
        } catch {
            return nil
        }
    }
}
