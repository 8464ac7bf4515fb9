// ID tokens, session JWTs and JWKS documents as a provider or a proxy sends them: JWS.verify(_:jwks:),
// JWS.decodeUnverified, JWK(json:) and IDTokenVerifier.verify, all over cjose and jansson.
//
// An input starting with `{` is a key or key set; anything else is a compact token checked against a fixed JWKS
// holding RFC 7515's A.2 RSA and A.3 EC public keys.
import AuthCore
import AuthCrypto
import Foundation

private let rsaModulus =
    "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yR"
    + "T-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXB"
    + "dQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9ia"
    + "GNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
private let ecX = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
private let ecY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
private let ecD = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"

/// Without `kid`s, so RFC 7515's own tokens (which name none) verify; the second EC key has a kid for the ID tokens.
private let fixedJWKS = """
    {"keys":[{"kty":"RSA","n":"\(rsaModulus)","e":"AQAB"},{"kty":"EC","crv":"P-256","x":"\(ecX)","y":"\(ecY)"},\
    {"kty":"EC","crv":"P-256","x":"\(ecX)","y":"\(ecY)","kid":"ec1","alg":"ES256","use":"sig"}]}
    """
private let verifier = IDTokenVerifier(issuer: "https://issuer.example", clientID: "client-1", nonce: "n-0S6_WzA2Mj")
private let now = Date(timeIntervalSince1970: 1_700_000_000)

/// RFC 7515 A.3's ES256 token, checked against the input when the input is a key set.
private let fixedToken =
    "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlL"
    + "mNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-"
    + "Kg6NU1Q"

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { jwsSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if text.hasPrefix("{") {
        checkKey(text)
        // The input as a provider's JWKS, against a token RFC 7515 signed.
        if let verified = try? JWS.verify(fixedToken, jwks: text) {
            invariant(verified.algorithm == "ES256", "a JWKS changed the token's algorithm")
        }
        _ = try? verifier.verify(fixedToken, jwks: text, now: now)
    } else {
        checkToken(text)
    }
}

private func checkToken(_ token: String) {
    let unverified = try? JWS.decodeUnverified(token)
    if let verified = try? JWS.verify(token, jwks: fixedJWKS) {
        // What verification returns is exactly what the token says, and only asymmetric algorithms pass.
        invariant(
            unverified?.header == verified.header && unverified?.payload == verified.payload,
            "verified and unverified decoding disagree")
        invariant(
            ["ES256", "ES384", "RS256", "RS384", "RS512"].contains(verified.algorithm),
            "accepted algorithm \(verified.algorithm)")
    }
    do {
        let claims = try verifier.verify(token, jwks: fixedJWKS, now: now)
        invariant(claims.issuer == verifier.issuer, "accepted issuer \(claims.issuer)")
        invariant(claims.audiences.contains(verifier.clientID), "accepted audiences \(claims.audiences)")
        invariant(claims.nonce == verifier.nonce, "accepted nonce \(claims.nonce ?? "nil")")
        invariant(now.timeIntervalSince(claims.expiresAt) < IDTokenVerifier.allowedSkew, "accepted an expired token")
        invariant(!claims.subject.isEmpty, "accepted an empty subject")
    } catch {
        invariant(isOneLine(error.description), "an ID token error is not one line")
    }
}

/// A key that imports exports a public form that imports again as the same kind of key, without private parts.
private func checkKey(_ json: String) {
    guard let key = try? JWK(json: json) else { return }
    guard let publicJSON = try? key.publicJSON() else {
        invariant(false, "an imported key cannot export its public form")
        return
    }
    let members = try? JSONValue.parse(publicJSON)
    invariant(
        ["d", "p", "q", "dp", "dq", "qi"].allSatisfy { members?[$0] == nil },
        "the public form of a key holds its private part: \(publicJSON)")
    guard let again = try? JWK(json: publicJSON) else {
        invariant(false, "a key's public form does not import: \(publicJSON)")
        return
    }
    invariant(
        again.keyType == key.keyType && again.curve == key.curve && again.keyID == key.keyID,
        "a key changed across export and import")
    invariant(!again.hasPrivateKey, "a public form imported as a private key")
    if key.hasPrivateKey, let privateJSON = try? key.privateJSON() {
        invariant((try? JWK(json: privateJSON))?.hasPrivateKey == true, "a private key lost its private part")
    }
}

private func jwsSeeds() -> [(name: String, bytes: [UInt8])] {
    var seeds: [(String, String)] = [
        ("rfc7515-a3-es256", fixedToken),
        (
            "rfc7515-a2-rs256",
            "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFt"
                + "cGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4"
                + "Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPv"
                + "kSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOY"
                + "EUip"
                + "UTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
        ),
        (
            "rfc7515-a1-hs256",
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsD"
                + "QogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        ),
        ("alg-none", "eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UifQ."),
        ("jwks", fixedJWKS),
        ("jwk-ec-private", #"{"kty":"EC","crv":"P-256","x":"\#(ecX)","y":"\#(ecY)","d":"\#(ecD)","kid":"k"}"#),
        ("jwk-rsa-public", #"{"kty":"RSA","n":"\#(rsaModulus)","e":"AQAB","kid":"r"}"#),
        ("jwk-oct", #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ"}"#),
        (
            "jwks-enc-and-dup",
            #"{"keys":[{"kty":"EC","use":"enc","crv":"P-256","x":"\#(ecX)","y":"\#(ecY)"}],"keys":[]}"#
        ),
    ]
    // ID tokens only the real signer can make: one valid for the verifier, and ones failing each check.
    if let key = try? JWK(json: #"{"kty":"EC","crv":"P-256","x":"\#(ecX)","y":"\#(ecY)","d":"\#(ecD)","kid":"ec1"}"#) {
        let base = #""iss":"https://issuer.example","sub":"user-1","email":"a@example.com""#
        let valid = #""aud":"client-1","nonce":"n-0S6_WzA2Mj""#
        let claims = [
            ("idtoken-valid", #"{\#(base),\#(valid),"exp":1700000600,"iat":1699999990}"#),
            (
                "idtoken-many-aud",
                #"{\#(base),"aud":["client-1","other"],"azp":"client-1","nonce":"n-0S6_WzA2Mj","#
                    + #""exp":1700000600,"iat":1699999990}"#
            ),
            ("idtoken-expired", #"{\#(base),\#(valid),"exp":1600000000,"iat":1599999990}"#),
            ("idtoken-wrong-nonce", #"{\#(base),"aud":"client-1","nonce":"x","exp":1700000600,"iat":1699999990}"#),
        ]
        for (name, payload) in claims {
            if let token = try? JWS.sign(payload: Array(payload.utf8), key: key, algorithm: "ES256") {
                seeds.append((name, token))
            }
        }
    }
    return seeds.map { ($0.0, Array($0.1.utf8)) }
}
