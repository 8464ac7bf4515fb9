/// The database layout and how older layouts are brought up to date. The version lives in `PRAGMA user_version`;
/// migration `n` takes a database from version `n` to `n + 1` inside one write transaction.
package enum StoreSchema {
    package static let currentVersion = 4

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
        // Version 4: a trigram index over the text the TUI's `/` filter searches, so a filter word of three or more
        // characters reads the rows that hold its trigrams instead of every row. External content (a view over
        // `sessions`, so nothing is stored twice), no positions (`detail=none`: words are checked again by the
        // filter's LIKE on the row), kept in step by triggers; REPLACE fires the delete trigger because the store
        // turns `recursive_triggers` on. Each field ends in U+0001, the last in two, so every occurrence of one or
        // two characters starts a trigram: short words are looked up by trigram prefix.
        """
        CREATE VIEW session_search_text (rid, text) AS SELECT rowid, \(searchText("")) FROM sessions;
        CREATE VIRTUAL TABLE session_search USING fts5(
            text, content = 'session_search_text', content_rowid = 'rid', tokenize = 'trigram',
            detail = 'none', columnsize = 0
        );
        INSERT INTO session_search (session_search) VALUES ('rebuild');
        CREATE TRIGGER sessions_search_insert AFTER INSERT ON sessions BEGIN
            INSERT INTO session_search (rowid, text) VALUES (new.rowid, \(searchText("new.")));
        END;
        CREATE TRIGGER sessions_search_delete AFTER DELETE ON sessions BEGIN
            INSERT INTO session_search (session_search, rowid, text) VALUES ('delete', old.rowid, \(searchText("old.")));
        END;
        CREATE TRIGGER sessions_search_update
        AFTER UPDATE OF key, display_name, email, phone, subject, provider, backend ON sessions BEGIN
            INSERT INTO session_search (session_search, rowid, text) VALUES ('delete', old.rowid, \(searchText("old.")));
            INSERT INTO session_search (rowid, text) VALUES (new.rowid, \(searchText("new.")));
        END;
        """,
    ]

    /// The text the filter searches, as SQL over the row named by `row` ("", "new." or "old."): key, user label,
    /// email, phone, provider and backend, each ended by U+0001 (the last by two).
    package static func searchText(_ row: String) -> String {
        let fields = [
            "\(row)key", "coalesce(\(row)display_name, \(row)email, \(row)phone, \(row)subject)",
            "ifnull(\(row)email, '')", "ifnull(\(row)phone, '')", "\(row)provider", "\(row)backend",
        ]
        return fields.joined(separator: " || char(1) || ") + " || char(1, 1)"
    }

    /// The meta rows the store reads and writes.
    package enum Meta {
        package static let storeID = "store_id"
        package static let keySource = "key_source"
        package static let keyCheck = "key_check"
        package static let kdfSalt = "kdf_salt"
        package static let kdfParameters = "kdf_parameters"
        package static let wrappedKey = "wrapped_key"
        /// The `pass` entry that holds the master key, when the key source is `pass`.
        package static let passEntry = "pass_entry"
        package static let selected = "selected"
        /// When the store was last locked (`store lock`, the TUI's lock key): a write that every open TUI's watch
        /// sees, so each drops its key too.
        package static let lockedAt = "locked_at"
    }

    /// The columns every session query reads, in the order `SessionStore.entry(from:)` expects.
    package static let sessionColumns = """
        key, backend, provider, subject, email, phone, display_name, issuer, created_at, expires_at, refreshable, \
        scopes, auto_refresh, refresh_expires_at
        """

    /// `sessionColumns` and `updated_at`, when the session's tokens were last stored (sign-in, refresh; 0 for an
    /// import, whose issue time is unknown; a change of its auto-refresh flag keeps it): what the refresh window
    /// counts the token's lifetime from.
    package static let sessionReadColumns = sessionColumns + ", updated_at"
}
