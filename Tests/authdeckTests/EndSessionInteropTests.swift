import Foundation
import Testing

/// `logout --end-session` (OpenID Connect RP-Initiated Logout 1.0) against servers nobody here wrote. The interop
/// browser keeps its cookies in a file, as a browser does, so the sign-out meets the provider session the sign-in
/// made.
extension InteropTests.GlewlwydInteropTests {
    /// glewlwyd's instance with `session-management-allowed`: its end_session endpoint checks the ID token and the
    /// client's registered `post_logout_redirect_uris`, then sends the browser to its login page with
    /// prompt=end_session, where the browser does what the page's script does through glewlwyd's API. Afterwards
    /// glewlwyd has no signed-in user for the browser (its profile API says 401 where it said 200), the state came
    /// back to authdeck's receiver, and the session is gone here.
    @Test func endSessionAtGlewlwydEndsItsSessionThenOurs() throws {
        let issuer = try #require(info.endSessionIssuer)
        let logoutURI = try #require(info.postLogoutRedirectURI)
        let cookies = ["INTEROP_COOKIE_JAR": setup.folder.path + "/cookies.txt"]
        try setup.configure([
            "issuer": issuer, "clientID": try #require(info.logoutClient), "redirectURI": info.redirectURI,
            "scopes": ["openid"], "postLogoutRedirectURI": logoutURI,
        ])
        let signedIn = setup.login(["--session-key", "sm"], environment: cookies)
        #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)\nbrowser: \(setup.browserSteps)")
        #expect(server.userinfo(issuer + "/userinfo", token: setup.token("sm")).status == 200)
        let browser = CLIRunner.repositoryRoot + "/Tests/Interop/interop-browser.py"
        func glewlwydSignedIn() -> Bool {
            let before = setup.browserSteps
            _ = setup.runner.run(executable: browser, ["--signed-in", info.baseURL], environment: cookies)
            return setup.browserSteps.dropFirst(before.count).contains("signed in: yes")
        }
        #expect(glewlwydSignedIn(), "browser: \(setup.browserSteps)")

        let result = setup.runner.run(["logout", "sm", "--end-session"], stdin: "", environment: cookies, timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
        #expect(result.stderr.contains("At the provider: signed out · Revoked: not asked · Removed here: yes"))
        #expect(setup.browserSteps.contains("end_session prompt end_session"), "browser: \(setup.browserSteps)")
        // The browser logs the receiver's page after authdeck has taken the redirect and moved on.
        #expect(
            Poll.until(timeout: 5) { setup.browserSteps.contains("GET \(logoutURI) -> 200") },
            "browser: \(setup.browserSteps)")
        #expect(try setup.listed().isEmpty)
        #expect(!glewlwydSignedIn(), "browser: \(setup.browserSteps)")
    }

    /// The plain instance has no session management: its discovery names no end_session endpoint, so authdeck
    /// says so in one line (exit 4) and keeps the session.
    @Test func glewlwydWithoutSessionManagementKeepsTheSession() throws {
        try configurePublic(["postLogoutRedirectURI": try #require(info.postLogoutRedirectURI)])
        let signedIn = setup.login(["--session-key", "plain"])
        #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)\nbrowser: \(setup.browserSteps)")
        let result = setup.runner.run(["logout", "plain", "--end-session"], stdin: "", timeout: 60)
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("names no end_session_endpoint"), "stderr: \(result.stderr)")
        #expect(try setup.session("plain") != nil)
    }
}

extension InteropTests.DjangoOAuthToolkitInteropTests {
    /// django-oauth-toolkit with OIDC_RP_INITIATED_LOGOUT_ENABLED: its logout view checks the ID token and the
    /// registered post-logout URI, ends the Django session, deletes the user's tokens (its UserInfo then refuses
    /// the access token it took before), and redirects to authdeck's receiver with the state.
    @Test func rpInitiatedLogoutAtTheToolkitEndsItsSessionThenOurs() throws {
        let logoutURI = try #require(info.postLogoutRedirectURI)
        let cookies = ["INTEROP_COOKIE_JAR": setup.folder.path + "/cookies.txt"]
        try configure(client: info.publicClient, ["postLogoutRedirectURI": logoutURI])
        let signedIn = setup.login(["--session-key", "dl"], environment: cookies)
        #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)\nbrowser: \(setup.browserSteps)")
        let token = setup.token("dl")
        #expect(server.userinfo(userinfo, token: token).status == 200)

        // No --revoke: the refusal at UserInfo afterwards is the toolkit's logout's doing alone.
        let result = setup.runner.run(["logout", "dl", "--end-session"], stdin: "", environment: cookies, timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
        #expect(result.stderr.contains("At the provider: signed out · Revoked: not asked · Removed here: yes"))
        #expect(setup.browserSteps.contains("GET \(info.baseURL)/o/logout/ -> 302 -> \(logoutURI)"))
        // The browser logs the receiver's page after authdeck has taken the redirect and moved on.
        #expect(
            Poll.until(timeout: 5) { setup.browserSteps.contains("GET \(logoutURI) -> 200") },
            "browser: \(setup.browserSteps)")
        #expect(try setup.listed().isEmpty)
        #expect(server.userinfo(userinfo, token: token).status == 401)
    }
}
