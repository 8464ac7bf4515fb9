import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Testing

/// The sandbox's end-session endpoint held to OpenID Connect RP-Initiated Logout 1.0: an ID token it issued
/// (`iss`, signature), a `client_id` among its `aud`, a post-logout URI registered exactly, the state returned
/// unchanged; any other request is a page, never a redirect.
@Suite struct EndSessionRouteTests {
    static let registered = "http://127.0.0.1:5998/logout"

    func signedIn() throws -> (SandboxFixture, idToken: String, accessToken: String) {
        let sandbox = try SandboxFixture { $0.postLogoutRedirectURIs = [Self.registered] }
        let reply = try sandbox.exchange("generic", try sandbox.approve("generic"))
        return (
            sandbox, try #require(reply.string("id_token")), try #require(reply.string("access_token"))
        )
    }

    func endSession(_ sandbox: SandboxFixture, _ parameters: [(String, String)]) throws -> SandboxHTTP.Reply {
        try sandbox.get("/oidc/generic/end_session?" + FormEncoding.encode(parameters))
    }

    @Test func aValidRequestEndsTheTokensAndReturnsTheStateToTheRegisteredAddress() throws {
        let (sandbox, idToken, accessToken) = try signedIn()
        let discovery = try sandbox.get("/oidc/generic/.well-known/openid-configuration")
        #expect(discovery.string("end_session_endpoint") == sandbox.base + "/oidc/generic/end_session")
        let user = ["Authorization": "Bearer " + accessToken]
        #expect(try sandbox.get("/oidc/generic/userinfo", headers: user).status == 200)
        let reply = try endSession(
            sandbox,
            [
                ("id_token_hint", idToken), ("client_id", "test-client"),
                ("post_logout_redirect_uri", Self.registered), ("state", "s t&ate"),
            ])
        #expect(reply.status == 302)
        #expect(reply.headers["location"] == Self.registered + "?state=s%20t%26ate")
        #expect(try sandbox.get("/oidc/generic/userinfo", headers: user).status == 401)
    }

    @Test func requestsThatCannotBeConfirmedAreRefusedWithoutARedirect() throws {
        let (sandbox, idToken, _) = try signedIn()
        let key = try JWK.generateES256(keyID: "someone-else")
        let claims = try #require(
            try JSONSerialization.jsonObject(with: Data(try JWS.decodeUnverified(idToken).payload)) as? [String: Any])
        let forged = try JWS.sign(
            payload: Array(try JSONSerialization.data(withJSONObject: claims)), key: key, algorithm: "ES256")
        let cases: [[(String, String)]] = [
            [("post_logout_redirect_uri", Self.registered), ("state", "s")],
            [("id_token_hint", forged), ("post_logout_redirect_uri", Self.registered)],
            [
                ("id_token_hint", idToken), ("client_id", "another-client"),
                ("post_logout_redirect_uri", Self.registered),
            ],
            [("id_token_hint", idToken), ("post_logout_redirect_uri", "http://127.0.0.1:5997/logout")],
            [("id_token_hint", idToken), ("post_logout_redirect_uri", Self.registered + "/")],
        ]
        for parameters in cases {
            let reply = try endSession(sandbox, parameters)
            #expect(reply.status == 400, "\(parameters.map(\.0))")
            #expect(reply.headers["location"] == nil)
        }
    }
}
