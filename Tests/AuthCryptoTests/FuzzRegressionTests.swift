import Testing

@testable import AuthCrypto

/// Inputs `make fuzz` found crashing AuthCrypto, kept so they stay harmless.
struct FuzzRegressionTests {
    typealias V = JOSEVectors

    /// A `=` after 4n+1 symbols of a key member made cjose's base64url decoder assert and abort the process.
    static let paddedModulus = "ofgWC=" + V.rsaModulus.dropFirst(6)

    @Test func keyWithAMisplacedPaddingCharacterIsRefused() {
        #expect(throws: CryptoError.invalidKey("not a usable JWK")) {
            try JWK(json: #"{"kty":"RSA","n":"\#(Self.paddedModulus)","e":"AQAB"}"#)
        }
        #expect(throws: CryptoError.invalidKey("not a usable JWK")) {
            try JWK(json: #"{"kty":"EC","crv":"P-256","x":"f=\#(V.ecX.dropFirst(2))","y":"\#(V.ecY)"}"#)
        }
    }

    @Test func keySetEntryWithAMisplacedPaddingCharacterIsSkipped() throws {
        let jwks = #"{"keys":[{"kty":"RSA","n":"\#(Self.paddedModulus)","e":"AQAB"},\#(V.ecPublicJWK)]}"#
        #expect(try JWS.keys(in: jwks).map(\.key.keyType) == ["EC"])
        #expect(try JWS.verify(V.es256Token, jwks: jwks).algorithm == "ES256")
    }

    /// The exact input the fuzzer saved, a mutated RFC 7515 A.2 key.
    @Test func savedFuzzerInputIsRefused() {
        let json =
            #"{"kty":"RSA","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2"#
            + #"mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVM"#
            + #"TBQY4uDZlxvb6qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8N=co9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4"#
            + #"FRWyuXpoQ","e":"AQAB","kid":"r"}"#
        #expect(throws: CryptoError.invalidKey("not a usable JWK")) { try JWK(json: json) }
    }
}
