import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// `TokenRead`, the token read both binaries run: it answers only a current store whose key is in the kernel-keyring
/// cache and a token that needs no refresh, and hands every other case to the store (nil), writing nothing.
@Suite struct TokenReadTests {
    /// A store with sessions "a" (selected, expires far ahead), "soon" (expires in 30 s), "later" (in 10 min) and
    /// "id" (an ID token only), its key cached; nil when keyutils is unavailable here.
    private func cachedStore() throws -> (StoreFixture, SessionStore, now: Double)? {
        let fixture = StoreFixture()
        let store = try fixture.open(cache: true)
        let now = Date()
        var id = StoreFixture.session("id")
        id.secrets = SessionSecrets(idToken: "ID-id")
        try store.persist(
            [
                StoreFixture.session("a"),
                StoreFixture.session("soon", expires: now.addingTimeInterval(30)),
                StoreFixture.session("later", expires: now.addingTimeInterval(600)), id,
            ], replace: false)
        guard store.isUnlockedInCache else {
            print("TokenReadTests skipped: the kernel keyring (keyutils) is unavailable here")
            return nil
        }
        return (fixture, store, now.timeIntervalSince1970)
    }

    @Test func readsTheChosenOrSelectedSessionsToken() throws {
        guard let (fixture, store, now) = try cachedStore() else { return }
        defer { store.lockStore() }
        #expect(
            TokenRead.cached("a", location: fixture.location, now: now)
                == CachedToken(key: "a", token: "AT-a", expiresAt: 4_000_000_000))
        #expect(TokenRead.cached(nil, location: fixture.location, now: now)?.token == "AT-a")
        #expect(TokenRead.cached("later", location: fixture.location, now: now)?.token == "AT-later")
        #expect(
            TokenRead.cached("id", idToken: true, location: fixture.location, now: now)
                == CachedToken(key: "id", token: "ID-id", expiresAt: nil))
    }

    @Test func handsOverWhatNeedsTheStore() throws {
        guard let (fixture, store, now) = try cachedStore() else { return }
        defer { store.lockStore() }
        // Within the refresh window, or within a longer --min-valid: a refresh (or its error) is the store's. "soon"
        // lives 30 s from when it was stored, so its window is 15 s (not 60): 30 s left is handed out, 10 s is not.
        #expect(TokenRead.cached("soon", location: fixture.location, now: now)?.token == "AT-soon")
        #expect(TokenRead.cached("soon", location: fixture.location, now: now + 20) == nil)
        #expect(TokenRead.cached("later", minValidSeconds: 900, location: fixture.location, now: now) == nil)
        #expect(TokenRead.cached("nope", location: fixture.location, now: now) == nil)
        #expect(TokenRead.cached("a", idToken: true, location: fixture.location, now: now) == nil)
        #expect(TokenRead.cached("a", location: StoreLocation(directory: fixture.path + "/none"), now: now) == nil)
        // A mode the store would repair (and warn about) is left to it, untouched here.
        #expect(chmod(fixture.databasePath, 0o644) == 0)
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
        var info = stat()
        #expect(stat(fixture.databasePath, &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(chmod(fixture.databasePath, 0o600) == 0)
        #expect(TokenRead.cached("a", location: fixture.location, now: now)?.token == "AT-a")
        // No key in the cache: the store unlocks its own way.
        store.lockStore()
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
    }

    @Test func aCachedKeyThatIsNotThisStoresIsNeverUsed() throws {
        guard let (fixture, store, now) = try cachedStore() else { return }
        defer { store.lockStore() }
        // Another key planted under this store's id: the key-check value refuses it before any blob is opened.
        store.lockStore()
        #expect(KeyCache(storeID: store.storeID).store(try SecureRandom.bytes(32), seconds: 60))
        #expect(TokenRead.cached("a", location: fixture.location, now: now) == nil)
    }

    @Test func jsonObjectIsTheSpecsShape() {
        // Hand-written expectations: 4,000,000,000 s after 1970 is 2096-10-02T07:06:40Z.
        #expect(
            CachedToken(key: "a\"b", token: "t\n", expiresAt: 4_000_000_000).json
                == #"{"key":"a\"b","token":"t\n","expiresAt":"2096-10-02T07:06:40Z"}"#)
        #expect(CachedToken(key: "k", token: "t", expiresAt: nil).json == #"{"key":"k","token":"t","expiresAt":null}"#)
    }

    @Test func secretFieldsReadOnlyWellFormedBlobs() {
        // version 1, tag 1 (access) "AT", tag 4 (session JWT) "J", tag 9 (a later version's) "x".
        let blob: [UInt8] = [1, 1, 2, 0, 0, 0, 0x41, 0x54, 4, 1, 0, 0, 0, 0x4A, 9, 1, 0, 0, 0, 0x78]
        let fields = SecretFields.tokens(blob)
        #expect(fields?.access == "AT" && fields?.sessionJwt == "J" && fields?.idToken == nil)
        #expect(SecretFields.tokens([2] + blob.dropFirst()) == nil)  // another version
        #expect(SecretFields.tokens(Array(blob.dropLast())) == nil)  // a field cut short
        #expect(SecretFields.tokens([1, 6, 1, 0, 0, 0, 0]) == nil)  // refreshExpiresAt must be 8 bytes
    }

    @Test func nettleOpensWhatOpenSSLSealsAndNothingElse() throws {
        let key = try SecureRandom.bytes(32)
        for size in [0, 1, 15, 16, 17, 200] {
            let plaintext = try SecureRandom.bytes(size)
            let box = try AESGCM.seal(plaintext, key: key, associatedData: Array("s000001".utf8))
            #expect(TokenCipher.openAESGCM(box, key: key, associatedData: Array("s000001".utf8)) == plaintext)
            // Another row's key as associated data, a flipped bit, another key, a box cut short: nothing opens.
            #expect(TokenCipher.openAESGCM(box, key: key, associatedData: Array("s000002".utf8)) == nil)
            var flipped = box
            flipped[flipped.count / 2] ^= 1
            #expect(TokenCipher.openAESGCM(flipped, key: key, associatedData: Array("s000001".utf8)) == nil)
            #expect(
                TokenCipher.openAESGCM(
                    box, key: try SecureRandom.bytes(32),
                    associatedData: Array("s000001".utf8)) == nil)
            #expect(TokenCipher.openAESGCM(Array(box.prefix(27)), key: key, associatedData: []) == nil)
        }
    }

    @Test func nettleHMACMatchesRFC4231() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        #expect(
            Hex.encode(
                TokenCipher.hmacSHA256(
                    key: Array("Jefe".utf8),
                    message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            TokenCipher.equal([1, 2, 3], [1, 2, 3]) && !TokenCipher.equal([1, 2, 3], [1, 2, 4])
                && !TokenCipher.equal([1, 2], [1, 2, 3]))
    }
}
