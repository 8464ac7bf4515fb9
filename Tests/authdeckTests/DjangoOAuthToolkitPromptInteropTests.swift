import Foundation
import Testing

extension InteropTests {
    /// `--prompt login` against django-oauth-toolkit 3.4: the toolkit shows its login form again although the
    /// browser still holds its login, which without the prompt it does not. (Its `prompt=none` needs the validator's
    /// `validate_silent_login`, which the toolkit leaves to the project: unimplemented it answers 500.)
    @Suite(.serialized, .enabled(if: InteropServer.Kind.djangoOAuthToolkit.available))
    struct DjangoOAuthToolkitPromptInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.djangoOAuthToolkit)
            try setup.configure([
                "issuer": info.issuer, "clientID": info.publicClient, "redirectURI": info.redirectURI,
                "scopes": ["openid", "email", "profile"],
            ])
        }

        @Test func promptLoginMakesTheToolkitAskForThePasswordAgain() throws {
            let jar = ["INTEROP_COOKIE_JAR": setup.folder.path + "/cookies.txt"]
            let first = setup.login(["--session-key", "first"], environment: jar)
            #expect(first.status == 0, "stderr: \(first.stderr)\nbrowser: \(setup.browserSteps)")
            let loginPosts = { setup.browserSteps.components(separatedBy: "/accounts/login/ -> 302").count - 1 }
            #expect(loginPosts() == 1, "browser: \(setup.browserSteps)")
            let kept = setup.login(["--session-key", "kept"], environment: jar)
            #expect(kept.status == 0, "stderr: \(kept.stderr)")
            #expect(loginPosts() == 1, "the toolkit asked for the password again: \(setup.browserSteps)")
            let again = setup.login(["--session-key", "again", "--prompt", "login"], environment: jar)
            #expect(again.status == 0, "stderr: \(again.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(loginPosts() == 2, "browser: \(setup.browserSteps)")
        }
    }
}
