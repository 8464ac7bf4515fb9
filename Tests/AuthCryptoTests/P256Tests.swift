import Testing

@testable import AuthCrypto

/// P-256 keys and ECDSA: known points, RFC 6979's key and signature, PEM import, and rejection of bad input.
struct P256Tests {
    static let generatorX963 = bytes(
        """
        04 6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296
           4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5
        """)

    @Test func scalarOneGivesTheGenerator() throws {
        let key = try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 31) + [1])
        #expect(key.publicKey.x963Representation == Self.generatorX963)
        // The generator's y is odd, so its compressed form starts 03.
        #expect(key.publicKey.compressedHex == "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
    }

    // RFC 6979 appendix A.2.5: the P-256 key and its deterministic SHA-256 signature of "sample".
    static let rfc6979Private = bytes("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    static let rfc6979Public = bytes(
        """
        04 60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6
           7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299
        """)
    static let rfc6979Sample = bytes(
        """
        EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716
        F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8
        """)

    @Test func rfc6979KeyAndSignatureVerify() throws {
        let key = try P256PrivateKey(rawRepresentation: Self.rfc6979Private)
        #expect(key.publicKey.x963Representation == Self.rfc6979Public)
        #expect(key.rawRepresentation == Self.rfc6979Private)
        #expect(key.publicKey.isValidSignature(Self.rfc6979Sample, for: Array("sample".utf8)))
        #expect(!key.publicKey.isValidSignature(Self.rfc6979Sample, for: Array("samplf".utf8)))
        #expect(!key.publicKey.isValidSignature(flippingBit(Self.rfc6979Sample, at: 5), for: Array("sample".utf8)))
        #expect(!key.publicKey.isValidSignature(flippingBit(Self.rfc6979Sample, at: 40), for: Array("sample".utf8)))
        #expect(!key.publicKey.isValidSignature(Array(Self.rfc6979Sample.prefix(63)), for: Array("sample".utf8)))
        #expect(!key.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: Array("sample".utf8)))
    }

    @Test func freshKeysSignAndVerify() throws {
        let key = try P256PrivateKey()
        let other = try P256PrivateKey()
        #expect(key.rawRepresentation != other.rawRepresentation)
        let message = Array("{\"type\":\"ACTIVITY_TYPE_STAMP_LOGIN\"}".utf8)
        // Enough signatures that a short r or s (1 in 128 each) would show up if padding were wrong.
        for _ in 0..<200 {
            let signature = try key.signature(for: message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidSignature(signature, for: message))
            #expect(!other.publicKey.isValidSignature(signature, for: message))
        }
        let again = try P256PrivateKey(rawRepresentation: key.rawRepresentation)
        #expect(again.publicKey == key.publicKey)
    }

    @Test func compressedFormRoundTrips() throws {
        for _ in 0..<20 {
            let publicKey = try P256PrivateKey().publicKey
            let hex = publicKey.compressedHex
            #expect(hex.count == 66)
            #expect(hex.hasPrefix("02") || hex.hasPrefix("03"))
            #expect(hex == hex.lowercased())
            let back = try P256PublicKey(compressedRepresentation: #require(Hex.decode(hex)))
            #expect(back.x963Representation == publicKey.x963Representation)
            #expect(try P256PublicKey(x963Representation: publicKey.x963Representation) == publicKey)
        }
    }

    @Test func outOfRangeScalarsAreRefused() {
        let order = bytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        #expect(throws: CryptoError.invalidKey("P-256 private scalar out of range")) {
            try P256PrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError.invalidKey("P-256 private scalar out of range")) {
            try P256PrivateKey(rawRepresentation: order)
        }
        #expect(throws: CryptoError.invalidKey("P-256 private key must be 32 bytes")) {
            try P256PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
    }

    @Test func pointsOffTheCurveAreRefused() {
        var offCurve = Self.generatorX963
        offCurve[64] ^= 1
        #expect(throws: CryptoError.invalidKey("not a point on P-256")) {
            try P256PublicKey(x963Representation: offCurve)
        }
        #expect(throws: CryptoError.self) {
            try P256PublicKey(x963Representation: Array(Self.generatorX963.prefix(64)))
        }
        var wrongPrefix = Array(Self.generatorX963.prefix(33))
        wrongPrefix[0] = 4
        #expect(throws: CryptoError.self) { try P256PublicKey(compressedRepresentation: wrongPrefix) }
        // x³ - 3x + b is not a square modulo p for x = 1, so no point has that x.
        #expect(throws: CryptoError.invalidKey("not a point on P-256")) {
            try P256PublicKey(compressedRepresentation: [2] + [UInt8](repeating: 0, count: 31) + [1])
        }
    }

    static let sec1PEM = """
        -----BEGIN EC PARAMETERS-----
        BggqhkjOPQMBBw==
        -----END EC PARAMETERS-----
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIHE2pErPK6TL0WJZmYVn9dkFY0kI0HGPZM6qBGIYeesyoAoGCCqGSM49
        AwEHoUQDQgAEfM9gmJz66GchJhOqGyCsGMTlklOzfTixHftkUo2V8RlN4SBFDQaM
        uaO2JyxCfBq0nHn7p35TNTFNb3rQCZxZdA==
        -----END EC PRIVATE KEY-----
        """
    static let pkcs8PEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgcTakSs8rpMvRYlmZ
        hWf12QVjSQjQcY9kzqoEYhh56zKhRANCAAR8z2CYnProZyEmE6obIKwYxOWSU7N9
        OLEd+2RSjZXxGU3hIEUNBoy5o7YnLEJ8GrScefunflM1MU1vetAJnFl0
        -----END PRIVATE KEY-----
        """
    static let pemScalar = bytes("7136a44acf2ba4cbd16259998567f5d905634908d0718f64ceaa04621879eb32")

    @Test func pemKeysInBothFormatsImport() throws {
        let sec1 = try P256PrivateKey(pemRepresentation: Self.sec1PEM)
        let pkcs8 = try P256PrivateKey(pemRepresentation: Self.pkcs8PEM)
        #expect(sec1.rawRepresentation == Self.pemScalar)
        #expect(pkcs8.rawRepresentation == Self.pemScalar)
        #expect(pkcs8.publicKey.compressedHex == "027ccf60989cfae867212613aa1b20ac18c4e59253b37d38b11dfb64528d95f119")
    }

    @Test func otherPEMsAreRefused() {
        let p384 = """
            -----BEGIN PRIVATE KEY-----
            MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDCYsozqJakeuJuKGuDc
            yiAn0Sm0m9fwT85Wi1nKqYGM+y5nbOS4/hhgNoKhu8um702hZANiAATDiO89JM/t
            aY+SbPZyJvuVESrqqxv3rQN0GhlszFRo+okMgLh5U2e8lvj2Dx6DrrN0HRry9XVO
            5Fatj8tsOC750xQk92Fc95Rvr+V/8aoI7VyZVzouR4s7UlonGFQ32GQ=
            -----END PRIVATE KEY-----
            """
        #expect(throws: CryptoError.invalidKey("EC key is not on P-256")) {
            try P256PrivateKey(pemRepresentation: p384)
        }
        #expect(throws: CryptoError.invalidKey("not an unencrypted PEM private key")) {
            try P256PrivateKey(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
        #expect(throws: CryptoError.invalidKey("not an unencrypted PEM private key")) {
            try P256PrivateKey(pemRepresentation: "")
        }
    }
}
