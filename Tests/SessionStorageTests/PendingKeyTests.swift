import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// Session keys waiting for their OIDC token (`login --oidc-token-only`): sealed under the master key, found only by
/// their own public key and only until they expire, gone once used, and never a session.
@Suite struct PendingKeyTests {
    @Test func aPendingKeyIsSealedExpiresAndIsNoSession() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        let key = [UInt8](repeating: 0xA5, count: 32)
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // long past: its key has expired by the next store
        try store.storePendingKey(key, publicKeyHex: "02aa", expiresAt: now.addingTimeInterval(600))
        #expect(try store.pendingKey(publicKeyHex: "02aa", now: now) == key)
        #expect(try store.pendingKey(publicKeyHex: "02aa", now: now.addingTimeInterval(600)) == nil)
        #expect(try store.pendingKey(publicKeyHex: "03bb", now: now) == nil)
        #expect(try store.entries().isEmpty)

        // The key is never in the database file in clear.
        for path in [fixture.databasePath, fixture.databasePath + "-wal"] {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            #expect(data.range(of: Data(key)) == nil)
        }

        // Storing another drops the expired ones; removing one leaves nothing for its public key.
        try store.storePendingKey(key, publicKeyHex: "03bb", expiresAt: Date().addingTimeInterval(600))
        let rows = try store.database.prepare("SELECT count(*) FROM meta WHERE name LIKE 'pending_key:%'")
        _ = try rows.step()
        #expect(rows.int64(0) == 1)
        try store.removePendingKey(publicKeyHex: "03bb")
        #expect(try store.pendingKey(publicKeyHex: "03bb") == nil)
    }

    @Test func aPendingKeyCannotBeReadUnderAnotherPublicKey() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        let later = Date().addingTimeInterval(600)
        try store.storePendingKey([UInt8](repeating: 1, count: 32), publicKeyHex: "02aa", expiresAt: later)
        try store.storePendingKey([UInt8](repeating: 2, count: 32), publicKeyHex: "03bb", expiresAt: later)
        // Swap one sealed key onto the other's row: the associated data no longer matches.
        try store.database.execute(
            """
            UPDATE meta SET value = (SELECT value FROM meta WHERE name = 'pending_key:02aa') \
            WHERE name = 'pending_key:03bb'
            """)
        #expect(throws: StoreError.self) { try store.pendingKey(publicKeyHex: "03bb") }
        #expect(try store.pendingKey(publicKeyHex: "02aa") == [UInt8](repeating: 1, count: 32))
    }
}
