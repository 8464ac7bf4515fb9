import AuthCore
import Foundation
import Testing

@testable import SessionStorage

/// `TokenCache`: the rows `token` answered from, kept in the real kernel keyring, are never answered from again once
/// the store committed anything, or once another program wrote the file.
@Suite struct TokenCacheTests {
    /// A store with sessions "a" (selected) and "b", its key cached, and "a" read once through `TokenRead` (which puts
    /// it in the keyring); nil when keyutils is unavailable here.
    private func storeWithACopy() throws -> (StoreFixture, SessionStore, now: Double)? {
        let fixture = StoreFixture()
        let store = try fixture.open(cache: true)
        try store.persist([StoreFixture.session("a"), StoreFixture.session("b")], replace: false)
        guard store.isUnlockedInCache else {
            print("TokenCacheTests skipped: the kernel keyring (keyutils) is unavailable here")
            return nil
        }
        let now = Date().timeIntervalSince1970
        #expect(TokenRead.cached(nil, location: fixture.location, now: now)?.token == "AT-a")
        return (fixture, store, now)
    }

    private func copy(_ key: String?, _ fixture: StoreFixture) -> TokenCache.Row? {
        guard let ring = TokenCache(databasePath: fixture.databasePath)?.ring() else { return nil }
        return TokenCache.row(key, in: ring)
    }

    @Test func aReadLeavesACopyOfItsRowAndTheSelection() throws {
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        defer { store.lockStore() }
        let row = try #require(copy("a", fixture))
        #expect(row.storeID == store.storeID && row.key == "a" && row.expiresAt == 4_000_000_000)
        #expect(copy(nil, fixture) == row)
        #expect(copy("b", fixture) == nil)
        #expect(TokenRead.cached("b", location: fixture.location, now: now)?.token == "AT-b")
        #expect(copy("b", fixture)?.key == "b")
        // The copy is what the next read answers from: it alone still opens once the row is gone from the file's
        // view of this test (read straight from the keyring, with the cached key).
        #expect(TokenCache.decode(TokenCache.encode(row), key: "a") == row)
        #expect(TokenCache.decode([2] + TokenCache.encode(row).dropFirst(), key: "a") == nil)
        #expect(TokenCache.decode(Array(TokenCache.encode(row).prefix(20)), key: "a") == nil)
    }

    @Test func everyCommitDropsTheCopies() throws {
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        defer { store.lockStore() }
        // A new token for "a": the next read answers it, not the copy. The commit moved the WAL (so the keyring's
        // name changed) and dropped the keyring of the name before it too, which a kernel with coarse timestamps
        // might not have moved.
        let before = try #require(TokenCache(databasePath: fixture.databasePath))
        #expect(before.ring() != nil)
        try store.persist(StoreFixture.session("a", access: "AT-a-2"), replace: true)
        #expect(before.ring() == nil)
        #expect(copy("a", fixture) == nil)
        #expect(TokenRead.cached(nil, location: fixture.location, now: now)?.token == "AT-a-2")
        // Another session selected.
        #expect(copy(nil, fixture)?.key == "a")
        try store.select("b")
        #expect(TokenRead.cached(nil, location: fixture.location, now: now)?.token == "AT-b")
        // Signed out.
        #expect(TokenRead.cached("a", location: fixture.location, now: now)?.token == "AT-a-2")
        try store.remove("a")
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
        // Locked: the copy goes with the key.
        #expect(TokenRead.cached("b", location: fixture.location, now: now)?.token == "AT-b")
        store.lockStore()
        #expect(copy("b", fixture) == nil)
    }

    /// A read that answers nothing (here: the store locked, so no key to open the row with) leaves no keyring
    /// behind: each would count against the user's key quota until it expired.
    @Test func aReadThatAnswersNothingLeavesNoKeyring() throws {
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        store.lockStore()
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
        #expect(TokenCache(databasePath: fixture.databasePath)?.ring() == nil)
    }

    /// A reader finds or makes the keyring before it reads, so a row it read before a commit goes into a keyring the
    /// commit dropped, where no later reader looks.
    @Test func aRowReadBeforeACommitIsNeverFoundAfterIt() throws {
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        defer { store.lockStore() }
        let cache = try #require(TokenCache(databasePath: fixture.databasePath))
        let ring = try #require(cache.ringMadeIfMissing())
        let before = try #require(TokenCache.row("a", in: ring))
        try store.persist(StoreFixture.session("a", access: "AT-a-3"), replace: true)
        TokenCache.add(before, selected: true, to: ring)
        #expect(copy("a", fixture) == nil)
        #expect(TokenRead.cached("a", location: fixture.location, now: now)?.token == "AT-a-3")
    }

    /// A keyring renamed without a commit (here by the checkpoint of the last connection's close) is dropped when
    /// the next reader makes the keyring of the file's new state: the user's key quota is small.
    @Test func aNewStateDropsTheKeyringsOfEarlierOnes() throws {
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        defer { store.lockStore() }
        let earlier = try #require(TokenCache(databasePath: fixture.databasePath))
        #expect(earlier.ring() != nil)
        store.close()
        let later = try #require(TokenCache(databasePath: fixture.databasePath))
        #expect(later.name != earlier.name)
        #expect(earlier.ring() != nil)
        #expect(TokenRead.cached("a", location: fixture.location, now: now)?.token == "AT-a")
        #expect(earlier.ring() == nil)
        #expect(later.ring() != nil)
    }

    /// Another program writing the store (here SQLite's own shell, deleting the row while authdeck still holds a
    /// connection, so the change stays in the WAL) changes the keyring's name, so the copy is not found.
    @Test func anotherProgramsWriteIsNotAnsweredFromTheCopy() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            print("skipped: SQLite's shell (/usr/bin/sqlite3) is not installed")
            return
        }
        guard let (fixture, store, now) = try storeWithACopy() else { return }
        defer { store.lockStore() }
        #expect(copy("a", fixture) != nil)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [fixture.databasePath, "DELETE FROM sessions WHERE key = 'a'"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(copy("a", fixture) == nil)
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
        #expect(try store.entries().map(\.record.key) == ["b"])
    }
}
