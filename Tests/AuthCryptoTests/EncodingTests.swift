import Testing

@testable import AuthCrypto

/// Base64url, hex and constant-time comparison.
struct EncodingTests {
    // RFC 4648 section 10 base64 vectors, without padding as base64url uses them.
    static let base64Vectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: base64Vectors)
    func base64URLVectors(vector: (String, String)) {
        #expect(Base64URL.encode(Array(vector.0.utf8)) == vector.1)
        #expect(Base64URL.decode(vector.1) == Array(vector.0.utf8))
    }

    @Test func base64URLUsesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
        // Padding and the standard alphabet are accepted on input, for lenient peers.
        #expect(Base64URL.decode("+/+/") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
    }

    @Test func base64URLRoundTripsRandomBytes() throws {
        for count in 0..<50 {
            let data = try SecureRandom.bytes(count)
            let encoded = Base64URL.encode(data)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == data)
        }
    }

    @Test func base64URLRefusesInvalidInput() {
        #expect(Base64URL.decode("Z") == nil, "one symbol cannot hold a byte")
        #expect(Base64URL.decode("Zm9v$") == nil)
        #expect(Base64URL.decode("Zm 9v") == nil)
        #expect(Base64URL.decode("Zm9v.") == nil)
        #expect(Base64URL.decode("é") == nil)
    }

    @Test func hexRoundTripsAndIsLowerCase() throws {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.decode("000FA5ff") == [0x00, 0x0f, 0xa5, 0xff])
        for count in 0..<20 {
            let data = try SecureRandom.bytes(count)
            #expect(Hex.decode(Hex.encode(data)) == data)
        }
    }

    @Test func hexRefusesInvalidInput() {
        #expect(Hex.decode("abc") == nil, "odd length")
        #expect(Hex.decode("0g") == nil)
        #expect(Hex.decode("0x00") == nil)
        #expect(Hex.decode(" 00") == nil)
        #expect(Hex.decode("") == [])
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(ConstantTime.equals("state-abc", "state-abc"))
        #expect(!ConstantTime.equals("state-abc", "state-abd"))
    }

    @Test func secureRandomGivesDistinctBytes() throws {
        #expect(try SecureRandom.bytes(0) == [])
        let first = try SecureRandom.bytes(32)
        let second = try SecureRandom.bytes(32)
        #expect(first.count == 32)
        #expect(first != second)
    }
}
