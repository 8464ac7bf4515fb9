import AuthCore
import AuthCrypto
import Foundation
import SecretService
import TestSupport

@testable import SessionStorage

/// A store in a temporary folder, passphrase-wrapped, with no Secret Service and no kernel keyring cache, so unit
/// tests never touch anything outside their folder.
final class StoreFixture: @unchecked Sendable {
    let folder = TemporaryFolder(prefix: "authdeck-keyring-test")
    var path: String { folder.path }
    var location: StoreLocation { StoreLocation(directory: path + "/home") }
    var databasePath: String { location.databasePath }
    let warnings = WarningLog()

    /// Turns the closed store back into what schema `version` (2 or 3) left: no search index, view or triggers, and
    /// before 3 no indexes but the key's own; `user_version` says `version`.
    func downgrade(to version: Int) throws {
        let raw = try SQLiteDatabase(path: databasePath, busyTimeoutMilliseconds: 1000)
        defer { raw.close() }
        if version < 3 {
            for name in ["sessions_by_expiry", "sessions_by_provider", "sessions_by_user", "sessions_by_backend"] {
                try raw.execute("DROP INDEX \(name)")
            }
        }
        for trigger in ["sessions_search_insert", "sessions_search_delete", "sessions_search_update"] {
            try raw.execute("DROP TRIGGER \(trigger)")
        }
        try raw.execute("DROP TABLE session_search")
        try raw.execute("DROP VIEW session_search_text")
        try raw.execute("PRAGMA user_version = \(version)")
    }

    func options(
        passphrase: PassphraseUnlock = .fixed("unit passphrase"), cache: Bool = false,
        secretService: Bool = false
    ) -> StoreOptions {
        let log = warnings
        return StoreOptions(
            unlockForSeconds: 60, keyringTimeoutSeconds: 5,
            secretService: secretService ? SecretServiceKeyring(timeoutSeconds: 5) : nil,
            passphrase: passphrase, useKeyCache: cache, warn: { log.append($0) })
    }

    func open(
        passphrase: PassphraseUnlock = .fixed("unit passphrase"), cache: Bool = false,
        secretService: Bool = false
    ) throws(StoreError) -> SessionStore {
        guard
            let store = try SessionStore.open(
                location,
                options: options(
                    passphrase: passphrase, cache: cache,
                    secretService: secretService))
        else {
            throw .storage("open returned no store")
        }
        return store
    }

    var databaseBytes: [UInt8]? { FileManager.default.contents(atPath: databasePath).map { [UInt8]($0) } }

    /// The database file's size and SHA-256, for "byte for byte unchanged" checks that print short on failure.
    var databaseDigest: String? { databaseBytes.map { "\($0.count):" + Hex.encode(SHA256.hash($0)) } }

    static func digest(_ bytes: [UInt8]) -> String { "\(bytes.count):" + Hex.encode(SHA256.hash(bytes)) }

    static func session(
        _ key: String, access: String? = nil, refresh: String? = nil, jwt: String? = nil,
        expires: Date? = Date(timeIntervalSince1970: 4_000_000_000)
    ) -> Session {
        let record = SessionRecord(
            key: key, backend: "direct", provider: "google", subject: "sub-\(key)",
            email: "\(key)@example.com", issuer: "https://accounts.example.com",
            createdAt: Date(timeIntervalSince1970: 1_700_000_000), expiresAt: expires,
            refreshable: refresh != nil, scopes: ["openid", "email"])
        let secrets = SessionSecrets(accessToken: access ?? "AT-\(key)", refreshToken: refresh, sessionJwt: jwt)
        return Session(record: record, secrets: secrets)
    }
}

/// Warnings a store reported, collected across threads.
final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func append(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}

extension SessionStore {
    /// The keys of every session `query` matches, read forward in pages of `size`, each from the last row of the
    /// page before.
    func keys(_ query: SessionQuery, forwardInPagesOf size: Int) throws -> [String] {
        var keys: [String] = []
        while true {
            let rows = try page(query, after: keys.last, limit: size).map(\.record.key)
            keys += rows
            if rows.count < size { return keys }
        }
    }

    /// The same keys read backward in pages of `size`, each from the first row of the page after.
    func keys(_ query: SessionQuery, backwardInPagesOf size: Int) throws -> [String] {
        var keys: [String] = []
        while true {
            let rows = try page(query, before: keys.first, limit: size).map(\.record.key)
            keys = rows + keys
            if rows.count < size { return keys }
        }
    }
}
