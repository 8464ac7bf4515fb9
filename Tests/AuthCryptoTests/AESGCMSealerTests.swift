import Testing

@testable import AuthCrypto

/// The sealer that keeps one cipher context for many boxes: each box must be exactly the GCM specification's, however
/// many boxes came before it on the same context.
struct AESGCMSealerTests {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", test cases 15 and 16 (the key and nonce of both).
    static let aad16 = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
    static let sealed15 =
        AESGCMTests.nonce15 + AESGCMTests.ciphertext15 + bytes("b094dac5d93471bdec1a502270e3cc6c")
    static let sealed16 =
        AESGCMTests.nonce15 + Array(AESGCMTests.ciphertext15.prefix(60)) + bytes("76fc6ece0f4e1768cddf8853bb2d551b")

    @Test func boxesInTurnOnOneContextAreTheSpecificationsBoxes() throws {
        let sealer = try AESGCMSealer(key: AESGCMTests.key15)
        let plaintext16 = Array(AESGCMTests.plaintext15.prefix(60))
        let nonce15 = AESGCMTests.nonce15
        for _ in 0..<3 {
            #expect(try sealer.seal(plaintext16, associatedData: Self.aad16, nonce: nonce15) == Self.sealed16)
            #expect(try sealer.seal(AESGCMTests.plaintext15, associatedData: [], nonce: nonce15) == Self.sealed15)
        }
        // Test case 13 under its own (zero) key: empty plaintext, no associated data.
        let zero = try AESGCMSealer(key: [UInt8](repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let tag13 = bytes("530f8afbc74536b9a963b4f1c4cb738b")
        #expect(try zero.seal([], associatedData: [], nonce: nonce) == nonce + tag13)
    }

    @Test func randomNoncesDifferAndTheBoxesOpen() throws {
        let key = try SecureRandom.bytes(32)
        let sealer = try AESGCMSealer(key: key)
        let message = Array("refresh-token-value".utf8)
        var nonces = Set<[UInt8]>()
        for index in 0..<50 {
            let box = try sealer.seal(message, associatedData: Array("session-\(index)".utf8))
            #expect(box.count == 12 + message.count + 16)
            nonces.insert(Array(box.prefix(12)))
            #expect(try AESGCM.open(box, key: key, associatedData: Array("session-\(index)".utf8)) == message)
            #expect(throws: CryptoError.self) { try AESGCM.open(box, key: key, associatedData: Array("other".utf8)) }
        }
        #expect(nonces.count == 50, "each box draws a fresh nonce")
    }

    @Test func badKeysAndNoncesAreRefused() throws {
        #expect(throws: CryptoError.self) { try AESGCMSealer(key: [UInt8](repeating: 1, count: 16)) }
        let sealer = try AESGCMSealer(key: [UInt8](repeating: 1, count: 32))
        #expect(throws: CryptoError.self) { try sealer.seal([1], associatedData: [], nonce: [0, 1, 2]) }
    }
}
