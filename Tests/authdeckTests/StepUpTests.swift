import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Step-up (RFC 9470) end to end: a resource written apart from authdeck answers 401 with the RFC's own example
/// challenge; the real curl meets it under `authdeck exec --step-up-watch`, which passes curl's output through and
/// names the `login --step-up` to run; that sign-in goes to the sandbox again for the same session with the
/// challenge's `acr_values` and `max_age`, replacing the session only when it succeeds; and an agent told of the
/// challenge refuses the session's tokens until then.
@Suite(.serialized) struct StepUpTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    /// RFC 9470 section 3's first example, on one line.
    static let acrChallenge =
        #"Bearer error="insufficient_user_authentication", "#
        + #"error_description="A different authentication level is required", acr_values="myACR""#
    /// Its second example.
    static let maxAgeChallenge =
        #"Bearer error="insufficient_user_authentication", "#
        + #"error_description="More recent authentication is required", max_age="5""#

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func signedIn(_ key: String = "work") throws {
        let result = runner.run(["login", "oidc", "--session-key", key], stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
    }

    func resource(_ challenge: String) throws -> (server: ScriptServer, url: String, log: String) {
        let log = folder.path + "/authorization-\(challenge.count).log"
        let server = try ScriptServer(
            fixture: "step-up-resource.py", arguments: [challenge, log], folder: folder, runner: runner)
        return (server, "http://127.0.0.1:\(server.port)/orders", log)
    }

    /// curl's command line, run by sh so the token comes from the environment exec gave it, never an argument.
    static func curl(_ flags: String, _ url: String) -> [String] {
        ["/bin/sh", "-c", "exec curl \(flags) --fail -H \"Authorization: Bearer $AUTHDECK_TOKEN\" '\(url)'"]
    }

    @Test func execWatchNamesTheStepUpAndPassesCurlThrough() throws {
        guard Installed.has("/usr/bin/curl") else { return Installed.skip("curl") }
        try signedIn()
        let token = runner.run(["token", "work"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, url, log) = try resource(Self.acrChallenge)
        defer { withExtendedLifetime(server) {} }

        // curl -v prints the response's headers on stderr as `< www-authenticate: …`.
        let verbose = runner.run(["exec", "--step-up-watch", "--session", "work", "--"] + Self.curl("-sv", url))
        #expect(verbose.status == 22, "curl's own exit status for an HTTP error with --fail: \(verbose.stderr)")
        #expect(verbose.stderr.contains("< WWW-Authenticate: " + Self.acrChallenge), "passed through unchanged")
        let said = verbose.stderr.split(separator: "\n").filter { $0.hasPrefix("authdeck exec:") }
        #expect(
            said == [
                "authdeck exec: the resource asked for a stronger sign-in (acr_values \"myACR\"): run "
                    + "authdeck login --step-up work --acr-values myACR"
            ], "stderr: \(verbose.stderr)")
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("Bearer " + token))

        // curl -i prints them on stdout, with the body after them.
        let included = runner.run(["exec", "--step-up-watch", "--session", "work", "--"] + Self.curl("-si", url))
        #expect(included.stdout.contains("WWW-Authenticate: " + Self.acrChallenge))
        #expect(included.stderr.contains("run authdeck login --step-up work --acr-values myACR"))

        // Without the flag nothing is watched or added.
        let plain = runner.run(["exec", "--session", "work", "--"] + Self.curl("-sv", url))
        #expect(plain.status == 22)
        #expect(!plain.stderr.contains("authdeck exec:"))
    }

    @Test func maxAgeChallengeIsNamed() throws {
        guard Installed.has("/usr/bin/curl") else { return Installed.skip("curl") }
        try signedIn()
        let (server, url, _) = try resource(Self.maxAgeChallenge)
        defer { withExtendedLifetime(server) {} }
        let result = runner.run(["exec", "--step-up-watch", "--session", "work", "--"] + Self.curl("-si", url))
        #expect(
            result.stderr.contains(
                "(max_age 5 s): run authdeck login --step-up work --max-age 5"), "stderr: \(result.stderr)")
    }

    @Test func stepUpSignsTheSessionInAgainAndKeepsItOnFailure() throws {
        try signedIn()
        let before = try #require(try setup.listed().first)
        // A denied sign-in leaves the session as it was.
        let denied = runner.run(
            ["login", "--step-up", "work", "--acr-values", "myACR"], stdin: "",
            environment: ["SANDBOX_DECISION": "deny"])
        #expect(denied.status != 0)
        #expect(try setup.listed().first?["createdAt"] as? String == before["createdAt"] as? String)

        Thread.sleep(forTimeInterval: 1.1)  // so the new session's createdAt differs from the old one's
        let tracePath = folder.path + "/step-up.jsonl"
        let result = runner.run(
            ["login", "--step-up", "work", "--acr-values", "myACR urn:x", "--max-age", "5", "--trace", tracePath],
            stdin: "", timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "work\n")
        let listed = try setup.listed()
        #expect(listed.count == 1)
        #expect(listed.first?["provider"] as? String == "oidc")
        #expect(listed.first?["createdAt"] as? String != before["createdAt"] as? String)
        let trace = try String(contentsOfFile: tracePath, encoding: .utf8)
        let authorize = try #require(
            trace.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.first { $0["kind"] as? String == "authorize" })
        let parameters = try #require((authorize["details"] as? [String: Any])?["parameters"] as? [String: Any])
        #expect(parameters["acr_values"] as? String == "myACR urn:x")
        #expect(parameters["max_age"] as? String == "5")
        #expect(parameters["prompt"] == nil, "the session replaced is no second account")
    }

    @Test func stepUpBadInputIsOneLine() throws {
        try signedIn()
        let missing = runner.run(["login", "--step-up", "nosuch"], stdin: "")
        #expect(missing.status == 7, "stderr: \(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1)
        // The challenge's values are checked as every sign-in's shaping is.
        let empty = runner.run(["login", "--step-up", "work", "--acr-values", " "], stdin: "")
        #expect(empty.status == 2)
        #expect(empty.stderr.hasPrefix("authdeck login: --acr-values"), "stderr: \(empty.stderr)")
        let other = runner.run(["login", "google", "--step-up", "work"], stdin: "")
        #expect(other.status == 2)
        #expect(other.stderr.contains("work is a oidc session, not google"))
        let age = runner.run(["login", "--step-up", "work", "--max-age", "-1"], stdin: "")
        #expect(age.status == 2)
        #expect(try setup.listed().count == 1)
    }

    /// The agent hears of the challenge from `exec` (over its real socket) and refuses the session's tokens with
    /// the command to run, until the session is signed in again.
    @Test func agentRefusesTokensUntilSteppedUp() throws {
        guard Installed.has("/usr/bin/curl") else { return Installed.skip("curl") }
        try signedIn()
        let agents = AgentTests()
        let agent = try agents.startAgent(runner, ["--allow", "*"])
        defer { agents.stop(agent) }
        let client = agents.client()
        #expect(client.run(["token", "work"]).status == 0)
        let (server, url, _) = try resource(Self.acrChallenge)
        defer { withExtendedLifetime(server) {} }

        let watched = client.run(["exec", "--step-up-watch", "--session", "work", "--"] + Self.curl("-sv", url))
        #expect(watched.stderr.contains("run authdeck login --step-up work --acr-values myACR"), "\(watched.stderr)")
        let refused = client.run(["token", "work"])
        #expect(refused.status == 4)
        #expect(
            refused.stderr.contains(
                "step-up needed: a resource asked for acr_values \"myACR\"; run "
                    + "authdeck login --step-up work --acr-values myACR"), "stderr: \(refused.stderr)")
        #expect(agents.log.contains("session 'work'") && agents.log.contains("step-up asked"))

        Thread.sleep(forTimeInterval: 1.1)
        let stepped = runner.run(["login", "--step-up", "work", "--acr-values", "myACR"], stdin: "", timeout: 30)
        #expect(stepped.status == 0, "stderr: \(stepped.stderr)")
        let again = client.run(["token", "work"])
        #expect(again.status == 0, "stderr: \(again.stderr)")
    }
}
