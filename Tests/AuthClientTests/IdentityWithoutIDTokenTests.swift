import AuthClient
import AuthCore
import Foundation
import Testing

/// Grants that bring no ID token (the device grant, plain OAuth): the identity comes from UserInfo; when none can be
/// established, what the provider issued is revoked before the sign-in fails, and the error says so.
@Suite struct IdentityWithoutIDTokenTests {
    static let tokens = #"{"access_token":"at-1","refresh_token":"rt-1","token_type":"Bearer","expires_in":600}"#

    func backend(_ transport: ScriptedTransport, userinfo: String?, revocation: String?) -> DirectSignIn {
        let preset = ProviderPreset(
            name: "oidc", kind: .oidc, scopes: ["openid"],
            idToken: true)
        let endpoints = ProviderEndpoints(
            issuer: "https://idp.test", authorization: "https://idp.test/authorize",
            token: "https://idp.test/token", jwks: "https://idp.test/jwks",
            userinfo: userinfo, revocation: revocation)
        let resolved = ResolvedProvider(
            preset: preset, clientID: "cli", authentication: .basic("sec"),
            scopes: ["openid"], endpoints: endpoints)
        return DirectSignIn(
            provider: resolved, request: SignInRequest(provider: "oidc", backendName: "direct"),
            transport: transport, metadata: ProviderMetadataCache(transport: transport, folder: nil))
    }

    func attempt() -> Attempt {
        Attempt(
            id: AttemptID(1), backend: "direct", provider: "oidc",
            method: .browser(redirectURI: "http://127.0.0.1:8765/callback"), state: "s", codeVerifier: "v",
            nonce: "n", deadline: Date().addingTimeInterval(60))
    }

    @Test func identityFromUserInfo() throws {
        let transport = ScriptedTransport([
            "https://idp.test/token": (200, Self.tokens),
            "https://idp.test/userinfo": (200, #"{"sub":"u-9","email":"eve@example.org","name":"Eve"}"#),
        ])
        let answer = try backend(transport, userinfo: "https://idp.test/userinfo", revocation: nil)
            .exchange(attempt(), .authorizationCode("c"))
        guard case .issued(let issued) = answer else {
            Issue.record("no session")
            return
        }
        #expect(issued.session.record.subject == "u-9")
        #expect(issued.session.record.email == "eve@example.org")
        #expect(issued.session.secrets.endpoints?.tokenAuthMethod == "client_secret_basic")
    }

    @Test func noIdentityRevokesWhatWasIssued() throws {
        let transport = ScriptedTransport([
            "https://idp.test/token": (200, Self.tokens),
            "https://idp.test/userinfo": (503, "<html>down</html>"),
            "https://idp.test/revoke": (200, ""),
        ])
        do {
            _ = try backend(transport, userinfo: "https://idp.test/userinfo", revocation: "https://idp.test/revoke")
                .exchange(attempt(), .authorizationCode("c"))
            Issue.record("signed in without an identity")
        } catch {
            #expect(error.message.contains("the provider sent no ID token"))
            #expect(error.message.contains("the tokens the provider issued were revoked"))
        }
        let revocations = transport.requests.filter { $0.url == "https://idp.test/revoke" }
        #expect(revocations.map { ScriptedTransport.form($0)["token"] } == ["rt-1", "at-1"])
        #expect(revocations.allSatisfy { ScriptedTransport.header($0, "Authorization")?.hasPrefix("Basic ") == true })
    }

    @Test func aFailedRevocationIsNamedToo() throws {
        let transport = ScriptedTransport([
            "https://idp.test/token": (200, Self.tokens),
            "https://idp.test/revoke": (401, #"{"error":"invalid_client"}"#),
        ])
        do {
            _ = try backend(transport, userinfo: nil, revocation: "https://idp.test/revoke")
                .exchange(attempt(), .authorizationCode("c"))
            Issue.record("signed in without an identity")
        } catch {
            #expect(error.message.contains("could not be revoked"))
            #expect(error.message.contains("the provider refused: 401 invalid_client"))
        }
    }
}
