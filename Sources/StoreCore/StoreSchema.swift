/// The database layout and how older layouts are brought up to date. The version lives in `PRAGMA user_version`;
/// migration `n` takes a database from version `n` to `n + 1` inside one write transaction.
package enum StoreSchema {
    package static let currentVersion = 3

    /// `migrations[n]` turns version n into n + 1. Version 0 is a database with no tables yet.
    package static let migrations: [String] = [
        """
        CREATE TABLE meta (
            name TEXT PRIMARY KEY NOT NULL,
            value BLOB
        ) WITHOUT ROWID;
        CREATE TABLE sessions (
            key TEXT PRIMARY KEY NOT NULL,
            backend TEXT NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            email TEXT,
            phone TEXT,
            display_name TEXT,
            issuer TEXT NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL,
            refreshable INTEGER NOT NULL,
            scopes TEXT NOT NULL,
            auto_refresh INTEGER NOT NULL,
            refresh_expires_at REAL,
            secret BLOB NOT NULL,
            updated_at REAL NOT NULL
        );
        """,
        // Version 2: TOTP seeds of test accounts (`authdeck totp`), sealed like session secrets.
        """
        CREATE TABLE totp_seeds (
            user TEXT PRIMARY KEY NOT NULL,
            algorithm TEXT NOT NULL,
            digits INTEGER NOT NULL,
            period INTEGER NOT NULL,
            created_at REAL NOT NULL,
            secret BLOB NOT NULL
        ) WITHOUT ROWID;
        """,
        // Version 3: an index per sort order of the TUI's table (each ends in the key, so pages are keyset ranges).
        // Each index costs every write; the key's own index serves the key order.
        """
        CREATE INDEX sessions_by_expiry ON sessions (\(SessionOrder.expiry.sortExpression), key);
        CREATE INDEX sessions_by_provider ON sessions (provider, key);
        CREATE INDEX sessions_by_user ON sessions (\(SessionOrder.user.sortExpression), key);
        CREATE INDEX sessions_by_backend ON sessions (backend, key);
        """,
    ]

    /// The meta rows the store reads and writes.
    package enum Meta {
        package static let storeID = "store_id"
        package static let keySource = "key_source"
        package static let keyCheck = "key_check"
        package static let kdfSalt = "kdf_salt"
        package static let kdfParameters = "kdf_parameters"
        package static let wrappedKey = "wrapped_key"
        package static let selected = "selected"
    }

    /// The columns every session query reads, in the order `SessionStore.entry(from:)` expects.
    package static let sessionColumns = """
        key, backend, provider, subject, email, phone, display_name, issuer, created_at, expires_at, refreshable, \
        scopes, auto_refresh, refresh_expires_at
        """
}
