import Testing

@testable import AuthCrypto

/// JWK import, generation and export through cjose.
struct JWKTests {
    typealias V = JOSEVectors

    @Test func importReadsTypeAndKid() throws {
        let rsa = try JWK(json: #"{"kty":"RSA","kid":"2010-12-29","n":"\#(V.rsaModulus)","e":"AQAB"}"#)
        #expect(rsa.keyType == "RSA")
        #expect(rsa.keyID == "2010-12-29")
        #expect(rsa.curve == nil)
        #expect(!rsa.hasPrivateKey)
        let ec = try JWK(json: V.ecPrivateJWK)
        #expect(ec.keyType == "EC")
        #expect(ec.curve == "P-256")
        #expect(ec.keyID == nil)
        #expect(ec.hasPrivateKey)
    }

    @Test func publicJSONNeverCarriesPrivateParts() throws {
        let keys = [
            try JWK.generateES256(keyID: "e1"), try JWK.generateRS256(keyID: "r1"), try JWK(json: V.ecPrivateJWK),
        ]
        for key in keys {
            let json = try key.publicJSON()
            for privateMember in ["\"d\"", "\"p\"", "\"q\"", "\"dp\"", "\"dq\"", "\"qi\""] {
                #expect(!json.contains(privateMember), "\(privateMember) leaked into \(key.keyType) public JWK")
            }
            #expect(try key.privateJSON().contains("\"d\""))
            #expect(try JWK(json: json).hasPrivateKey == false)
        }
    }

    @Test func privateJSONOfAPublicKeyThrows() throws {
        #expect(throws: CryptoError.invalidKey("JWK has no private part")) {
            try JWK(json: V.ecPublicJWK).privateJSON()
        }
    }

    @Test func privateJSONRoundTripsTheKey() throws {
        let original = try JWK.generateES256(keyID: "round")
        let copy = try JWK(json: original.privateJSON())
        #expect(copy.keyID == "round")
        let token = try JWS.sign(payload: [7], key: copy, algorithm: "ES256")
        #expect(try JWS.verify(token, key: original).payload == [7])
    }

    @Test func p256KeyBecomesTheRFC7515A3JWK() throws {
        let p256 = try P256PrivateKey(rawRepresentation: #require(Base64URL.decode(V.ecD)))
        #expect(p256.publicKey.x963Representation == [4] + Base64URL.decode(V.ecX)! + Base64URL.decode(V.ecY)!)
        let key = try JWK(p256: p256, keyID: "apple-key")
        let json = try key.publicJSON()
        #expect(json.contains(V.ecX) && json.contains(V.ecY))
        #expect(key.keyID == "apple-key")
        #expect(key.hasPrivateKey)
        #expect(try key.privateJSON().contains(V.ecD))
    }

    @Test func weakOrForeignKeysAreRefused() {
        #expect(throws: CryptoError.invalidKey("RSA key shorter than 2048 bits")) { try JWK(json: V.smallRSAJWK) }
        #expect(throws: CryptoError.invalidKey("only EC and RSA keys are supported")) { try JWK(json: V.octJWK) }
        #expect(throws: CryptoError.self) { try JWK.generateRS256(keyID: "weak", bits: 1024) }
        #expect(throws: CryptoError.invalidKey("not a usable JWK")) { try JWK(json: "{\"kty\":\"EC\"}") }
        #expect(throws: CryptoError.invalidKey("not a usable JWK")) { try JWK(json: "not json") }
    }

    @Test func errorMessagesCarryNoKeyMaterial() throws {
        let leaky = #"{"kty":"EC","crv":"P-256","x":"\#(V.ecX)","y":"AAAA","d":"\#(V.ecD)"}"#
        do {
            _ = try JWK(json: leaky)
            Issue.record("a JWK with a bad y was accepted")
        } catch {
            #expect(!error.description.contains(V.ecD))
            #expect(!error.description.contains("\n"))
        }
    }
}
