import AuthCore
import AuthCrypto
import Foundation
import TestSupport
import Testing

@testable import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The store shared between processes, checked with Debian's `sqlite3` program as the other process: a second
/// connection in this process must not cost the first its locks, rows move only with their key, and every failed
/// statement is an error.
@Suite struct StoreSharingTests {
    let fixture = StoreFixture()

    /// Runs `sqlite3 DB SQL` as another process and returns its standard output; a failure fails the test.
    @discardableResult
    func sqlite3(_ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [fixture.databasePath, sql]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "sqlite3 failed: \(problem)")
        return text
    }

    /// `session` keeps its statement prepared between calls (the agent reads a session per request): each call
    /// still reads what another connection committed since the last one, whether it replaced, removed or
    /// re-selected the session, and a failed read leaves the statement usable. A statement left on its row would
    /// hold its read transaction (and the snapshot it saw) open, or fail the next call's bind.
    @Test func aKeptSessionReadSeesEveryOtherConnectionsWrite() throws {
        let reader = try fixture.open()
        let writer = try fixture.open()
        try writer.persist([StoreFixture.session("a"), StoreFixture.session("b")], replace: false)
        for _ in 0..<3 { #expect(try reader.session("a").secrets.accessToken == "AT-a") }
        try writer.persist(StoreFixture.session("a", access: "AT-a-replaced"), replace: true)
        #expect(try reader.session("a").secrets.accessToken == "AT-a-replaced")
        #expect(try reader.session().record.key == "a", "the first session stored is selected")
        try writer.select("b")
        #expect(try reader.session().record.key == "b")
        try writer.remove("a")
        #expect(throws: StoreError.noSuchSession("a")) { try reader.session("a") }
        #expect(try reader.session("b").secrets.accessToken == "AT-b")
        try writer.persist(StoreFixture.session("a", access: "AT-a-again"), replace: false)
        #expect(try reader.session("a").secrets.accessToken == "AT-a-again")
    }

    /// The last connection to close leaves the `-wal` and `-shm` files for the next process to open (a `token` call
    /// then neither creates nor deletes them), private, and the WAL emptied: no page of the store stays behind in it,
    /// and SQLite's own program reads the store as whole.
    @Test func theLastCloseKeepsTheWALFilesButEmptiesTheWAL() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("a"), replace: false)
        var info = stat()
        #expect(stat(fixture.databasePath + "-wal", &info) == 0 && info.st_size > 0, "the write is in the WAL")
        store.close()
        for suffix in ["-wal", "-shm"] {
            #expect(stat(fixture.databasePath + suffix, &info) == 0, "\(suffix) was deleted")
            #expect(info.st_mode & 0o777 == 0o600)
        }
        #expect(
            stat(fixture.databasePath + "-wal", &info) == 0 && info.st_size == 0, "the WAL kept \(info.st_size) bytes")
        // Debian's sqlite3, another process, finds the write in the database file and nothing amiss; as the last
        // to close, it deletes the two files (it does not keep them), and the store makes them again.
        #expect(try sqlite3("PRAGMA integrity_check; SELECT key FROM sessions;") == "ok\na\n")
        #expect(access(fixture.databasePath + "-wal", F_OK) != 0)
        let reopened = try fixture.open()
        #expect(try reopened.session("a").record.key == "a")
        reopened.close()
        #expect(access(fixture.databasePath + "-wal", F_OK) == 0)
    }

    /// The TUI's old unlock opened the store a second time, and the header check opened and closed its own
    /// descriptor of sessions.db: POSIX locks of the whole process went with that close, so the next process to
    /// close its connection thought it was the last, checkpointed and deleted the WAL and -shm under the live
    /// connection, whose later writes no other process ever saw.
    @Test func aSecondOpenInThisProcessKeepsTheFirstConnectionVisible() throws {
        let first = try fixture.open()
        try first.persist(StoreFixture.session("before"), replace: false)
        _ = try first.entries()
        let second = try fixture.open()
        _ = try second.entries()
        second.close()
        // Another process opens, reads and closes. Only a connection that believes it is the last deletes the WAL.
        #expect(try sqlite3("SELECT count(*) FROM sessions;") == "1\n")
        #expect(access(fixture.databasePath + "-wal", F_OK) == 0, "the WAL was deleted under a live connection")
        try first.persist(StoreFixture.session("after"), replace: false)
        #expect(try sqlite3("SELECT key FROM sessions ORDER BY key;") == "after\nbefore\n")
        #expect(try sqlite3("PRAGMA integrity_check;") == "ok\n")
        first.close()
        #expect(try sqlite3("SELECT count(*) FROM sessions;") == "2\n")
    }

    /// Unlocking with a typed passphrase happens on the connection that is open, not on a new one.
    @Test func unlockingWithAPassphraseUsesTheOpenConnection() throws {
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        let store = try fixture.open(passphrase: .unavailable)
        #expect(throws: StoreError.self) { try store.session("a") }
        #expect(throws: StoreError.wrongPassphrase) { try store.unlock(passphrase: .fixed("not it")) }
        try store.unlock(passphrase: .fixed("unit passphrase"))
        #expect(try store.session("a").secrets.accessToken == "AT-a")
    }

    /// The session key is the associated data of its blob: a blob copied onto another row does not open there.
    @Test func aSecretBlobMovedToAnotherRowIsRefused() throws {
        let store = try fixture.open()
        try store.persist([StoreFixture.session("alice"), StoreFixture.session("bob")], replace: false)
        try sqlite3("UPDATE sessions SET secret = (SELECT secret FROM sessions WHERE key = 'alice') WHERE key = 'bob';")
        #expect(throws: StoreError.damagedSession("bob")) { try store.session("bob") }
        #expect(try store.session("alice").secrets.accessToken == "AT-alice")
    }

    /// A statement that fails inside the transaction (here a trigger refusing the row) is an error, and nothing
    /// is reported as stored; before, only a failed COMMIT was noticed.
    @Test func aFailedInsertOrUpdateStepIsAnErrorNotAStoredSession() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("kept"), replace: false)
        try sqlite3(
            """
            CREATE TRIGGER refuse_insert BEFORE INSERT ON sessions WHEN NEW.key = 'refused' \
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
            CREATE TRIGGER refuse_update BEFORE UPDATE ON sessions WHEN NEW.key = 'kept' \
            BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
            """)
        #expect(throws: StoreError.self) { try store.persist(StoreFixture.session("refused"), replace: false) }
        #expect(throws: StoreError.self) { try store.persistGenerated(StoreFixture.session("refused")) }
        #expect(throws: StoreError.self) { try store.setAutoRefresh("kept", true) }
        var refreshed = StoreFixture.session("kept")
        refreshed.secrets.accessToken = "AT-new"
        #expect(throws: StoreError.self) { try store.update(refreshed) }
        #expect(try store.entries().map(\.record.key) == ["kept"])
        #expect(try store.session("kept").secrets.accessToken == "AT-kept")
        #expect(try store.entry("kept").record.autoRefresh == false)
    }

    /// A key in the kernel keyring cache that does not match the store's key-check value is never used: a planted
    /// key would otherwise seal new sessions that the real key cannot open.
    @Test func aWrongCachedKeyIsNeverUsed() throws {
        let store = try fixture.open(cache: true)
        try store.persist(StoreFixture.session("a"), replace: false)
        let cache = KeyCache(storeID: store.storeID)
        defer { cache.drop() }
        guard cache.read() != nil else {
            return try SecurityTestPrecondition.unavailable("the kernel keyring is not available here")
        }
        cache.drop()
        #expect(cache.store(try SecureRandom.bytes(32), seconds: 60))
        let reopened = try fixture.open(cache: true)
        try reopened.persist(StoreFixture.session("b"), replace: false)
        // The key that sealed "b" is the store's real one: a process with only the passphrase opens it.
        cache.drop()
        let fresh = try fixture.open(cache: false)
        #expect(try fresh.session("b").secrets.accessToken == "AT-b")
        #expect(try fresh.session("a").secrets.accessToken == "AT-a")
    }

    /// A NUL inside text is stored with it (bound by byte length), never cut at it; the key rule refuses such keys
    /// anyway, so this goes through a column the rule does not cover.
    @Test func textIsBoundWithItsByteLength() throws {
        let store = try fixture.open()
        var session = StoreFixture.session("nul")
        session.record.displayName = "Ada\u{0}Lovelace"
        try store.persist(session, replace: false)
        #expect(try store.entry("nul").record.displayName == "Ada\u{0}Lovelace")
        #expect(throws: StoreError.self) { try store.persist(StoreFixture.session("a\u{0}b"), replace: false) }
    }

    // MARK: - Keys keep their identity

    static func signedIn(
        _ key: String, backend: String, issuer: String = "https://accounts.example.com",
        subject: String = "1001", token: String
    ) -> Session {
        var session = StoreFixture.session(key, access: token, refresh: "RT-\(token)")
        session.record.backend = backend
        session.record.issuer = issuer
        session.record.subject = subject
        return session
    }

    @Test func aMadeUpKeyReplacesOnlyTheSameBackendIssuerAndSubject() throws {
        let store = try fixture.open()
        let key = "google-ada@example.com"
        #expect(try store.persistGenerated(Self.signedIn(key, backend: "sandbox", token: "one")).key == key)
        // The same account through another backend, then another issuer, then another subject: new keys.
        #expect(
            try store.persistGenerated(Self.signedIn(key, backend: "sandbox-turnkey", token: "two")).key
                == key + "-2")
        let otherIssuer = Self.signedIn(key, backend: "sandbox", issuer: "https://other.example", token: "three")
        #expect(try store.persistGenerated(otherIssuer).key == key + "-3")
        let otherSubject = Self.signedIn(key, backend: "sandbox", subject: "1002", token: "four")
        #expect(try store.persistGenerated(otherSubject).key == key + "-4")
        // A re-login of the second one replaces it, wherever it went.
        #expect(
            try store.persistGenerated(Self.signedIn(key, backend: "sandbox-turnkey", token: "five")).key
                == key + "-2")
        #expect(try store.session(key).secrets.refreshToken == "RT-one")
        #expect(try store.session(key + "-2").secrets.accessToken == "five")
        #expect(try store.entries().count == 4)
        #expect(try store.selectedKey() == key)
    }

    // MARK: - Watching

    @Test func anotherConnectionsWritesShowInTheChangeCounterAndThePage() throws {
        let watcher = try fixture.open()
        try watcher.persist(StoreFixture.session("mine"), replace: false)
        let counter = try watcher.changeCounter()
        #expect(try watcher.changeCounter() == counter)  // its own write does not count
        try sqlite3("DELETE FROM sessions WHERE key = 'mine';")
        let writer = try fixture.open()
        try writer.persist(StoreFixture.session("theirs"), replace: false)
        #expect(try watcher.changeCounter() != counter)
        // What the TUI reads once the counter moved: the count and the page on screen, not every row.
        #expect(try watcher.count(SessionQuery()) == 1)
        let page = try watcher.page(SessionQuery(), after: nil, limit: 10)
        #expect(page.map(\.record.key) == ["theirs"])
        // The selection pointed at the removed row; the writer's store selected its first session.
        #expect(page.first?.isSelected == true)
    }
}
