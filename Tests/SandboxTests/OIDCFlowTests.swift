import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import TestSupport
import Testing

@Suite struct OIDCFlowTests {
    @Test(arguments: ["google", "apple", "discord", "x", "generic"])
    func authorizationCodeFlowWithPKCE(profile: String) throws {
        let sandbox = try SandboxFixture()
        let grant = try sandbox.approve(profile, nonce: "n-\(profile)")
        #expect(grant.state == "state-1")
        let reply = try sandbox.exchange(profile, grant)
        #expect(reply.status == 200, "\(reply.text)")
        let accessToken = try #require(reply.string("access_token"))
        #expect(reply.string("token_type") == "Bearer")
        #expect(reply.json["expires_in"] as? Int == 3600)
        #expect(reply.string("refresh_token") != nil)
        let issuer = "\(sandbox.base)/oidc/\(profile)"

        if ["discord", "x"].contains(profile) {
            #expect(reply.json["id_token"] == nil)
        } else {
            let idToken = try #require(reply.string("id_token"))
            let verified = try JWS.verify(idToken, jwks: try sandbox.jwks)
            #expect(verified.algorithm == (profile == "apple" ? "ES256" : "RS256"))
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
            #expect(claims["iss"] as? String == issuer)
            #expect(claims["aud"] as? String == "test-client")
            #expect(claims["azp"] as? String == "test-client")
            #expect(claims["nonce"] as? String == "n-\(profile)")
            #expect(claims["email"] as? String == "ada@example.com")
            #expect(claims["email_verified"] as? Bool == true)
            #expect(claims["name"] as? String == "Ada")
            let issuedAt = try #require(claims["iat"] as? Int)
            #expect(claims["exp"] as? Int == issuedAt + 3600)
            #expect(abs(Double(issuedAt) - sandbox.clock.now) < 2)
            let subject = try #require(claims["sub"] as? String)

            let discovery = try sandbox.get("/oidc/\(profile)/.well-known/openid-configuration")
            #expect(discovery.string("issuer") == issuer)
            #expect(discovery.string("token_endpoint") == issuer + "/token")
            #expect(discovery.string("jwks_uri") == issuer + "/jwks")
            #expect((discovery.json["code_challenge_methods_supported"] as? [String]) == ["S256"])
            #expect((discovery.json["device_authorization_endpoint"] != nil) == (profile != "apple"))

            let bearer = ["Authorization": "Bearer \(accessToken)"]
            let info = try sandbox.get("/oidc/\(profile)/userinfo", headers: bearer)
            #expect(info.status == 200)
            #expect(info.string("sub") == subject)
            #expect(info.string("email") == "ada@example.com")
        }
        if profile == "discord" {
            let bearer = ["Authorization": "Bearer \(accessToken)"]
            let me = try sandbox.get("/oidc/discord/api/users/@me", headers: bearer)
            #expect(me.status == 200)
            #expect(me.string("username") == "ada")
            #expect(me.string("global_name") == "Ada")
            #expect(me.string("email") == "ada@example.com")
            #expect(me.json["verified"] as? Bool == true)
            #expect(me.string("id")?.allSatisfy(\.isNumber) == true)
        }
        if profile == "x" {
            let me = try sandbox.get("/oidc/x/2/users/me", headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(me.status == 200)
            #expect(me.string("data.username") == "ada")
            #expect(me.string("data.name") == "Ada")
            #expect(me.string("data.id") != nil)
        }
    }

    @Test func appleAnswersWithAnAutoSubmittingFormPost() throws {
        let sandbox = try SandboxFixture()
        let verifier = Base64URL.encode(try SecureRandom.bytes(32))
        let scripted = [("sandbox_user", "ada"), ("sandbox_auto", "approve")]
        let page = try sandbox.get(
            sandbox.authorizeTarget(
                "apple", challenge: PKCE.challenge(for: verifier),
                extra: scripted))
        #expect(page.status == 200)
        #expect(page.headers["location"] == nil)
        #expect(SandboxFixture.formAction(page.text) == SandboxFixture.loopback)
        #expect(page.text.contains("document.forms[0].submit()"))
        let fields = SandboxFixture.formFields(page.text)
        #expect(fields["state"] == "state-1")
        #expect(fields["code"]?.count == 43)
    }

    @Test func wrongVerifierWrongRedirectAndOtherClientAreRefused() throws {
        let sandbox = try SandboxFixture()
        let first = try sandbox.approve("google")
        let wrongVerifier = try sandbox.exchange("google", first, verifier: String(repeating: "a", count: 43))
        #expect(wrongVerifier.status == 400)
        #expect(wrongVerifier.string("error") == "invalid_grant")
        #expect(wrongVerifier.string("error_description") != nil)
        // The code is spent even though the exchange failed: a guessed verifier gets one try.
        #expect(try sandbox.exchange("google", first).string("error") == "invalid_grant")

        let second = try sandbox.approve("google")
        let wrongRedirect = try sandbox.exchange("google", second, redirectURI: "http://127.0.0.1:5999/other")
        #expect(wrongRedirect.status == 400)
        #expect(wrongRedirect.string("error") == "invalid_grant")

        let third = try sandbox.approve("google")
        let otherClient = try sandbox.exchange("google", third, clientID: "someone-else")
        #expect(otherClient.string("error") == "invalid_grant")

        let fourth = try sandbox.approve("google")
        let atOtherProfile = try sandbox.exchange("generic", fourth)
        #expect(atOtherProfile.string("error") == "invalid_grant")

        let fifth = try sandbox.approve("google")
        let noVerifier = try sandbox.form(
            "/oidc/google/token",
            [
                ("grant_type", "authorization_code"), ("code", fifth.code), ("client_id", "test-client"),
                ("redirect_uri", fifth.redirectURI),
            ])
        #expect(noVerifier.string("error") == "invalid_request")
    }

    @Test func aReusedCodeIsRefusedAndRevokesWhatItIssued() throws {
        let sandbox = try SandboxFixture()
        let grant = try sandbox.approve("google")
        let first = try sandbox.exchange("google", grant)
        let accessToken = try #require(first.string("access_token"))
        let bearer = ["Authorization": "Bearer \(accessToken)"]
        #expect(try sandbox.get("/oidc/google/userinfo", headers: bearer).status == 200)
        let again = try sandbox.exchange("google", grant)
        #expect(again.status == 400)
        #expect(again.string("error") == "invalid_grant")
        #expect(try sandbox.get("/oidc/google/userinfo", headers: bearer).status == 401)
    }

    @Test func codesExpireAfterSixtySeconds() throws {
        let sandbox = try SandboxFixture()
        let grant = try sandbox.approve("x")
        sandbox.clock.advance(by: 61)
        let reply = try sandbox.exchange("x", grant)
        #expect(reply.status == 400)
        #expect(reply.string("error") == "invalid_grant")
        #expect(reply.string("error_description")?.contains("expired") == true)

        let fresh = try sandbox.approve("x")
        sandbox.clock.advance(by: 59)
        #expect(try sandbox.exchange("x", fresh).status == 200)
    }

    /// RFC 7636 appendix B's verifier and challenge: the sandbox's PKCE check agrees with the RFC, not only with
    /// authdeck's client (whose `PKCE.challenge` the other tests use to make their challenges).
    @Test func thePKCEExampleOfRFC7636IsAcceptedAndAnyOtherVerifierRefused() throws {
        let sandbox = try SandboxFixture()
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        func grant() throws -> SandboxFixture.Grant {
            let reply = try sandbox.get(
                sandbox.authorizeTarget(
                    "google", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                    extra: [("sandbox_user", "ada"), ("sandbox_auto", "approve")]))
            return SandboxFixture.Grant(
                code: try #require(reply.locationQuery["code"]), verifier: verifier,
                redirectURI: SandboxFixture.loopback, state: "state-1")
        }
        let wrong = try sandbox.exchange("google", try grant(), verifier: String(verifier.dropLast()) + "j")
        #expect(wrong.status == 400)
        #expect(wrong.string("error_description")?.contains("code_verifier does not match") == true)
        let tokens = try sandbox.exchange("google", try grant())
        #expect(tokens.status == 200, "\(tokens.text)")
    }

    @Test func denyAnswersAccessDeniedWithTheState() throws {
        let sandbox = try SandboxFixture()
        let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
        let reply = try sandbox.get(
            sandbox.authorizeTarget(
                "discord", challenge: challenge,
                extra: [("sandbox_auto", "deny")]))
        #expect(reply.status == 302)
        #expect(reply.headers["location"]?.hasPrefix(SandboxFixture.loopback + "?") == true)
        #expect(reply.locationQuery["error"] == "access_denied")
        #expect(reply.locationQuery["state"] == "state-1")
        #expect(reply.locationQuery["code"] == nil)

        let apple = try sandbox.get(
            sandbox.authorizeTarget(
                "apple", challenge: challenge,
                extra: [("sandbox_auto", "deny")]))
        let fields = SandboxFixture.formFields(apple.text)
        #expect(fields["error"] == "access_denied")
        #expect(fields["code"] == nil)
    }

    @Test func consentPageListsUsersAndItsFormApproves() throws {
        let sandbox = try SandboxFixture()
        let verifier = Base64URL.encode(try SecureRandom.bytes(32))
        let target = sandbox.authorizeTarget("google", challenge: PKCE.challenge(for: verifier))
        let page = try sandbox.get(target)
        #expect(page.status == 200)
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        for name in ["ada", "bob", "cleo", "dora"] { #expect(page.text.contains("value=\"\(name)\"")) }
        #expect(page.text.contains("value=\"approve\"") && page.text.contains("value=\"deny\""))
        let action = try #require(SandboxFixture.formAction(page.text))
        #expect(action == target)
        let approved = try sandbox.form(action, [("user", "bob"), ("action", "approve")])
        #expect(approved.status == 302)
        let code = try #require(approved.locationQuery["code"])
        let grant = SandboxFixture.Grant(
            code: code, verifier: verifier, redirectURI: SandboxFixture.loopback,
            state: "state-1")
        let tokens = try sandbox.exchange("google", grant)
        let claims = try sandbox.claims(try #require(tokens.string("id_token")))
        #expect(claims["name"] as? String == "Bob")
        #expect(claims["email"] == nil)
    }

    @Test func aBadClientOrRedirectIsShownAndNeverRedirectedTo() throws {
        let sandbox = try SandboxFixture()
        let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
        for redirect in [
            "https://evil.example/cb", "http://127.0.0.1/no-port", "http://localhost:80/cb",
            "http://127.0.0.2:80/cb", "javascript:alert(1)", "http://127.0.0.1:5999/cb#frag",
        ] {
            let reply = try sandbox.get(
                sandbox.authorizeTarget(
                    "google", redirectURI: redirect, challenge: challenge,
                    extra: [
                        ("sandbox_user", "ada"),
                        ("sandbox_auto", "approve"),
                    ]))
            #expect(reply.status == 400, "\(redirect)")
            #expect(reply.headers["location"] == nil, "\(redirect)")
            #expect(!reply.text.contains("code="), "\(redirect)")
        }
        let noClient = try sandbox.get(sandbox.authorizeTarget("google", clientID: "", challenge: challenge))
        #expect(noClient.status == 400)
        #expect(noClient.headers["location"] == nil)
        let scheme = try sandbox.approve("google", redirectURI: "authdeck://callback")
        #expect(!scheme.code.isEmpty)
    }

    @Test func pkceAndResponseTypeAreRequired() throws {
        let sandbox = try SandboxFixture()
        let withoutChallenge =
            "/oidc/generic/authorize?"
            + FormEncoding.encode([
                ("client_id", "c"), ("redirect_uri", SandboxFixture.loopback), ("response_type", "code"),
                ("scope", "openid"), ("state", "s"), ("sandbox_user", "ada"), ("sandbox_auto", "approve"),
            ])
        let missing = try sandbox.get(withoutChallenge)
        #expect(missing.status == 302)
        #expect(missing.locationQuery["error"] == "invalid_request")
        #expect(missing.locationQuery["state"] == "s")
        #expect(missing.locationQuery["code"] == nil)

        let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
        let plain = try sandbox.get(
            sandbox.authorizeTarget(
                "generic", challenge: challenge,
                extra: [("code_challenge_method", "plain")]))
        #expect(plain.locationQuery["error"] == "invalid_request")
        let token = try sandbox.get(
            sandbox.authorizeTarget(
                "generic", challenge: challenge,
                extra: [("response_type", "token")]))
        #expect(token.locationQuery["error"] == "unsupported_response_type")
    }

    @Test func refreshRotatesAndAReplayedRefreshTokenRevokesTheGrant() throws {
        let sandbox = try SandboxFixture()
        let tokens = try sandbox.exchange("generic", try sandbox.approve("generic"))
        let firstRefresh = try #require(tokens.string("refresh_token"))
        let refreshed = try sandbox.form(
            "/oidc/generic/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", firstRefresh), ("client_id", "test-client"),
            ])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        let secondRefresh = try #require(refreshed.string("refresh_token"))
        let secondAccess = try #require(refreshed.string("access_token"))
        #expect(secondRefresh != firstRefresh)
        #expect(refreshed.string("id_token") != nil)
        let bearer = ["Authorization": "Bearer \(secondAccess)"]
        #expect(try sandbox.get("/oidc/generic/userinfo", headers: bearer).status == 200)

        let replay = try sandbox.form(
            "/oidc/generic/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", firstRefresh), ("client_id", "test-client"),
            ])
        #expect(replay.status == 400)
        #expect(replay.string("error") == "invalid_grant")
        #expect(try sandbox.get("/oidc/generic/userinfo", headers: bearer).status == 401)
        let afterReplay = try sandbox.form(
            "/oidc/generic/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", secondRefresh), ("client_id", "test-client"),
            ])
        #expect(afterReplay.string("error") == "invalid_grant")
    }

    /// What a long run reads afterwards to know no refresh token was sent twice: the data folder's grants file
    /// counts each replay by grant, and a rotation used once leaves nothing there.
    @Test func aReplayedRefreshTokenIsRecordedInTheDataFolder() throws {
        let folder = TemporaryFolder()
        let sandbox = try SandboxFixture { $0.dataFolder = SandboxDataFolder(path: folder.path) }
        let first = try #require(try sandbox.exchange("google", try sandbox.approve("google")).string("refresh_token"))
        func refresh(_ token: String) throws -> SandboxHTTP.Reply {
            try sandbox.form(
                "/oidc/google/token",
                [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "test-client")])
        }
        func replays() throws -> [String: Any]? {
            let data = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/oidc-grants.json"))
            return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["refreshReplays"] as? [String: Any]
        }
        #expect(try refresh(first).status == 200)
        #expect(try replays()?.isEmpty == true)
        #expect(try refresh(first).string("error") == "invalid_grant")
        let recorded = try #require(try replays())
        #expect(recorded.count == 1 && recorded.values.first as? Int == 1, "\(recorded)")
    }

    @Test func revokeAlwaysAnswers200AndTheTokenStopsWorking() throws {
        let sandbox = try SandboxFixture()
        let tokens = try sandbox.exchange("x", try sandbox.approve("x"))
        let access = try #require(tokens.string("access_token"))
        let refresh = try #require(tokens.string("refresh_token"))
        let bearer = ["Authorization": "Bearer \(access)"]
        #expect(try sandbox.get("/oidc/x/2/users/me", headers: bearer).status == 200)
        #expect(try sandbox.form("/oidc/x/revoke", [("token", access), ("client_id", "test-client")]).status == 200)
        let refused = try sandbox.get("/oidc/x/2/users/me", headers: bearer)
        #expect(refused.status == 401)
        #expect(refused.string("title") == "Unauthorized")
        #expect(try sandbox.form("/oidc/x/revoke", [("token", "never-issued")]).status == 200)
        #expect(try sandbox.form("/oidc/x/revoke", [("token", refresh)]).status == 200)
        let afterRevoke = try sandbox.form(
            "/oidc/x/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", "test-client"),
            ])
        #expect(afterRevoke.string("error") == "invalid_grant")
    }

    @Test func accessTokensExpireAfterTheirLifetime() throws {
        let sandbox = try SandboxFixture { $0.tokenLifetime = 120 }
        let tokens = try sandbox.exchange("discord", try sandbox.approve("discord"))
        #expect(tokens.json["expires_in"] as? Int == 120)
        let bearer = ["Authorization": "Bearer \(try #require(tokens.string("access_token")))"]
        #expect(try sandbox.get("/oidc/discord/api/users/@me", headers: bearer).status == 200)
        sandbox.clock.advance(by: 121)
        let expired = try sandbox.get("/oidc/discord/api/users/@me", headers: bearer)
        #expect(expired.status == 401)
        #expect(expired.string("message") == "401: Unauthorized")
    }

    @Test func configuredClientIDsAreTheOnlyOnesAccepted() throws {
        let sandbox = try SandboxFixture { $0.clientIDs = [.google: "registered"] }
        let challenge = PKCE.challenge(for: String(repeating: "v", count: 43))
        let other = try sandbox.get(sandbox.authorizeTarget("google", clientID: "test-client", challenge: challenge))
        #expect(other.status == 400)
        #expect(other.headers["location"] == nil)
        let grant = try sandbox.approve("google", clientID: "registered")
        #expect(try sandbox.exchange("google", grant, clientID: "registered").status == 200)
        let unknownClient = try sandbox.form(
            "/oidc/google/token",
            [
                ("grant_type", "refresh_token"),
                ("refresh_token", "x"), ("client_id", "nope"),
            ])
        #expect(unknownClient.status == 401)
        #expect(unknownClient.string("error") == "invalid_client")
    }
}
