import AuthCrypto
import Foundation
import TestSupport
import Testing

/// HPKE base mode (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM) against Python's `cryptography`, whose
/// `hpke.Suite` was written by others from RFC 9180: each side opens what the other sealed. Python's one-shot API
/// takes no associated data, so those round trips use none; the associated data Turnkey adds only reaches AES-GCM.
@Suite struct HPKETests {
    static let info = Array("turnkey_hpke".utf8)
    /// `make setup`'s venv with cryptography 46 or later (Debian's python3-cryptography has no hpke).
    static let venvPython = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/hpke-venv/bin/python").path

    /// Runs `script` with Python's HPKE suite as `suite`; nil (with a skip note) when `make setup`'s venv is missing.
    func python(_ script: String, _ arguments: [String]) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: Self.venvPython) else {
            try SecurityTestPrecondition.unavailable("no \(Self.venvPython) (make setup installs it)")
            return nil
        }
        let prelude = """
            import sys
            try:
                from cryptography.hazmat.primitives import hpke
            except ImportError:
                print("NO-HPKE"); sys.exit(0)
            from cryptography.hazmat.primitives.asymmetric import ec
            suite = hpke.Suite(hpke.KEM.P256, hpke.KDF.HKDF_SHA256, hpke.AEAD.AES_256_GCM)

            """
        let output = try Program.run(Self.venvPython, ["-c", prelude + script] + arguments).text.trimmingCharacters(
            in: .whitespacesAndNewlines)
        if output == "NO-HPKE" {
            try SecurityTestPrecondition.unavailable("this python3-cryptography has no hpke module (46 or later has)")
            return nil
        }
        return output
    }

    @Test func whatPythonSealsOpensHere() throws {
        let recipient = try P256PrivateKey()
        let script = """
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(sys.argv[1]))
            print(suite.encrypt(b'{"otp_code":"123456"}', key, info=b"turnkey_hpke").hex())
            """
        guard let hex = try python(script, [Hex.encode(recipient.publicKey.x963Representation)]) else { return }
        let bytes = try #require(Hex.decode(hex))
        let sealed = HPKE.Sealed(encapsulatedKey: Array(bytes.prefix(65)), ciphertext: Array(bytes.dropFirst(65)))
        let opened = try HPKE.open(sealed, recipient: recipient, info: Self.info, associatedData: [])
        #expect(String(decoding: opened, as: UTF8.self) == #"{"otp_code":"123456"}"#)
        #expect(throws: CryptoError.self) {
            _ = try HPKE.open(sealed, recipient: recipient, info: Array("other".utf8), associatedData: [])
        }
    }

    @Test func whatIsSealedHereOpensInPython() throws {
        let recipient = try P256PrivateKey()
        let sealed = try HPKE.seal(
            Array("a code and a key".utf8), to: recipient.publicKey, info: Self.info, associatedData: [])
        #expect(sealed.encapsulatedKey.count == 65)
        let script = """
            n = int(sys.argv[1], 16)
            key = ec.derive_private_key(n, ec.SECP256R1())
            print(suite.decrypt(bytes.fromhex(sys.argv[2]), key, info=b"turnkey_hpke").decode())
            """
        let arguments = [
            Hex.encode(recipient.rawRepresentation), Hex.encode(sealed.encapsulatedKey + sealed.ciphertext),
        ]
        guard let opened = try python(script, arguments) else { return }
        #expect(opened == "a code and a key")
    }

    @Test func associatedDataMustMatch() throws {
        let recipient = try P256PrivateKey()
        let aad = Array("enc and the recipient's key".utf8)
        let sealed = try HPKE.seal(Array("x".utf8), to: recipient.publicKey, info: Self.info, associatedData: aad)
        #expect(try HPKE.open(sealed, recipient: recipient, info: Self.info, associatedData: aad) == Array("x".utf8))
        #expect(throws: CryptoError.self) {
            _ = try HPKE.open(sealed, recipient: recipient, info: Self.info, associatedData: [])
        }
    }
}
