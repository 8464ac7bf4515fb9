import AuthCore
import AuthCrypto
import Foundation
import TestSupport
import Testing

@testable import Passkeys

/// The software passkey against Yubico's python-fido2 server: its registration options answered and accepted by
/// `register_complete` (attestation `none`, and `packed` self-attestation checked by python-fido2's verifier), then
/// its assertion accepted by `authenticate_complete`, a tampered signature refused by it; another site's origin
/// refused here.
struct SoftwarePasskeyTests {
    static let rpID = "passkeys.authdeck.test"
    static let origin = "https://passkeys.authdeck.test"

    /// Registers through python-fido2; answers the stored credential and the server's attested credential data.
    func register(attestation: String? = nil) throws -> (PasskeyCredential, JSONValue)? {
        if let reason = FidoServerPeer.unavailableReason {
            try SecurityTestPrecondition.unavailable(reason)
            return nil
        }
        let begun = try FidoServerPeer.run(
            "register-begin", rpID: Self.rpID, attestation: attestation,
            .object([
                "userId": .string(Base64URL.encode(Array("ada-0001".utf8))), "userName": .string("ada@example.com"),
            ]))
        let options = try CreationOptions(json: FidoServerPeer.text(begun["options"]))
        let (credential, response) = try SoftwarePasskey.register(options, origin: Self.origin)
        let completed = try FidoServerPeer.run(
            "register-complete", rpID: Self.rpID, attestation: attestation,
            .object(["state": begun["state"] ?? .null, "credential": response.json]))
        return (credential, completed)
    }

    @Test func registrationIsAcceptedByFido2Server() throws {
        guard let (credential, server) = try register() else { return }
        #expect(server["fmt"]?.string == "none")
        // UP, UV and AT set; the counter starts at zero; no model claimed.
        #expect(server["flags"]?.integer == 0x45)
        #expect(server["counter"]?.integer == 0)
        #expect(server["aaguid"]?.string == String(repeating: "0", count: 32))
        // The COSE key python-fido2 parsed: EC2, ES256, P-256, and the x and y of the stored key.
        let hex = try #require(credential.privateKeyHex)
        let key = try #require(Hex.decode(hex))
        let point = try P256PrivateKey(rawRepresentation: key).publicKey.x963Representation
        #expect(server["publicKey"]?["1"]?.integer == 2)
        #expect(server["publicKey"]?["3"]?.integer == -7)
        #expect(server["publicKey"]?["-1"]?.integer == 1)
        #expect(server["publicKey"]?["-2"]?.string == Base64URL.encode(Array(point[1...32])))
        #expect(server["publicKey"]?["-3"]?.string == Base64URL.encode(Array(point[33...64])))
        #expect(credential.relyingPartyID == Self.rpID)
        #expect(credential.userName == "ada@example.com")
        #expect(Base64URL.decode(credential.userHandle) == Array("ada-0001".utf8))
    }

    @Test func packedSelfAttestationIsVerifiedByFido2() throws {
        guard let (_, server) = try register(attestation: "direct") else { return }
        #expect(server["fmt"]?.string == "packed")
    }

    @Test func assertionIsAcceptedAndTamperingRefused() throws {
        guard let (credential, server) = try register() else { return }
        let credentialData = server["credentialData"] ?? .null
        for round in 1...2 {
            let begun = try FidoServerPeer.run(
                "authenticate-begin", rpID: Self.rpID, .object(["credentialData": credentialData]))
            let options = try RequestOptions(json: FidoServerPeer.text(begun["options"]))
            let (updated, response) = try SoftwarePasskey.assert(options, origin: Self.origin, credential: credential)
            #expect(updated.signCount == credential.signCount + 1)
            let request: (JSONValue) -> JSONValue = { answer in
                .object(["state": begun["state"] ?? .null, "credentialData": credentialData, "credential": answer])
            }
            let accepted = try FidoServerPeer.run("authenticate-complete", rpID: Self.rpID, request(response.json))
            #expect(accepted["flags"]?.integer == 0x05)
            #expect(accepted["counter"]?.integer == Int(updated.signCount))
            guard round == 1 else { continue }

            var tampered = response
            tampered.signature[tampered.signature.count - 1] ^= 0x01
            #expect(throws: FidoServerPeer.Refused.self) {
                try FidoServerPeer.run("authenticate-complete", rpID: Self.rpID, request(tampered.json))
            }
            // A page of another site cannot have the credential used for this relying party.
            #expect(throws: PasskeyError.self) {
                try SoftwarePasskey.assert(options, origin: "https://evil.example", credential: credential)
            }
        }
    }

    @Test func assertionForAnotherRelyingPartyOrCredentialIsRefusedHere() throws {
        let credential = PasskeyCredential(
            kind: .software, relyingPartyID: Self.rpID, credentialID: Base64URL.encode([1, 2, 3]),
            userHandle: "AA", userName: "ada", privateKeyHex: String(repeating: "11", count: 32), signCount: 0)
        let challenge = [UInt8](repeating: 7, count: 32)
        let otherRP = RequestOptions(
            relyingPartyID: "other.example", challenge: challenge, allowCredentials: [], userVerification: nil)
        #expect(throws: PasskeyError.self) {
            try SoftwarePasskey.assert(otherRP, origin: Self.origin, credential: credential)
        }
        let otherID = RequestOptions(
            relyingPartyID: Self.rpID, challenge: challenge, allowCredentials: [[9, 9]], userVerification: nil)
        #expect(throws: PasskeyError.self) {
            try SoftwarePasskey.assert(otherID, origin: Self.origin, credential: credential)
        }
        #expect(PasskeyChoice.pick(otherID, from: [credential]) == nil)
    }

    @Test func optionsWithoutES256OrAShortChallengeAreRefused() throws {
        let rsaOnly = Array(
            #"{"publicKey":{"rp":{"id":"a.test","name":"A"},"user":{"id":"AAE","name":"u"},"challenge":"AAAAAAAAAAAAAAAAAAAAAA","pubKeyCredParams":[{"type":"public-key","alg":-257}]}}"#
                .utf8)
        let options = try CreationOptions(json: rsaOnly)
        #expect(throws: PasskeyError.self) { try SoftwarePasskey.register(options, origin: "https://a.test") }
        let short = Array(#"{"challenge":"AAAA","rpId":"a.test"}"#.utf8)
        #expect(throws: PasskeyError.self) { try RequestOptions(json: short) }
    }
}
