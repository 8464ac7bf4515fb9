import Testing

@testable import AuthCrypto

/// Base32: RFC 4648 section 10 vectors, lenient input, refused input.
struct Base32Tests {
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="),
        ("foob", "MZXW6YQ="), ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
    ]

    @Test(arguments: vectors)
    func rfc4648Vectors(vector: (String, String)) throws {
        let (plain, encoded) = vector
        // Encoding leaves the padding off, as otpauth links do.
        #expect(Base32.encode(Array(plain.utf8)) == encoded.filter { $0 != "=" })
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        #expect(Base32.decode(encoded.lowercased()) == Array(plain.utf8))
    }

    @Test func randomBytesRoundTrip() throws {
        for count in 0..<40 {
            let data = try SecureRandom.bytes(count)
            #expect(Base32.decode(Base32.encode(data)) == data)
        }
    }

    @Test func spacesAndPaddingAreIgnored() {
        #expect(Base32.decode("MZXW 6YTB OI") == Array("foobar".utf8))
        #expect(Base32.decode("mzxw6ytboi======") == Array("foobar".utf8))
    }

    @Test func invalidInputIsRefused() {
        #expect(Base32.decode("MZXW1") == nil, "1 is not in the alphabet")
        #expect(Base32.decode("MZ-XW") == nil)
        #expect(Base32.decode("M") == nil, "one symbol cannot hold a byte")
        #expect(Base32.decode("MZX") == nil)
        #expect(Base32.decode("MZXW6Y") == nil)
    }
}
