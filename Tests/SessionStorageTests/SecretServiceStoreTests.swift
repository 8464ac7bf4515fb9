import AuthCrypto
import Foundation
import SecretService
import Testing

@testable import SessionStorage

/// The Secret Service as the master key's source, against the real gnome-keyring of scripts/with-keyring.sh.
/// Skipped with this reason outside CI when there is no session bus; with CI=true they must run.
@Suite struct SecretServiceStoreTests {
    static let environment = ProcessInfo.processInfo.environment
    static let runnable = SecretServiceKeyring.busConfigured(environment: environment) || environment["CI"] == "true"

    @Test(.enabled(if: runnable, "needs the Secret Service: run under scripts/with-keyring.sh (make test)"))
    func aNewStorePutsItsKeyInTheSecretService() throws {
        let fixture = StoreFixture()
        let store = try fixture.open(passphrase: .unavailable, secretService: true)
        try store.persist(StoreFixture.session("a"), replace: false)
        #expect(try store.keySource() == .secretService)
        let keyring = SecretServiceKeyring(timeoutSeconds: 5)
        let key = try #require(try keyring.lookup(storeID: store.storeID))
        #expect(key.count == 32)
        // A fresh object with no cache unlocks from the Secret Service alone.
        let again = try fixture.open(passphrase: .unavailable, secretService: true)
        #expect(try again.session("a").secrets.accessToken == "AT-a")
        // The database holds a check value, never the key.
        let wal = FileManager.default.contents(atPath: fixture.databasePath + "-wal").map { [UInt8]($0) } ?? []
        let bytes = try #require(fixture.databaseBytes) + wal
        #expect(!Hex.encode(bytes).contains(Hex.encode(key)))
        try keyring.clear(storeID: store.storeID)
    }

    @Test(.enabled(if: runnable, "needs the Secret Service: run under scripts/with-keyring.sh (make test)"))
    func aMissingItemIsLockedNotANewKey() throws {
        let fixture = StoreFixture()
        let store = try fixture.open(passphrase: .unavailable, secretService: true)
        try store.persist(StoreFixture.session("a"), replace: false)
        try SecretServiceKeyring(timeoutSeconds: 5).clear(storeID: store.storeID)
        let before = try #require(fixture.databaseDigest)
        let again = try fixture.open(passphrase: .unavailable, secretService: true)
        do {
            _ = try again.session("a")
            Issue.record("unlocked without the key")
        } catch {
            guard case .locked = error else {
                Issue.record("expected locked, got \(error)")
                return
            }
        }
        #expect(throws: StoreError.self) { try again.persist(StoreFixture.session("b"), replace: false) }
        #expect(fixture.databaseDigest == before)
    }

    @Test(.enabled(if: runnable, "needs the Secret Service: run under scripts/with-keyring.sh (make test)"))
    func migrationMovesTheKeyAndBack() throws {
        let fixture = StoreFixture()
        let store = try fixture.open(passphrase: .fixed("pp"), secretService: true)
        try store.persist(StoreFixture.session("a"), replace: false)
        try store.migrateMasterKey(to: .passphrase)
        #expect(try store.keySource() == .passphrase)
        #expect(
            try SecretServiceKeyring(timeoutSeconds: 5).lookup(storeID: store.storeID) == nil,
            "the keyring copy is removed once the passphrase wraps the key")
        #expect(try fixture.open(passphrase: .fixed("pp")).session("a").secrets.accessToken == "AT-a")
        try store.migrateMasterKey(to: .secretService)
        #expect(
            try fixture.open(passphrase: .unavailable, secretService: true).session("a").secrets.accessToken
                == "AT-a")
        try SecretServiceKeyring(timeoutSeconds: 5).clear(storeID: store.storeID)
    }
}
