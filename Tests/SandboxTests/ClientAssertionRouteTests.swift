import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Testing

/// The sandbox's JWT client authentication, checked as RFC 7523 section 3 and OpenID Connect Core 9 say. The
/// assertions are written here claim by claim and signed with AuthCrypto's JWS primitive, never with authdeck's
/// client assertion builder, so a client bug cannot agree with itself. Sent to the revocation endpoint, which
/// answers 200 for any token once the client is authenticated (RFC 7009 2.2).
@Suite struct ClientAssertionRouteTests {
    static let secret = "sandbox-shared-secret-0123456789"
    let key: JWK
    let fixture: SandboxFixture

    init() throws {
        let key = try JWK.generateES256(keyID: "client-key-1")
        self.key = key
        let jwks = "{\"keys\":[" + (try key.publicJSON()) + "]}"
        fixture = try SandboxFixture {
            $0.assertionClients = ["jwt-client": .jwks(jwks), "hs-client": .secret(Self.secret)]
        }
    }

    var revoke: String { fixture.base + "/oidc/generic/revoke" }

    func claims(_ client: String, aud: String? = nil, exp: Double = 120, jti: String = UUID().uuidString)
        -> [UInt8]
    {
        let now = fixture.clock.now
        let object: [String: Any] = [
            "iss": client, "sub": client, "aud": aud ?? revoke, "jti": jti, "iat": Int(now), "exp": Int(now + exp),
        ]
        return Array(try! JSONSerialization.data(withJSONObject: object))
    }

    func send(_ assertion: String, client: String? = nil) throws -> SandboxHTTP.Reply {
        var fields = [
            ("token", "some-token"),
            ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
            ("client_assertion", assertion),
        ]
        if let client { fields.append(("client_id", client)) }
        return try fixture.form("/oidc/generic/revoke", fields)
    }

    @Test func aGoodES256AssertionOnceThenItsReplayRefused() throws {
        let assertion = try JWS.sign(payload: claims("jwt-client", jti: "once"), key: key, algorithm: "ES256")
        #expect(try send(assertion, client: "jwt-client").status == 200)
        let replay = try send(assertion)
        #expect(replay.status == 401 && replay.text.contains("already used"), "\(replay.text)")
    }

    @Test func wrongAudienceExpiryLifetimeKeyAndMissingAssertionAreRefused() throws {
        let other = try JWK.generateES256(keyID: "client-key-1")
        let cases: [(String, String)] = [
            (
                try JWS.sign(
                    payload: claims("jwt-client", aud: "https://elsewhere/token"), key: key, algorithm: "ES256"),
                "aud"
            ),
            (try JWS.sign(payload: claims("jwt-client", exp: -5), key: key, algorithm: "ES256"), "expired"),
            (try JWS.sign(payload: claims("jwt-client", exp: 3600), key: key, algorithm: "ES256"), "lives longer"),
            (try JWS.sign(payload: claims("jwt-client"), key: other, algorithm: "ES256"), "signature"),
            (try JWS.signHS256(payload: claims("jwt-client"), secret: Self.secret), "signature"),
        ]
        for (assertion, why) in cases {
            let answer = try send(assertion)
            #expect(answer.status == 401, "\(why): \(answer.text)")
            #expect(answer.text.contains("invalid_client") && answer.text.contains(why), "\(answer.text)")
        }
        let bare = try fixture.form("/oidc/generic/revoke", [("token", "t"), ("client_id", "jwt-client")])
        #expect(bare.status == 401, "\(bare.text)")
    }

    /// RFC 9126 section 2: at the PAR endpoint an assertion's `aud` may be the issuer, the token endpoint's URL or the
    /// PAR endpoint's; another endpoint's URL (revocation's) is refused there.
    @Test func thePushedEndpointTakesItsOwnTheTokenEndpointsAndTheIssuersAudience() throws {
        let generic = fixture.base + "/oidc/generic"
        for (aud, accepted) in [
            (generic + "/par", true), (generic + "/token", true), (generic, true), (generic + "/revoke", false),
        ] {
            let assertion = try JWS.sign(payload: claims("jwt-client", aud: aud), key: key, algorithm: "ES256")
            let answer = try fixture.form(
                "/oidc/generic/par",
                [
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", assertion), ("response_type", "code"),
                    ("redirect_uri", "http://127.0.0.1:4000/callback"),
                    ("code_challenge", String(repeating: "a", count: 43)),
                    ("code_challenge_method", "S256"), ("scope", "openid"),
                ])
            #expect((answer.status == 201) == accepted, "aud \(aud): \(answer.status) \(answer.text)")
            #expect(accepted || answer.text.contains("aud must be"), "aud \(aud): \(answer.text)")
        }
    }

    @Test func clientSecretJWTWithTheRegisteredSecretOnly() throws {
        let good = try JWS.signHS256(payload: claims("hs-client"), secret: Self.secret)
        #expect(try send(good).status == 200)
        let wrong = try JWS.signHS256(payload: claims("hs-client"), secret: Self.secret + "x")
        #expect(try send(wrong).status == 401)
    }

    @Test func discoveryListsTheMethodsAndAlgorithms() throws {
        let document = try fixture.get("/oidc/generic/.well-known/openid-configuration").text
        #expect(document.contains("private_key_jwt") && document.contains("client_secret_jwt"))
        #expect(document.contains("token_endpoint_auth_signing_alg_values_supported"))
    }
}
