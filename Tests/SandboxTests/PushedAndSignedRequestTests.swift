import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import TestSupport
import Testing

/// The sandbox's pushed authorization requests (RFC 9126), request objects (RFC 9101) and JWT-secured responses
/// (JARM), driven by hand-built HTTP requests: each expected verdict is the RFC's.
@Suite struct PushedAndSignedRequestTests {
    /// The client's own key, registered with the sandbox as its request-object key.
    static let clientKey = mustMake("a P-256 key") { try JWK.generateES256(keyID: "client-1") }

    let sandbox: SandboxFixture
    var issuer: String { sandbox.base + "/oidc/generic" }
    let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))

    init() throws {
        let jwks = "{\"keys\":[" + (try Self.clientKey.publicJSON()) + "]}"
        sandbox = try SandboxFixture { $0.requestObjectKeys = ["test-client": jwks] }
    }

    /// The authorization parameters of RFC 6749 4.1.1 and RFC 7636, as a client sends them.
    var parameters: [(String, String)] {
        [
            ("response_type", "code"), ("client_id", "test-client"), ("redirect_uri", SandboxFixture.loopback),
            ("scope", "openid email"), ("state", "state-9"), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]
    }

    /// A request object as RFC 9101 section 4 shapes it, with `changes` over the right claims.
    func requestObject(_ changes: [String: Any] = [:], key: JWK = clientKey) throws -> String {
        var claims: [String: Any] = Dictionary(parameters, uniquingKeysWith: { $1 })
        let now = Int(sandbox.clock.now)
        claims.merge(["iss": "test-client", "aud": issuer, "iat": now, "nbf": now, "exp": now + 300]) { $1 }
        claims.merge(changes) { $1 }
        let payload = try JSONSerialization.data(withJSONObject: claims)
        return try JWS.sign(payload: Array(payload), key: key, algorithm: "ES256", type: "oauth-authz-req+jwt")
    }

    let scripted = [("sandbox_user", "ada"), ("sandbox_auto", "approve")]

    @Test func aRequestObjectByValueIsTheRequest() throws {
        let object = try requestObject()
        let reply = try sandbox.get(
            "/oidc/generic/authorize?"
                + FormEncoding.encode([("client_id", "test-client"), ("request", object)] + scripted))
        #expect(reply.status == 302, "\(reply.text)")
        #expect(reply.locationQuery["code"] != nil && reply.locationQuery["state"] == "state-9")
    }

    @Test func requestObjectsTheRFCRefusesAreShownAsAPageAndNeverRedirected() throws {
        let other = try JWK.generateES256(keyID: "other")
        let refused = [
            try requestObject(key: other), try requestObject(["aud": "https://elsewhere.example"]),
            try requestObject(["iss": "another-client"]), try requestObject(["exp": Int(sandbox.clock.now) - 10]),
            try requestObject(["client_id": "another-client"]),
        ]
        for object in refused {
            let reply = try sandbox.get(
                "/oidc/generic/authorize?"
                    + FormEncoding.encode([("client_id", "test-client"), ("request", object)] + scripted))
            #expect(reply.status == 400 && reply.headers["location"] == nil, "\(reply.text)")
        }
        // A client with no registered key cannot send request objects at all.
        let stranger = try sandbox.get(
            "/oidc/generic/authorize?"
                + FormEncoding.encode([("client_id", "other-client"), ("request", try requestObject())] + scripted))
        #expect(stranger.status == 400)
    }

    @Test func aPushedRequestIsUsedOnceByItsClientBeforeItExpires() throws {
        let pushed = try sandbox.form("/oidc/generic/par", parameters)
        #expect(pushed.status == 201, "\(pushed.text)")
        let requestURI = try #require(pushed.string("request_uri"))
        #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
        #expect(pushed.json["expires_in"] as? Int == 90)
        let target =
            "/oidc/generic/authorize?"
            + FormEncoding.encode([("client_id", "test-client"), ("request_uri", requestURI)] + scripted)
        let otherClient = target.replacingOccurrences(of: "client_id=test-client", with: "client_id=other-client")
        #expect(try sandbox.get(otherClient).status == 400)
        let reply = try sandbox.get(target)
        #expect(reply.status == 302 && reply.locationQuery["state"] == "state-9", "\(reply.text)")
        #expect(try sandbox.get(target).status == 400)

        let late = try #require(try sandbox.form("/oidc/generic/par", parameters).string("request_uri"))
        sandbox.clock.advance(by: 91)
        let expired = try sandbox.get(
            "/oidc/generic/authorize?"
                + FormEncoding.encode([("client_id", "test-client"), ("request_uri", late)] + scripted))
        #expect(expired.status == 302 && expired.locationQuery["error"] == "invalid_request_uri", "\(expired.text)")
        #expect(expired.locationQuery["state"] == "state-9")
    }

    @Test func thePushEndpointTakesARequestObjectButNoRequestURI() throws {
        let pushed = try sandbox.form(
            "/oidc/generic/par", [("client_id", "test-client"), ("request", try requestObject())])
        #expect(pushed.status == 201, "\(pushed.text)")
        let nested = try sandbox.form("/oidc/generic/par", parameters + [("request_uri", "urn:x")])
        #expect(nested.status == 400 && nested.string("error") == "invalid_request")
        let forged = try sandbox.form(
            "/oidc/generic/par", [("client_id", "test-client"), ("request", try requestObject(["aud": "x"]))])
        #expect(forged.status == 400 && forged.string("error") == "invalid_request_object")
    }

    @Test func aJWTResponseCarriesTheParametersSignedForTheClient() throws {
        let reply = try sandbox.get(
            "/oidc/generic/authorize?" + FormEncoding.encode(parameters + [("response_mode", "jwt")] + scripted))
        #expect(reply.status == 302)
        #expect(Set(reply.locationQuery.keys) == ["response"])
        let verified = try JWS.verify(try #require(reply.locationQuery["response"]), jwks: try sandbox.jwks)
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
        #expect(claims["iss"] as? String == issuer && claims["aud"] as? String == "test-client")
        #expect(claims["state"] as? String == "state-9" && claims["code"] is String)
        #expect(claims["exp"] as? Int == Int(sandbox.clock.now) + 600)
    }
}
