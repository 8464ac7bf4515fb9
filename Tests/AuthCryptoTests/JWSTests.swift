import Testing

@testable import AuthCrypto

/// JWS verification: RFC 7515 A.2 and A.3, tampering anywhere, refused algorithms, JWKS key choice, signing.
struct JWSTests {
    typealias V = JOSEVectors

    @Test func rfc7515A2RS256Verifies() throws {
        let verified = try JWS.verify(V.rs256Token, key: JWK(json: V.rsaPublicJWK))
        #expect(verified.payload == V.payload)
        #expect(verified.header == Array(#"{"alg":"RS256"}"#.utf8))
        #expect(verified.algorithm == "RS256")
        #expect(verified.keyID == nil)
    }

    @Test func rfc7515A3ES256Verifies() throws {
        let verified = try JWS.verify(V.es256Token, key: JWK(json: V.ecPublicJWK))
        #expect(verified.payload == V.payload)
        #expect(verified.header == Array(#"{"alg":"ES256"}"#.utf8))
        #expect(verified.algorithm == "ES256")
    }

    @Test(arguments: [(0, 3), (0, 10), (1, 0), (1, 40), (1, 93), (2, 0), (2, 20), (2, 341)])
    func rs256WithOneCharacterChangedIsRejected(segment: Int, index: Int) throws {
        try Self.expectRejected(V.rs256Token, changedIn: segment, at: index, key: JWK(json: V.rsaPublicJWK))
    }

    @Test(arguments: [(0, 3), (0, 10), (1, 0), (1, 40), (1, 93), (2, 0), (2, 30), (2, 85)])
    func es256WithOneCharacterChangedIsRejected(segment: Int, index: Int) throws {
        try Self.expectRejected(V.es256Token, changedIn: segment, at: index, key: JWK(json: V.ecPublicJWK))
    }

    /// `token` with the character at `index` of `segment` changed no longer verifies with `key`.
    static func expectRejected(_ token: String, changedIn segment: Int, at index: Int, key: JWK) {
        let tampered = V.changing(token, segment: segment, at: index)
        #expect(tampered != token)
        #expect(throws: CryptoError.self) { try JWS.verify(tampered, key: key) }
    }

    @Test func flippedSignatureBitIsAnInvalidSignature() throws {
        let cases = [(V.rs256Token, try JWK(json: V.rsaPublicJWK)), (V.es256Token, try JWK(json: V.ecPublicJWK))]
        for (token, key) in cases {
            var parts = token.split(separator: ".").map(String.init)
            let signature = try #require(Base64URL.decode(parts[2]))
            parts[2] = Base64URL.encode(flippingBit(signature, at: signature.count / 2))
            #expect(throws: CryptoError.invalidSignature) { try JWS.verify(parts.joined(separator: "."), key: key) }
        }
    }

