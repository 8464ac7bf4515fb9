import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// The kernel keyring cache. Where keyutils is blocked (some containers) it must degrade to misses, never errors.
@Suite struct KeyCacheTests {
    @Test func storesReadsAndDropsOneStoresKey() throws {
        let cache = KeyCache(storeID: Hex.encode(try SecureRandom.bytes(16)))
        let other = KeyCache(storeID: Hex.encode(try SecureRandom.bytes(16)))
        let key = try SecureRandom.bytes(32)
        #expect(cache.read() == nil)
        guard cache.store(key, seconds: 30) else {
            // keyutils unavailable: every call is a quiet miss, which is the contract.
            #expect(cache.read() == nil)
            #expect(!cache.drop())
            return
        }
        #expect(cache.read() == key)
        #expect(other.read() == nil, "two stores never share an entry")
        #expect(cache.drop())
        #expect(cache.read() == nil)
        #expect(!cache.store(key, seconds: 0), "zero seconds caches nothing")
        #expect(cache.read() == nil)
    }

    @Test func anEntryExpires() throws {
        let cache = KeyCache(storeID: Hex.encode(try SecureRandom.bytes(16)))
        guard cache.store(try SecureRandom.bytes(32), seconds: 1) else { return }
        #expect(cache.read() != nil)
        usleep(1_600_000)
        #expect(cache.read() == nil)
    }

    @Test func theStoreUsesTheCacheAndStoreLockDropsIt() throws {
        let fixture = StoreFixture()
        let store = try fixture.open(cache: true)
        try store.persist(StoreFixture.session("a"), replace: false)
        guard store.isUnlockedInCache else { return }  // keyutils unavailable here
        // No passphrase now: only the cache can unlock.
        let cachedOnly = try fixture.open(passphrase: .unavailable, cache: true)
        #expect(try cachedOnly.session("a").secrets.accessToken == "AT-a")
        #expect(store.lockStore())
        let locked = try fixture.open(passphrase: .unavailable, cache: true)
        #expect(throws: StoreError.self) { try locked.session("a") }
    }
}
