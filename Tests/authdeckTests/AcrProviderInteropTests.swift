import Foundation
import Testing

/// Whether Tests/Interop/acr-provider.py can sign its ID tokens here; when not, says so once.
enum AcrProvider {
    static var available: Bool {
        let found = (try? Program.run("/usr/bin/python3", ["-c", "import cryptography"], quiet: true))?.status == 0
        if !found { print("acr provider: skipped: python3-cryptography is missing (make setup)") }
        return found
    }
}

extension InteropTests {
    /// `--acr-values` and `--max-age` against the Python provider of Tests/Interop/acr-provider.py, whose ID tokens
    /// Python's `cryptography` signs with a chosen `acr` and `auth_time` (glewlwyd issues no `acr`, and never an
    /// `auth_time` older than `max_age`; Debian's lemonldap-ng, which has both, needs a web server and its manager's
    /// configuration store to run). Both values travel on the authorize request; an ID token with another `acr`, none,
    /// an `auth_time` older than `max_age` or none ends the attempt with exit 4, saying what it got, and stores nothing.
    @Suite(.serialized, .enabled(if: AcrProvider.available))
    struct AcrProviderInteropTests {
        let setup = InteropLogin()
        let process: Process
        let baseURL: String
        let logPath: String

        init() throws {
            logPath = setup.folder.path + "/authorize.log"
            (process, baseURL) = try setup.runner.startServer(
                executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/acr-provider.py"],
                environment: ["ACR_PROVIDER_LOG": logPath], output: setup.folder.path + "/provider.out",
                what: "acr provider")
            try setup.configure([:])
        }

        func login(_ scenario: String, key: String, _ options: [String]) -> CLIRunner.Result {
            setup.login(
                ["--issuer", baseURL + "/" + scenario, "--client-id", "authdeck-acr", "--session-key", key] + options)
        }

        /// Every request the provider received: its path, Origin header, and authorize query or token form.
        var requests: [[String: Any]] {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// What the provider's authorize endpoint was asked, request by request.
        var authorizeRequests: [[String: String]] {
            requests.filter { ($0["path"] as? String)?.hasSuffix("/authorize") == true }.compactMap {
                $0["query"] as? [String: String]
            }
        }

        @Test func anAcrAskedForIsTakenAnotherOrNoneIsRefused() throws {
            defer { process.terminate() }
            let asked = ["--acr-values", "urn:authdeck:silver urn:authdeck:gold"]
            let gold = login("gold", key: "gold", asked)
            #expect(gold.status == 0, "stderr: \(gold.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(authorizeRequests.last?["acr_values"] == "urn:authdeck:silver urn:authdeck:gold")
            #expect(try setup.session("gold") != nil)

            let bronze = login("bronze", key: "bronze", asked)
            #expect(bronze.status == 4, "stderr: \(bronze.stderr)")
            #expect(bronze.stderr.contains("acr is 'urn:authdeck:bronze'"), "stderr: \(bronze.stderr)")
            let none = login("noacr", key: "noacr", asked)
            #expect(none.status == 4, "stderr: \(none.stderr)")
            #expect(none.stderr.contains("no acr"), "stderr: \(none.stderr)")
            #expect(try setup.listed().map { $0["key"] as? String } == ["gold"])
        }

        @Test func anAuthTimeOlderThanMaxAgeOrNoneIsRefused() throws {
            defer { process.terminate() }
            let fresh = login("gold", key: "fresh", ["--max-age", "600"])
            #expect(fresh.status == 0, "stderr: \(fresh.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(authorizeRequests.last?["max_age"] == "600")

            let old = login("old", key: "old", ["--max-age", "600"])
            #expect(old.status == 4, "stderr: \(old.stderr)")
            #expect(old.stderr.contains("more than max_age 600"), "stderr: \(old.stderr)")
            let missing = login("noauthtime", key: "missing", ["--max-age", "600"])
            #expect(missing.status == 4, "stderr: \(missing.stderr)")
            #expect(missing.stderr.contains("no auth_time"), "stderr: \(missing.stderr)")
            // Without max_age the old sign-in is what the provider may give.
            let unasked = login("old", key: "unasked", [])
            #expect(unasked.status == 0, "stderr: \(unasked.stderr)")
            #expect(try setup.listed().compactMap { $0["key"] as? String }.sorted() == ["fresh", "unasked"])
        }

        /// config.json's `requestHeaders` reach every request to the provider (discovery, JWKS, token), its
        /// `tokenParameters` the token request, its `authorizeParameters` and `loginHint` the authorize request, as
        /// the provider logged them.
        @Test func configuredHeadersAndParametersReachTheProvider() throws {
            defer { process.terminate() }
            try setup.configure([
                "issuer": baseURL + "/gold", "clientID": "authdeck-acr", "loginHint": "acr-user@example.org",
                "authorizeParameters": ["ui_locales": "de"], "tokenParameters": ["audience": "https://api.test/"],
                "requestHeaders": ["Origin": "http://127.0.0.1:9"],
            ])
            let result = setup.login(["--session-key", "configured"])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let authorize = try #require(authorizeRequests.last)
            #expect(authorize["login_hint"] == "acr-user@example.org" && authorize["ui_locales"] == "de")
            let direct = requests.filter { !(($0["path"] as? String)?.hasSuffix("/authorize") ?? true) }
            #expect(direct.count >= 3, "requests: \(requests)")
            for request in direct {
                #expect(request["origin"] as? String == "http://127.0.0.1:9", "request: \(request)")
            }
            let tokenRequest = direct.last { ($0["path"] as? String)?.hasSuffix("/token") == true }
            let token = try #require(tokenRequest?["form"] as? [String: String])
            #expect(token["audience"] == "https://api.test/" && token["grant_type"] == "authorization_code")

            // A refresh carries them too, as the provider logged it.
            let refreshed = setup.runner.run(["refresh", "configured"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let refresh = try #require(
                requests.last { ($0["form"] as? [String: String])?["grant_type"] == "refresh_token" })
            #expect(refresh["origin"] as? String == "http://127.0.0.1:9", "request: \(refresh)")
            #expect((refresh["form"] as? [String: String])?["audience"] == "https://api.test/", "request: \(refresh)")

            // A configured value authdeck cannot send is one line before any request, even with a flag over it.
            let before = requests.count
            try setup.configure(["issuer": baseURL + "/gold", "clientID": "authdeck-acr", "prompt": "sometimes"])
            let bad = setup.login(["--session-key", "bad"])
            #expect(bad.status == 1 && bad.stderr.contains("providers.oidc.prompt"), "stderr: \(bad.stderr)")
            #expect(requests.count == before)
            let flagged = setup.login(["--session-key", "flagged", "--prompt", "consent"])
            #expect(flagged.status == 1, "stderr: \(flagged.stderr)")
        }
    }
}