    @Test func changedPayloadIsAnInvalidSignature() throws {
        let otherPayload = Base64URL.encode(Array(#"{"iss":"joe","exp":9999999999}"#.utf8))
        let token = "\(V.es256Header).\(otherPayload).\(V.es256Signature)"
        #expect(throws: CryptoError.invalidSignature) { try JWS.verify(token, key: JWK(json: V.ecPublicJWK)) }
    }

    @Test func algNoneIsRefused() throws {
        let key = try JWK(json: V.ecPublicJWK)
        let unsigned = "eyJhbGciOiJub25lIn0.\(V.payloadSegment)."
        #expect(throws: CryptoError.self) { try JWS.verify(unsigned, key: key) }
        let withSignature = V.replacingHeader(V.es256Token, with: #"{"alg":"none"}"#)
        #expect(throws: CryptoError.malformedInput(#"unsupported JWS algorithm "none""#)) {
            try JWS.verify(withSignature, key: key)
        }
        #expect(throws: CryptoError.self) {
            try JWS.verify(unsigned, jwks: #"{"keys":[\#(V.ecPublicJWK)]}"#)
        }
    }

    @Test func hmacTokensAndKeysAreRefused() throws {
        #expect(throws: CryptoError.malformedInput(#"unsupported JWS algorithm "HS256""#)) {
            try JWS.verify(V.hs256Token, key: JWK(json: V.rsaPublicJWK))
        }
        #expect(throws: CryptoError.invalidKey("only EC and RSA keys are supported")) { try JWK(json: V.octJWK) }
        // An RSA public key published in a JWKS must not become an HMAC secret (the classic confusion attack).
        let confused = V.replacingHeader(V.rs256Token, with: #"{"alg":"HS256"}"#)
        #expect(throws: CryptoError.self) { try JWS.verify(confused, jwks: #"{"keys":[\#(V.rsaPublicJWK)]}"#) }
    }

    @Test func algorithmMustFitTheKeyType() throws {
        #expect(throws: CryptoError.invalidKey("RS256 token does not fit a EC key")) {
            try JWS.verify(V.rs256Token, key: JWK(json: V.ecPublicJWK))
        }
        #expect(throws: CryptoError.invalidKey("ES256 token does not fit a RSA key")) {
            try JWS.verify(V.es256Token, key: JWK(json: V.rsaPublicJWK))
        }
        let relabelled = V.replacingHeader(V.es256Token, with: #"{"alg":"ES384"}"#)
        #expect(throws: CryptoError.self) { try JWS.verify(relabelled, key: JWK(json: V.ecPublicJWK)) }
    }

    @Test func critExtensionsAreRefused() throws {
        let key = try JWK.generateES256(keyID: "k")
        let token = try JWS.sign(payload: [1], key: key, algorithm: "ES256")
        let withCrit = V.replacingHeader(token, with: #"{"alg":"ES256","crit":["exp"],"exp":1}"#)
        #expect(throws: CryptoError.malformedInput("JWS uses crit extensions")) { try JWS.verify(withCrit, key: key) }
    }

    @Test func malformedTokensAreRefused() throws {
        let key = try JWK(json: V.ecPublicJWK)
        for token in [
            "", "a.b", "a.b.c.d", ".\(V.payloadSegment).\(V.es256Signature)",
            "\(V.es256Header)=.\(V.payloadSegment).\(V.es256Signature)",
            "\(V.es256Header).\(V.payloadSegment).\(V.es256Signature.dropLast(2))",
            V.replacingHeader(V.es256Token, with: #"{"alg":"ES256","alg":"none"}"#),
            V.replacingHeader(V.es256Token, with: "[1]"),
        ] {
            #expect(throws: CryptoError.self) { try JWS.verify(token, key: key) }
        }
    }

    @Test(arguments: ["ES256", "RS256"])
    func signedTokensVerifyWithThePublishedKey(algorithm: String) throws {
        let key =
            algorithm == "ES256"
            ? try JWK.generateES256(keyID: "sandbox-1") : try JWK.generateRS256(keyID: "sandbox-1")
        let payload = Array(#"{"sub":"alice","nonce":"n-0S6_WzA2Mj"}"#.utf8)
        let token = try JWS.sign(payload: payload, key: key, algorithm: algorithm)
        let published = try JWK(json: key.publicJSON())
        let verified = try JWS.verify(token, key: published)
        #expect(verified.payload == payload)
        #expect(verified.keyID == "sandbox-1")
        #expect(verified.algorithm == algorithm)
        #expect(verified.header == Array(#"{"alg":"\#(algorithm)","kid":"sandbox-1","typ":"JWT"}"#.utf8))

        let stranger = algorithm == "ES256" ? try JWK.generateES256(keyID: "x") : try JWK.generateRS256(keyID: "x")
        #expect(throws: CryptoError.invalidSignature) { try JWS.verify(token, key: stranger) }
    }

    @Test func signingRefusesMismatchesAndPublicKeys() throws {
        let ec = try JWK.generateES256(keyID: "e")
        #expect(throws: CryptoError.self) { try JWS.sign(payload: [1], key: ec, algorithm: "RS256") }
        #expect(throws: CryptoError.self) { try JWS.sign(payload: [1], key: ec, algorithm: "HS256") }
        #expect(throws: CryptoError.self) { try JWS.sign(payload: [1], key: ec, algorithm: "none") }
        #expect(throws: CryptoError.invalidKey("signing needs a private key")) {
            try JWS.sign(payload: [1], key: JWK(json: V.ecPublicJWK), algorithm: "ES256")
        }
    }

    @Test func emptyPayloadAndNoTypeSignAndVerify() throws {
        let key = try JWK.generateES256(keyID: "e")
        let token = try JWS.sign(payload: [], key: key, algorithm: "ES256", type: nil)
        let verified = try JWS.verify(token, key: key)
        #expect(verified.payload == [])
        #expect(verified.header == Array(#"{"alg":"ES256","kid":"e"}"#.utf8))
    }

    @Test func es256SignaturesAreRawRS() throws {
        let p256 = try P256PrivateKey()
        let key = try JWK(p256: p256, keyID: nil)
        for _ in 0..<64 {
            let token = try JWS.sign(payload: Array("turnkey".utf8), key: key, algorithm: "ES256")
            let parts = token.split(separator: ".")
            let signature = try #require(Base64URL.decode(String(parts[2])))
            #expect(signature.count == 64)
            #expect(p256.publicKey.isValidSignature(signature, for: Array("\(parts[0]).\(parts[1])".utf8)))
        }
    }

    static let jwks = """
        {"keys":[
          {"kty":"oct","kid":"2010-12-29","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ"},
          {"kty":"EC","crv":"P-256","use":"enc","kid":"enc-1","x":"\(V.ecX)","y":"\(V.ecY)"},
          {"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
          {"kty":"RSA","kid":"2010-12-29","alg":"RS256","use":"sig","n":"\(V.rsaModulus)","e":"AQAB"},
          {"kty":"EC","crv":"P-256","kid":"e9bc097a-ce51-4036-9562-d2ade882db0d","x":"\(V.ecX)","y":"\(V.ecY)"}
        ]}
        """

    @Test func jwksPicksTheKeyByKid() throws {
        let rsa = V.replacingHeader(V.rs256Token, with: #"{"alg":"RS256","kid":"2010-12-29"}"#)
        // The header changed, so the RFC signature no longer fits: the right key is found, the signature fails.
        #expect(throws: CryptoError.invalidSignature) { try JWS.verify(rsa, jwks: Self.jwks) }

        let signer = try JWK.generateRS256(keyID: "rotated-2")
        let token = try JWS.sign(payload: V.payload, key: signer, algorithm: "RS256")
        #expect(throws: CryptoError.invalidKey(#"no key with kid "rotated-2" for RS256"#)) {
            try JWS.verify(token, jwks: Self.jwks)
        }
        #expect(CryptoError.invalidKey(#"no key with kid "rotated-2" for RS256"#).isUnknownKeyID)
        #expect(!CryptoError.invalidSignature.isUnknownKeyID)
        let refreshed = #"{"keys":[\#(V.rsaPublicJWK),\#(try signer.publicJSON())]}"#
        #expect(try JWS.verify(token, jwks: refreshed).keyID == "rotated-2")
    }

    @Test func jwksWithoutKidTriesKeysOfTheRightType() throws {
        #expect(try JWS.verify(V.es256Token, jwks: Self.jwks).payload == V.payload)
        #expect(try JWS.verify(V.rs256Token, jwks: Self.jwks).payload == V.payload)
        #expect(throws: CryptoError.invalidKey(#"no key with kid (none) for ES256"#)) {
            try JWS.verify(V.es256Token, jwks: #"{"keys":[\#(V.rsaPublicJWK)]}"#)
        }
    }

    /// The OpenID relying-party test "kid absent, several keys in the JWKS": the RFC 7515 A.2 token names no kid,
    /// and with two RSA keys published it is refused as ambiguous (not tried against each), while the same key
    /// alone, or beside keys of another type, verifies it.
    @Test func jwksWithoutKidAndSeveralFittingKeysIsRefused() throws {
        let other = try JWK.generateRS256(keyID: "other").publicJSON()
        let two = #"{"keys":[\#(other),\#(V.rsaPublicJWK)]}"#
        #expect(throws: CryptoError.invalidKey("the token names no kid and the JWKS has 2 keys for RS256")) {
            try JWS.verify(V.rs256Token, jwks: two)
        }
        #expect(!CryptoError.invalidKey("the token names no kid and the JWKS has 2 keys for RS256").isUnknownKeyID)
        #expect(try JWS.verify(V.rs256Token, jwks: #"{"keys":[\#(V.rsaPublicJWK),\#(V.ecPublicJWK)]}"#).keyID == nil)
    }

    @Test func jwksKeyPinnedToAnotherAlgorithmIsSkipped() throws {
        let pinned = #"{"keys":[{"kty":"RSA","alg":"RS512","n":"\#(V.rsaModulus)","e":"AQAB"}]}"#
        #expect(throws: CryptoError.self) { try JWS.verify(V.rs256Token, jwks: pinned) }
    }

    @Test func malformedJWKSIsRefused() {
        for document in ["", "[]", #"{"keys":{}}"#, #"{"keys":[],"keys":[]}"#] {
            #expect(throws: CryptoError.self) { try JWS.verify(V.es256Token, jwks: document) }
        }
    }

    @Test func decodeUnverifiedShowsHeaderAndPayload() throws {
        let decoded = try JWS.decodeUnverified(V.rs256Token)
        #expect(decoded.header == Array(#"{"alg":"RS256"}"#.utf8))
        #expect(decoded.payload == V.payload)
        #expect(throws: CryptoError.self) { try JWS.decodeUnverified("only.two") }
        #expect(throws: CryptoError.self) { try JWS.decodeUnverified("a+b.c.d") }
    }

    @Test func oneKeyVerifiesFromManyTasksAtOnce() async throws {
        let key = try JWK.generateES256(keyID: "shared")
        let token = try JWS.sign(payload: Array("concurrent".utf8), key: key, algorithm: "ES256")
        let failures = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var failed = 0
                    for _ in 0..<50 {
                        if (try? JWS.verify(token, key: key).payload) != Array("concurrent".utf8) { failed += 1 }
                        if (try? JWS.sign(payload: [1, 2], key: key, algorithm: "ES256")) == nil { failed += 1 }
                    }
                    return failed
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
