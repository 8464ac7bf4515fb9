import Foundation
import Testing

extension InteropTests {
    /// `token` against django-oauth-toolkit issuing 40-second access tokens: the refresh window is half the lifetime
    /// (20 s) rather than a fixed minute, so a fresh token is handed out as it is, and callers that arrive together
    /// once it is due share one refresh. The toolkit's own database counts the refreshes: with rotation on, each
    /// refresh grant adds one refresh-token row.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.djangoOAuthToolkit.available))
    struct DjangoOAuthToolkitShortTokenInteropTests {
        static let lifetime = 40
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(
                .djangoOAuthToolkit, environment: ["INTEROP_ACCESS_TOKEN_SECONDS": "\(Self.lifetime)"])
        }

        /// The refresh grants the toolkit answered so far: its refresh-token rows less the one the sign-in made.
        func refreshes() throws -> Int {
            let result = setup.runner.run(
                executable: "/usr/bin/sqlite3",
                [server.folder.path + "/dot.sqlite3", "SELECT count(*) FROM oauth2_provider_refreshtoken"])
            let rows = try #require(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            return rows - 1
        }

        @Test func shortLivedTokensRefreshOnceNotOncePerCaller() throws {
            try setup.configure([
                "issuer": info.issuer, "clientID": info.publicClient, "redirectURI": info.redirectURI,
                "scopes": ["openid", "email", "profile"],
            ])
            let login = setup.login(["--session-key", "s"])
            #expect(login.status == 0, "stderr: \(login.stderr)\nbrowser: \(setup.browserSteps)")
            // The toolkit issued the token before this point, so it expires by signedIn + 40 s and is due (20 s
            // left) by signedIn + 20 s; it was stored after it was issued, so not before issue + 20 s either.
            let signedIn = Date()
            let first = setup.token("s")
            #expect(!first.isEmpty)

            // Calls while the token has more than half its life left: no refresh, the same token each time.
            var calls = 0
            while calls < 100 && Date() < signedIn.addingTimeInterval(15) {
                let result = setup.runner.run(["token", "s"])
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let same = result.stdout == first + "\n"  // compared as a Bool: no token in a failure message
                #expect(same, "call \(calls) handed out another token")
                calls += 1
            }
            #expect(calls >= 20, "too few calls before the window to test anything: \(calls)")
            #expect(try refreshes() == 0)

            // Once it is due, eight callers at once: one refresh, and all print the token it brought.
            Thread.sleep(until: signedIn.addingTimeInterval(22))
            var callers: [(SpawnedProcess, String)] = []
            for index in 0..<8 {
                let out = server.folder.path + "/token-\(index)"
                callers.append(
                    (try setup.runner.spawn(executable: CLIRunner.binary, ["token", "s"], stdoutPath: out), out))
            }
            var printed: Set<String> = []
            for (process, out) in callers {
                let waited = process.wait(timeout: 60)
                #expect(waited.status == 0 && !waited.timedOut)
                printed.insert(String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self))
            }
            #expect(printed.count == 1, "the callers printed \(printed.count) different tokens")
            let renewed = printed.first != first + "\n" && printed.first?.isEmpty == false
            #expect(renewed, "the callers did not print a new token")
            #expect(try refreshes() == 1)
            // The refreshed token is fresh again: later calls hand it out without another refresh.
            for _ in 0..<10 {
                let same = setup.runner.run(["token", "s"]).stdout == printed.first
                #expect(same, "a later call handed out another token")
            }
            #expect(try refreshes() == 1)
        }
    }
}
