import Testing

@testable import AuthCrypto

/// scrypt: RFC 7914 section 12 vectors (the two cheap ones) and parameter checks.
struct ScryptTests {
    @Test func rfc7914EmptyPasswordN16() throws {
        let key = try Scrypt.deriveKey(
            password: [], salt: [], parameters: ScryptParameters(n: 16, r: 1, p: 1),
            length: 64)
        #expect(
            key
                == bytes(
                    """
                    77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
                    fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
                    """))
    }

    @Test func rfc7914PasswordNaClN1024() throws {
        let key = try Scrypt.deriveKey(
            password: Array("password".utf8), salt: Array("NaCl".utf8),
            parameters: ScryptParameters(n: 1024, r: 8, p: 16), length: 64)
        #expect(
            key
                == bytes(
                    """
                    fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
                    2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
                    """))
    }

    @Test func interactiveCostDerivesSaltDependentKeys() throws {
        let first = try Scrypt.deriveKey(
            password: Array("pass".utf8), salt: Array("salt".utf8),
            parameters: .interactive, length: 32)
        let otherSalt = try Scrypt.deriveKey(
            password: Array("pass".utf8), salt: Array("salu".utf8),
            parameters: .interactive, length: 32)
        #expect(first.count == 32)
        #expect(first != otherSalt)
    }

    @Test func interactiveParametersAreTheAgreedOnes() {
        #expect(ScryptParameters.interactive == ScryptParameters(n: 32768, r: 8, p: 1))
    }

    @Test func badParametersAreRefused() {
        #expect(throws: CryptoError.self) {
            try Scrypt.deriveKey(
                password: [1], salt: [2], parameters: ScryptParameters(n: 1000, r: 8, p: 1),
                length: 32)
        }
        #expect(throws: CryptoError.self) {
            try Scrypt.deriveKey(password: [1], salt: [2], parameters: ScryptParameters(n: 16, r: 0, p: 1), length: 32)
        }
        #expect(throws: CryptoError.self) {
            try Scrypt.deriveKey(password: [1], salt: [2], parameters: ScryptParameters(n: 16, r: 1, p: 1), length: 0)
        }
        // A hostile file asking for 2^40 blocks must fail fast instead of exhausting memory.
        #expect(throws: CryptoError.self) {
            try Scrypt.deriveKey(
                password: [1], salt: [2], parameters: ScryptParameters(n: 1 << 40, r: 8, p: 1),
                length: 32)
        }
    }
}
