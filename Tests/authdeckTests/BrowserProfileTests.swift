import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One browser per account, with Debian's real chromium (headless) against the sandbox: the sandbox remembers who
/// a browser is signed in as by a cookie in that browser's profile, as providers do, and with
/// `prompt=select_account` shows its account chooser (which the person signed in by the scripting hook answers with
/// their own account). Two sessions of one provider, each with `login --browser` naming `{profile}`, land in two
/// profile folders and sign in as the two users the test made, told apart only by the profiles' cookies.
@Suite(.serialized) struct BrowserProfileTests {
    static let chromium = "/usr/bin/chromium"
    /// Root needs `--no-sandbox`; `--timeout` stops a page that never finishes loading, so each run is short.
    static let browser =
        "\(chromium) --headless=new --no-sandbox --disable-gpu --no-first-run --timeout=20000 "
        + "--user-data-dir={profile} --dump-dom {url}"

    let users = TemporaryFolder()
    let setup: SandboxLoginSetup
    let runner: CLIRunner
    var data: String { setup.folder.path + "/data" }

    init() throws {
        let file = users.write(
            "users.json",
            """
            [{"name": "erin", "email": "erin@example.com", "existing": true},
             {"name": "finn", "email": "finn@example.com", "existing": true}]
            """)
        setup = try SandboxLoginSetup(sandboxArguments: ["--users", file])
        var runner = setup.runner
        runner.environment["AUTHDECK_HOME"] = setup.folder.path + "/data"
        self.runner = runner
    }

    /// Runs chromium once in `profile` on `url` and returns the page it ended on.
    func visit(_ url: String, profile: String) -> String {
        let result = runner.run(
            executable: Self.chromium,
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--timeout=20000",
                "--user-data-dir=" + profile, "--dump-dom", url,
            ], timeout: 60)
        return result.stdout
    }

    /// The `email` and `sub` of session `key`'s ID token (`token --id-token`), decoded by Python.
    func identity(_ key: String) -> String {
        let idToken = runner.run(["token", key, "--id-token"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let script = """
            import base64, json, sys
            payload = sys.argv[1].split(".")[1]
            claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            print(claims["email"], claims["sub"])
            """
        return runner.run(executable: "/usr/bin/python3", ["-c", script, idToken]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func twoAccountsInTwoProfiles() throws {
        guard Installed.has(Self.chromium) else { return Installed.skip("chromium") }
        let issuer = setup.sandbox.baseURL + "/oidc/generic"
        let profiles = ["erin": data + "/browser-profiles/work-erin", "finn": data + "/browser-profiles/work-finn"]
        // Each profile signs in at the provider once, as its person would; the cookie stays in that profile.
        for (user, profile) in profiles {
            let page = visit(issuer + "/signin?sandbox_user=\(user)&sandbox_auto=signin", profile: profile)
            #expect(page.contains("Signed in as \(user)"), "page: \(page)")
        }
        var prompts: [String: Any] = [:]
        for user in ["erin", "finn"] {
            let tracePath = setup.folder.path + "/\(user).jsonl"
            let result = runner.run(
                [
                    "login", "oidc", "--session-key", "work-\(user)", "--browser", Self.browser, "--trace",
                    tracePath, "--timeout", "60",
                ], stdin: "", timeout: 90)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let steps = try String(contentsOfFile: tracePath, encoding: .utf8).split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let authorize = steps.first { $0["kind"] as? String == "authorize" }
            let parameters = (authorize?["details"] as? [String: Any])?["parameters"] as? [String: Any]
            prompts[user] = parameters?["prompt"] ?? "none sent"
        }
        // The second session of the same provider, issuer and client asks for the account chooser.
        #expect(prompts["erin"] as? String == "none sent")
        #expect(prompts["finn"] as? String == "select_account")

        // Each session names its own user, from the sandbox's ID token.
        let erin = identity("work-erin").split(separator: " ")
        let finn = identity("work-finn").split(separator: " ")
        #expect(erin.first == "erin@example.com", "\(erin)")
        #expect(finn.first == "finn@example.com", "\(finn)")
        #expect(erin.count == 2 && finn.count == 2 && erin.last != finn.last)
        // Two profile folders, owner-only, each with a cookie store of its own.
        for profile in profiles.values {
            var found = stat()
            #expect(stat(profile, &found) == 0 && found.st_mode & 0o777 == 0o700, "\(profile)")
            #expect(FileManager.default.fileExists(atPath: profile + "/Default/Cookies"), "\(profile)")
        }
        var folder = stat()
        #expect(stat(data + "/browser-profiles", &folder) == 0 && folder.st_mode & 0o777 == 0o700)
    }

    /// A browser command that does not split into words is one line, and nothing is stored.
    @Test func badBrowserCommandIsRefused() throws {
        let result = runner.run(["login", "oidc", "--session-key", "a", "--browser", "chromium 'unclosed"], stdin: "")
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "authdeck login: --browser takes a command line such as 'chromium --user-data-dir={profile} {url}'\n"),
            "stderr: \(result.stderr)")
        let keyless = runner.run(["login", "oidc", "--browser", Self.browser], stdin: "")
        #expect(keyless.status != 0)
        #expect(keyless.stderr.contains("give the session a key"), "stderr: \(keyless.stderr)")
        #expect(runner.run(["list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}
