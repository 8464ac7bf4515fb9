import AuthCore
import AuthCrypto
import Foundation
import Testing

/// The sandbox's browser sessions, by OpenID Connect Core 3.1.2.1 (`prompt`, `login_hint`) and 3.1.2.6
/// (`login_required`): a cookie set by `/signin` names who the browser is signed in as at that profile; a
/// signed-in browser is approved at once unless the request asks to sign in again, hints at another user, or asks a
/// person to choose an account.
@Suite struct BrowserSessionTests {
    let sandbox: SandboxFixture
    let verifier = Base64URL.encode(Array(repeating: 7, count: 32))

    init() throws {
        sandbox = try SandboxFixture()
    }

    func authorize(_ extra: [(String, String)], cookie: String? = nil) throws -> SandboxHTTP.Reply {
        try sandbox.get(
            sandbox.authorizeTarget("generic", challenge: PKCE.challenge(for: verifier), extra: extra),
            headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    /// The cookie a sign-in set, as the browser sends it back (`name=value`).
    static func cookie(_ reply: SandboxHTTP.Reply) throws -> String {
        let header = try #require(reply.headers["set-cookie"])
        #expect(header.contains("Path=/oidc/generic/") && header.contains("HttpOnly"))
        return String(try #require(header.split(separator: ";").first))
    }

    /// The name in the ID token the code of `reply` is exchanged for.
    func signedInName(_ reply: SandboxHTTP.Reply) throws -> String? {
        #expect(reply.status == 302, "\(reply.text)")
        let code = try #require(reply.locationQuery["code"])
        let grant = SandboxFixture.Grant(
            code: code, verifier: verifier, redirectURI: SandboxFixture.loopback, state: "state-1")
        let tokens = try sandbox.exchange("generic", grant)
        return try sandbox.claims(try #require(tokens.string("id_token")))["name"] as? String
    }

    @Test func promptNoneWithoutASessionIsLoginRequired() throws {
        let reply = try authorize([("prompt", "none")])
        #expect(reply.status == 302)
        #expect(reply.locationQuery["error"] == "login_required")
        #expect(reply.locationQuery["state"] == "state-1")
        for bad in ["none login", "sometimes"] {
            #expect(try authorize([("prompt", bad)]).locationQuery["error"] == "invalid_request", "\(bad)")
        }
    }

    @Test func aScriptedSignInIsRememberedAndAnswersTheChooser() throws {
        let signIn = try sandbox.get("/oidc/generic/signin?sandbox_user=bob&sandbox_auto=signin")
        #expect(signIn.status == 200 && signIn.text.contains("Signed in as bob"))
        let cookie = try Self.cookie(signIn)
        #expect(try signedInName(try authorize([], cookie: cookie)) == "Bob")
        #expect(try signedInName(try authorize([("prompt", "select_account")], cookie: cookie)) == "Bob")
        #expect(try signedInName(try authorize([("prompt", "none")], cookie: cookie)) == "Bob")
        // Another browser (no cookie, or a cookie the sandbox never set) is not signed in.
        #expect(try authorize([]).status == 200)
        #expect(
            try authorize([("prompt", "none")], cookie: "sandbox_session=forged").locationQuery["error"]
                == "login_required")
    }

    @Test func aPersonChoosesAndSignsInAgainOnThePage() throws {
        let signIn = try sandbox.form("/oidc/generic/signin", [("user", "dora")])
        let cookie = try Self.cookie(signIn)
        #expect(try signedInName(try authorize([], cookie: cookie)) == "Dora")
        let chooser = try authorize([("prompt", "select_account")], cookie: cookie)
        #expect(chooser.status == 200)
        #expect(chooser.text.contains("Choose an account"))
        #expect(chooser.text.contains("value=\"dora\" checked"))
        let again = try authorize([("prompt", "login")], cookie: cookie)
        #expect(again.status == 200 && again.text.contains("Sign in"))
        // A hint naming another account is not answered with this one.
        let hinted = try authorize([("login_hint", "ada@example.com")], cookie: cookie)
        #expect(hinted.status == 200)
        #expect(hinted.text.contains("value=\"ada\" checked"))
        #expect(
            try authorize([("login_hint", "ada"), ("prompt", "none")], cookie: cookie).locationQuery["error"]
                == "login_required")
    }
}
