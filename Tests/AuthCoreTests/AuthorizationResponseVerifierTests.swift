import AuthCore
import AuthCrypto
import Foundation
import TestSupport
import Testing

/// JWT-secured authorization responses (JARM section 4.4): the signature by the issuer's key, `iss` the issuer,
/// `aud` this client and `exp` not passed are each required; what passes comes out as the response's parameters
/// and nothing of the JWT's own claims.
@Suite struct AuthorizationResponseVerifierTests {
    static let issuerKey = mustMake("a P-256 key") { try JWK.generateES256(keyID: "issuer-1") }
    let issuer = "https://issuer.example"
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var jwks: String { "{\"keys\":[" + ((try? Self.issuerKey.publicJSON()) ?? "") + "]}" }
    let verifier = AuthorizationResponseVerifier(issuer: "https://issuer.example", clientID: "client-1")

    func response(_ changes: [String: Any] = [:], key: JWK = issuerKey) throws -> String {
        var claims: [String: Any] = [
            "iss": issuer, "aud": "client-1", "exp": Int(now.timeIntervalSince1970) + 600, "code": "the-code",
            "state": "the-state",
        ]
        claims.merge(changes) { $1 }
        let payload = try JSONSerialization.data(withJSONObject: claims)
        return try JWS.sign(payload: Array(payload), key: key, algorithm: "ES256")
    }

    @Test func aGoodResponseGivesItsParametersOnly() throws {
        let pairs = try verifier.parameters(of: try response(), jwks: jwks, now: now)
        #expect(
            Dictionary(pairs, uniquingKeysWith: { $1 }) == ["code": "the-code", "state": "the-state", "iss": issuer])
    }

    @Test func eachBrokenRuleIsRefused() throws {
        let other = try JWK.generateES256(keyID: "issuer-1")
        let broken: [(String, String)] = [
            (try response(key: other), "signature"),
            (try response(["iss": "https://elsewhere.example"]), "wrong issuer"),
            (try response(["aud": "client-2"]), "wrong audience"),
            (try response(["exp": Int(now.timeIntervalSince1970) - 61]), "expired"),
            (try response(["exp": "soon"]), "no expiry"),
        ]
        for (token, reason) in broken {
            #expect(throws: IDTokenFailure.self) { try verifier.parameters(of: token, jwks: jwks, now: now) }
            do {
                _ = try verifier.parameters(of: token, jwks: jwks, now: now)
            } catch {
                #expect(error.description.contains(reason), "\(error.description) for \(reason)")
            }
        }
    }
}
