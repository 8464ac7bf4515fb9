import Testing

@testable import AuthCrypto

/// AES-256-GCM: the GCM specification's 256-bit test cases plus tampering checks.
struct AESGCMTests {
    // McGrew & Viega, "The Galois/Counter Mode of Operation", test case 13: empty plaintext, zero key and IV.
    @Test func testCase13EmptyPlaintext() throws {
        let sealed = try AESGCM.seal(
            [], key: [UInt8](repeating: 0, count: 32), associatedData: [],
            nonce: [UInt8](repeating: 0, count: 12))
        #expect(sealed == [UInt8](repeating: 0, count: 12) + bytes("530f8afbc74536b9a963b4f1c4cb738b"))
    }

    // Test case 14: one zero block under a zero key.
    @Test func testCase14OneBlock() throws {
        let nonce = [UInt8](repeating: 0, count: 12)
        let sealed = try AESGCM.seal(
            [UInt8](repeating: 0, count: 16), key: [UInt8](repeating: 0, count: 32),
            associatedData: [], nonce: nonce)
        #expect(sealed == nonce + bytes("cea7403d4d606b6e074ec5d3baf39d18 d0d1c8a799996bf0265b98b5d48ab919"))
    }

    static let key15 = bytes("feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308")
    static let nonce15 = bytes("cafebabefacedbaddecaf888")
    static let plaintext15 = bytes(
        """
        d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b391aafd255
        """)
    static let ciphertext15 = bytes(
        """
        522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
        8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662898015ad
        """)

    @Test func testCase15FourBlocks() throws {
        let sealed = try AESGCM.seal(Self.plaintext15, key: Self.key15, associatedData: [], nonce: Self.nonce15)
        #expect(sealed == Self.nonce15 + Self.ciphertext15 + bytes("b094dac5d93471bdec1a502270e3cc6c"))
        #expect(try AESGCM.open(sealed, key: Self.key15, associatedData: []) == Self.plaintext15)
    }

    // Test case 16: associated data and a plaintext that ends mid-block.
    @Test func testCase16WithAssociatedData() throws {
        let aad = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let plaintext = Array(Self.plaintext15.prefix(60))
        let sealed = try AESGCM.seal(plaintext, key: Self.key15, associatedData: aad, nonce: Self.nonce15)
        let expected = Self.nonce15 + Array(Self.ciphertext15.prefix(60)) + bytes("76fc6ece0f4e1768cddf8853bb2d551b")
        #expect(sealed == expected)
        #expect(try AESGCM.open(expected, key: Self.key15, associatedData: aad) == plaintext)
    }

    @Test func roundTripWithRandomNonce() throws {
        let key = try SecureRandom.bytes(32)
        let message = Array("refresh-token-value".utf8)
        let first = try AESGCM.seal(message, key: key, associatedData: Array("session-a".utf8))
        let second = try AESGCM.seal(message, key: key, associatedData: Array("session-a".utf8))
        #expect(first.count == 12 + message.count + 16)
        #expect(first.prefix(12) != second.prefix(12), "each seal draws a fresh nonce")
        #expect(try AESGCM.open(first, key: key, associatedData: Array("session-a".utf8)) == message)
        #expect(try AESGCM.open(second, key: key, associatedData: Array("session-a".utf8)) == message)
    }

    @Test func emptyPlaintextRoundTrips() throws {
        let key = try SecureRandom.bytes(32)
        let sealed = try AESGCM.seal([], key: key, associatedData: [1, 2, 3])
        #expect(sealed.count == 28)
        #expect(try AESGCM.open(sealed, key: key, associatedData: [1, 2, 3]) == [])
    }

    @Test(arguments: [0, 11, 12, 40, 59 + 12, 12 + 60, 12 + 60 + 15])
    func flippedBitAnywhereIsRejected(index: Int) throws {
        let aad = bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let sealed = try AESGCM.seal(Array(Self.plaintext15.prefix(60)), key: Self.key15, associatedData: aad)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(flippingBit(sealed, at: index), key: Self.key15, associatedData: aad)
        }
    }

    @Test func flippedBitInAssociatedDataIsRejected() throws {
        let aad = Array("session-key".utf8)
        let sealed = try AESGCM.seal([1, 2, 3, 4], key: Self.key15, associatedData: aad)
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(sealed, key: Self.key15, associatedData: flippingBit(aad, at: 3))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(sealed, key: Self.key15, associatedData: [])
        }
    }

    @Test func wrongKeyIsRejected() throws {
        let sealed = try AESGCM.seal([9, 9, 9], key: Self.key15, associatedData: [])
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(sealed, key: flippingBit(Self.key15, at: 31, bit: 0x80), associatedData: [])
        }
    }

    @Test func badSizesAreRejected() throws {
        #expect(throws: CryptoError.malformedInput("sealed box shorter than nonce and tag")) {
            try AESGCM.open([UInt8](repeating: 0, count: 27), key: Self.key15, associatedData: [])
        }
        #expect(throws: CryptoError.invalidKey("AES-256-GCM needs a 32-byte key")) {
            try AESGCM.seal([1], key: [UInt8](repeating: 0, count: 16), associatedData: [])
        }
        #expect(throws: CryptoError.invalidKey("AES-256-GCM needs a 32-byte key")) {
            try AESGCM.open(
                [UInt8](repeating: 0, count: 40), key: [UInt8](repeating: 0, count: 31),
                associatedData: [])
        }
        #expect(throws: CryptoError.malformedInput("AES-GCM nonce must be 12 bytes")) {
            try AESGCM.seal([1], key: Self.key15, associatedData: [], nonce: [UInt8](repeating: 0, count: 16))
        }
    }
}
