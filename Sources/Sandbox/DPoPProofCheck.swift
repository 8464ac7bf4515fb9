import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP

/// The sandbox's check of a DPoP proof, step by step as RFC 9449 section 4.3 lists them for a server, with the key's
/// thumbprint made as RFC 7638 section 3 says. Written from those texts, never from authdeck's client code.
struct DPoPProofCheck {
    /// A proof that passed: the RFC 7638 thumbprint of its key, and its claims.
    struct Verified {
        let jkt: String
        let jti: String
        let nonce: String?
    }

    /// How far `iat` may be from the sandbox's clock (4.3 step 11: "within an acceptable window").
    static let iatWindow: Int64 = 60

    /// Checks the request's one `DPoP` header for `method` at `url`; with `accessToken`, its `ath` too.
    /// - Returns: nil when the request carries no proof.
    static func verify(
        _ request: HTTPRequest, url: String, accessToken: String? = nil, now: Int64
    ) throws(OAuthError) -> Verified? {
        guard let proof = request.headers["dpop"] else { return nil }
        // Step 1: one header (the server joins repeated ones with a comma, which no compact JWS holds).
        guard !proof.contains(","), !proof.contains(" ") else { throw invalid("send exactly one DPoP header") }
        // Step 2: a well-formed JWT.
        guard let parts = try? JWS.decodeUnverified(proof), let header = JSONText.object(parts.header),
            let claims = JSONText.object(parts.payload)
        else {
            throw invalid("the DPoP proof is not a JWT")
        }
        // Step 4: typ dpop+jwt.
        guard header["typ"] as? String == "dpop+jwt" else { throw invalid("the DPoP proof's typ is not dpop+jwt") }
        // Step 5: an asymmetric algorithm the sandbox supports.
        guard let algorithm = header["alg"] as? String, ["ES256", "ES384", "RS256"].contains(algorithm) else {
            throw invalid("the DPoP proof's alg is not an asymmetric one the sandbox takes (ES256, ES384, RS256)")
        }
        // Step 7: the jwk is a public key: no private members.
        guard let jwk = header["jwk"] as? [String: Any] else { throw invalid("the DPoP proof has no jwk header") }
        guard ["d", "p", "q", "dp", "dq", "qi", "k"].allSatisfy({ jwk[$0] == nil }) else {
            throw invalid("the DPoP proof's jwk holds a private key")
        }
        // Step 6: the signature verifies with that key.
        guard let key = try? JWK(json: String(decoding: JSONText.encode(jwk), as: UTF8.self)),
            (try? JWS.verify(proof, key: key)) != nil
        else {
            throw invalid("the DPoP proof's signature does not verify with its jwk")
        }
        // Step 3: the required claims.
        guard let jti = claims["jti"] as? String, !jti.isEmpty, let htm = claims["htm"] as? String,
            let htu = claims["htu"] as? String, let iat = (claims["iat"] as? NSNumber)?.int64Value
        else {
            throw invalid("the DPoP proof lacks jti, htm, htu or iat")
        }
        // Step 8: htm is the request's method; step 9: htu its URI without query and fragment.
        guard htm == request.method else { throw invalid("the DPoP proof's htm is not \(request.method)") }
        guard htu.split(separator: "?", maxSplits: 1)[0].split(separator: "#", maxSplits: 1)[0] == url else {
            throw invalid("the DPoP proof's htu is not \(url)")
        }
        // Step 11: created recently.
        guard abs(iat - now) <= iatWindow else { throw invalid("the DPoP proof's iat is not within 60 s of now") }
        // Step 12: ath is the base64url SHA-256 of the access token the request presents.
        if let accessToken {
            guard claims["ath"] as? String == Base64URL.encode(SHA256.hash(Array(accessToken.utf8))) else {
                throw invalid("the DPoP proof's ath is not the hash of the access token")
            }
        }
        guard let jkt = thumbprint(jwk) else { throw invalid("the DPoP proof's jwk has no thumbprint") }
        return Verified(jkt: jkt, jti: jti, nonce: claims["nonce"] as? String)
    }

    /// RFC 7638 3.2: the required members of the key type in lexicographic order, no whitespace, hashed with SHA-256
    /// (3.1) and base64url-encoded.
    static func thumbprint(_ jwk: [String: Any]) -> String? {
        let required: [String]
        switch jwk["kty"] as? String {
        case "EC": required = ["crv", "kty", "x", "y"]
        case "RSA": required = ["e", "kty", "n"]
        default: return nil
        }
        var members: [String] = []
        for name in required {
            guard let value = jwk[name] as? String,
                value.unicodeScalars.allSatisfy({ $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 })
            else { return nil }
            members.append("\"\(name)\":\"\(value)\"")
        }
        return Base64URL.encode(SHA256.hash(Array(("{" + members.joined(separator: ",") + "}").utf8)))
    }

    /// RFC 9449 section 12.2's error for a bad proof.
    static func invalid(_ description: String) -> OAuthError {
        OAuthError(status: 400, code: "invalid_dpop_proof", description: description)
    }
}
