import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import Testing

@Suite struct PortalTests {
    private static let redirect = "authdeck://callback"

    /// Follows a portal URL through scripted consent and the portal's callback; returns the final redirect.
    private func signIn(_ sandbox: SandboxFixture, provider: String, user: String) throws -> SandboxHTTP.Reply {
        let urls = try sandbox.get(
            "/portal/api/v3/auth/oauth/urls?redirectUrl=\(FormEncoding.escape(Self.redirect))",
            headers: SandboxFixture.portalHeaders)
        let url = try #require(urls.string("data.\(provider)"))
        let consent = try sandbox.get(url + "&sandbox_user=\(user)&sandbox_auto=approve")
        if provider == "apple" {
            let action = try #require(SandboxFixture.formAction(consent.text))
            let fields = SandboxFixture.formFields(consent.text)
            return try sandbox.form(action, fields.map { ($0.key, $0.value) })
        }
        #expect(consent.status == 302)
        return try sandbox.get(try #require(consent.headers["location"]))
    }

    @Test func methodsNeedTheEnvironmentHeader() throws {
        let sandbox = try SandboxFixture { $0.portalEnvironmentID = "test-environment" }
        let methods = try sandbox.get(
            "/portal/api/v3/auth/methods", headers: ["x-portal-auth-environment-id": "test-environment"])
        #expect(methods.status == 200)
        // PortalAuthWireTypes' AuthMethodsResponse: Portal's method names (PortalAuthTypes' AuthMethod raw values),
        // and the wallet hint.
        let allowed = (methods.json["data"] as? [String: Any])?["allowedAuthMethods"] as? [String]
        #expect(allowed == ["EMAIL_MAGIC_LINK", "GOOGLE", "APPLE"])
        #expect((methods.json["data"] as? [String: Any])?["autoCreateWallet"] as? Bool == false)
        let missing = try sandbox.get("/portal/api/v3/auth/methods")
        #expect(missing.status == 401)
        #expect(missing.string("error") != nil)
        let wrong = try sandbox.get("/portal/api/v3/auth/methods", headers: ["x-portal-auth-environment-id": "other"])
        #expect(wrong.status == 401)
    }

    @Test func urlsGoThroughConsentAndComeBackWithAOneTimeToken() throws {
        // A loopback redirect is allow-listed only with its exact port.
        let sandbox = try SandboxFixture { $0.portalRedirectURLs.append("http://127.0.0.1:7000/cb") }
        let urls = try sandbox.get(
            "/portal/api/v3/auth/oauth/urls?redirectUrl=http%3A%2F%2F127.0.0.1%3A7000%2Fcb",
            headers: SandboxFixture.portalHeaders)
        #expect(urls.status == 200)
        let google = try #require(urls.string("data.google"))
        let apple = try #require(urls.string("data.apple"))
        #expect(google.hasPrefix("\(sandbox.base)/oidc/google/authorize?"))
        #expect(apple.hasPrefix("\(sandbox.base)/oidc/apple/authorize?") && apple.contains("response_mode=form_post"))

        let final = try signIn(sandbox, provider: "google", user: "ada")
        #expect(final.status == 302)
        #expect(final.headers["location"]?.hasPrefix(Self.redirect + "?") == true)
        // Portal's redirect: token and login_type, no app-side state.
        #expect(final.locationQuery["state"] == nil)
        #expect(final.locationQuery["login_type"] == "GOOGLE")
        let token = try #require(final.locationQuery["token"])
        let exchanged = try sandbox.portal("/oauth/tokens", ["token": token])
        #expect(exchanged.status == 200, "\(exchanged.text)")
        #expect(exchanged.string("data.clientSessionToken") != nil)
        #expect(exchanged.string("data.endUserId") != nil)
        #expect(exchanged.string("data.clientId") != nil)
        #expect((exchanged.json["data"] as? [String: Any])?["isAccountAbstracted"] as? Bool == false)
        // Either a session or a TOTP step, never both.
        #expect(exchanged.string("data.userJwt") == nil)
        #expect(exchanged.string("data.totpLink") == nil)
        let reused = try sandbox.portal("/oauth/tokens", ["token": token])
        #expect(reused.status == 401)
        #expect(reused.string("error") != nil)
    }

    @Test func appleGoesThroughFormPostAndTheSameUserIsTheSameEndUser() throws {
        let sandbox = try SandboxFixture()
        let viaApple = try signIn(sandbox, provider: "apple", user: "ada")
        #expect(viaApple.status == 302, "\(viaApple.text)")
        let appleToken = try #require(viaApple.locationQuery["token"])
        let appleUser = try sandbox.portal("/oauth/tokens", ["token": appleToken]).string("data.endUserId")
        let viaGoogle = try signIn(sandbox, provider: "google", user: "ada")
        let googleToken = try #require(viaGoogle.locationQuery["token"])
        let googleUser = try sandbox.portal("/oauth/tokens", ["token": googleToken]).string("data.endUserId")
        #expect(appleUser != nil && appleUser == googleUser)
    }

    @Test func aTOTPUserGetsNoSessionUntilTheCodeIsValidated() throws {
        let sandbox = try SandboxFixture()
        let final = try signIn(sandbox, provider: "google", user: "dora")
        let token = try #require(final.locationQuery["token"])
        let exchanged = try sandbox.portal("/oauth/tokens", ["token": token])
        #expect(exchanged.status == 200)
        #expect(exchanged.string("data.clientSessionToken") == nil)
        #expect(exchanged.string("data.totpLink")?.hasPrefix("otpauth://totp/") == true)
        let userJwt = try #require(exchanged.string("data.userJwt"))

        let seed = try #require(Base32.decode("JBSWY3DPEHPK3PXP"))
        let right = TOTP.code(secret: seed, time: Int64(sandbox.clock.now))
        let wrong = right == "000000" ? "111111" : "000000"
        #expect(try sandbox.portal("/totps/validations", ["code": right]).status == 401)
        #expect(try sandbox.portal("/totps/validations", ["code": right], bearer: "not-a-jwt").status == 401)
        let refused = try sandbox.portal("/totps/validations", ["code": wrong], bearer: userJwt)
        #expect(refused.status == 401)
        #expect(refused.string("error") != nil)
        let accepted = try sandbox.portal("/totps/validations", ["code": right], bearer: userJwt)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(accepted.string("data.clientSessionToken") != nil)
        // No endUserId here (TotpValidationResponse): it is the userJwt's claim.
        #expect(accepted.json["data"].map { ($0 as? [String: Any])?["endUserId"] == nil } == true)
        #expect(try sandbox.claims(userJwt)["endUserId"] as? String == exchanged.string("data.endUserId"))
        #expect(try sandbox.portal("/totps/validations", ["code": right], bearer: userJwt).status == 400)
    }

    @Test func aNonTOTPUserHasNothingToValidate() throws {
        let sandbox = try SandboxFixture()
        let token = try #require(try signIn(sandbox, provider: "google", user: "bob").locationQuery["token"])
        #expect(try sandbox.portal("/oauth/tokens", ["token": token]).string("data.userJwt") == nil)
    }

    @Test func refusedRedirectsDenialAndSharedSingleUseState() throws {
        let sandbox = try SandboxFixture()
        for bad in [
            "https://evil.example/cb", "http://10.0.0.1:80/cb", "http://127.0.0.1:7001/callback",
            "authdeck://callback/", "",
        ] {
            let reply = try sandbox.get(
                "/portal/api/v3/auth/oauth/urls?redirectUrl=\(FormEncoding.escape(bad))",
                headers: SandboxFixture.portalHeaders)
            #expect(reply.status == (bad.isEmpty ? 400 : 401), "\(bad)")
        }

        let urls = try sandbox.get(
            "/portal/api/v3/auth/oauth/urls?redirectUrl=\(FormEncoding.escape(Self.redirect))",
            headers: SandboxFixture.portalHeaders)
        let google = try #require(urls.string("data.google"))
        let apple = try #require(urls.string("data.apple"))
        let denied = try sandbox.get(try #require(try sandbox.get(google + "&sandbox_auto=deny").headers["location"]))
        #expect(denied.status == 302)
        // Portal only ever sends oauth_failed.
        #expect(denied.locationQuery["error"] == "oauth_failed")
        #expect(denied.locationQuery["token"] == nil)
        // The Apple URL shared that state, which is now spent.
        let page = try sandbox.get(apple + "&sandbox_user=ada&sandbox_auto=approve")
        let late = try sandbox.form(
            try #require(SandboxFixture.formAction(page.text)),
            SandboxFixture.formFields(page.text).map { ($0.key, $0.value) })
        #expect(late.status == 400)
        #expect(late.headers["location"] == nil)
        #expect(try sandbox.portal("/oauth/tokens", ["token": "made-up"]).status == 401)
        #expect(try sandbox.portal("/oauth/tokens", [:]).status == 400)
    }

    /// Portal refuses an auth environment it does not know with 401, which PortalSwift reads as unauthorized: by
    /// default the sandbox knows only the one config.json names.
    @Test func anUnknownEnvironmentIsRefusedByDefault() throws {
        let sandbox = try SandboxFixture()
        #expect(try sandbox.get("/portal/api/v3/auth/methods", headers: SandboxFixture.portalHeaders).status == 200)
        for other in ["other", "sandbox-environment ", "SANDBOX-ENVIRONMENT"] {
            let reply = try sandbox.get(
                "/portal/api/v3/auth/methods", headers: ["x-portal-auth-environment-id": other])
            #expect(reply.status == 401, "\(other)")
        }
        #expect(try sandbox.portal("/oauth/tokens", ["token": "made-up"]).status == 401)
    }

    /// The allow-list is matched byte for byte on what Portal's SDKs send (Java's URLEncoder form, `%20` for
    /// space, as PortalSwift's formUrlEncode documents): an unencoded or otherwise escaped redirectUrl is not
    /// decoded into a match.
    @Test func aRedirectURLIsMatchedInTheFormTheSDKsSend() throws {
        let sandbox = try SandboxFixture { $0.portalRedirectURLs.append("http://127.0.0.1:7000/cb-1.x") }
        let sent = [
            ("authdeck%3A%2F%2Fcallback", 200),
            ("http%3A%2F%2F127.0.0.1%3A7000%2Fcb-1.x", 200),
            ("authdeck://callback", 401),
            ("authdeck%3a%2f%2fcallback", 401),
            ("authdeck:%2F%2Fcallback", 401),
            ("http%3A%2F%2F127%2E0%2E0%2E1%3A7000%2Fcb%2D1.x", 401),
            ("http%3A%2F%2F127.0.0.1%3A7000%2Fcb-1.x&redirectUrl=http%3A%2F%2F127.0.0.1%3A7000%2Fcb-1.x", 401),
        ]
        for (value, status) in sent {
            // A whole URL: the helper reads a bare target holding `://` as one.
            let reply = try sandbox.get(
                sandbox.base + "/portal/api/v3/auth/oauth/urls?redirectUrl=" + value,
                headers: SandboxFixture.portalHeaders)
            #expect(reply.status == status, "\(value)")
        }
    }
}
