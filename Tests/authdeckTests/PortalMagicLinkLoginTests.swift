import Foundation
import Testing

/// `authdeck login email-link` through the portal backend end to end: the real binary, `authdeck sandbox` as a
/// child process and the link its outbox got, opened with curl as a browser opens it (the authdeck:// redirect it
/// leads to handed to `authdeck open-url`, as the desktop's URL handler hands it), or that redirect pasted; the
/// confirm-before-store step, a replayed redirect, and addresses refused before anything is sent.
@Suite(.serialized) struct PortalMagicLinkLoginTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup
    static let address = "ada@example.com"

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func live(_ extra: [String] = []) throws -> LiveLogin {
        try LiveLogin(
            runner: runner,
            arguments: [
                "login", "email-link", "--backend", "sandbox-portal", "--contact", Self.address, "--timeout", "30",
            ] + extra, environment: [:])
    }

    /// The newest link the outbox got, once `login` said it was sent.
    func link(_ run: LiveLogin, sent count: Int = 1) throws -> String {
        #expect(run.wait { run.stderr.contains("Check your email: a sign-in link was sent to \(Self.address)") })
        #expect(sandbox.links(to: Self.address).count == count)
        return try #require(sandbox.links(to: Self.address).last)
    }

    /// Opens the link with curl as a browser does: one GET, whose answer is a redirect to the allow-listed
    /// authdeck:// URL, a scheme curl does not follow: its status line and `Location` are read from the headers.
    static func click(_ link: String) throws -> (status: String, redirect: String) {
        let output = try Program.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-D", "-", link])
        let lines = output.text.split(whereSeparator: \.isNewline)
        let status = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let location = lines.first { $0.lowercased().hasPrefix("location:") }
        return (status, location.map { $0.dropFirst("location:".count).trimmingCharacters(in: .whitespaces) } ?? "")
    }

    /// The session stored under the printed key, made by the email link; its token never on stderr.
    func expectStored(_ result: CLIRunner.Result) throws {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try #require(try setup.listed().first { $0["key"] as? String == key })
        #expect(session["backend"] as? String == "sandbox-portal")
        #expect(session["provider"] as? String == "email-link")
        let token = runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!token.isEmpty && !result.stderr.contains(token))
    }

    @Test func aLinkClickedInTheBrowserSignsIn() throws {
        let run = try live(["--yes"])
        let (status, redirect) = try Self.click(try link(run))
        #expect(status == "302")
        #expect(redirect.hasPrefix("authdeck://callback?") && redirect.contains("authMethod=EMAIL_MAGIC_LINK"))
        let handed = runner.run(["open-url", redirect])
        #expect(handed.status == 0, "stderr: \(handed.stderr)")
        let result = run.finish()
        try expectStored(result)
        #expect(result.stderr.contains("keeping the session for"))
    }

    @Test func aPastedRedirectSignsInOnceTheUserKeepsIt() throws {
        let run = try live()
        let (_, redirect) = try Self.click(try link(run))
        run.send(redirect)
        #expect(run.wait { run.stderr.contains("Keep this session? [y/N]") })
        #expect(try setup.listed().isEmpty)
        run.send("y")
        try expectStored(run.finish())
    }

    /// A redirect delivered again while the user is asked changes nothing (one exchange, in the trace), and
    /// delivered to a later sign-in it is a spent token: refused, nothing stored.
    @Test func aReplayedRedirectIsExchangedOnce() throws {
        let trace = folder.path + "/link-trace.jsonl"
        let run = try live(["--trace", trace])
        let (_, redirect) = try Self.click(try link(run))
        #expect(runner.run(["open-url", redirect]).status == 0)
        #expect(run.wait { run.stderr.contains("Keep this session? [y/N]") })
        // Whether the receiver says it was taken already or replays the step, no second exchange starts.
        _ = runner.run(["open-url", redirect])
        run.send("y")
        try expectStored(run.finish())
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let exchanges = lines.filter {
            $0.contains("\"kind\":\"request\"") && $0.contains("/magic-links/validations\"")
        }
        #expect(exchanges.count == 1)

        let later = try live()
        _ = try link(later, sent: 2)
        later.send(redirect)
        let refused = later.finish()
        #expect(refused.status != 0, "stderr: \(refused.stderr)")
        #expect(try setup.listed().count == 1)
    }

    /// The TUI: Email link on New sign-in's portal backend asks the address, says "Check your email", and the
    /// redirect the link leads to, pasted into the waiting screen, ends at the Keep dialog; y stores the session.
    @Test(TmuxPane.required) func newSignInSendsTheLinkAndTakesThePastedRedirect() throws {
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Backend")
        for _ in 0..<8 where !pane.capture().contains("‹ sandbox-portal ›") { pane.send("b") }
        try pane.press("l", until: "Which address should the sign-in link go to?")
        try pane.submit(Self.address, until: "Check your email: a sign-in link was sent to \(Self.address)")
        let (_, redirect) = try Self.click(try #require(sandbox.links(to: Self.address).last))
        try pane.press("p", until: "Enter sends")
        try pane.submit(redirect, until: "Keep this session?", timeout: 20)
        #expect(try setup.listed().isEmpty)
        try pane.press("y", until: "Signed in with Email link")
        pane.send("Enter")
        try pane.waitFor("1 session")
        try pane.quit()
        #expect(try setup.listed().map { $0["provider"] as? String } == ["email-link"])
    }

    @Test func aWrongAddressIsOneLineAndNothingIsSent() throws {
        for contact in ["ada@@example.com", "ada example.com", "+15550100001"] {
            let result = runner.run(["login", "email-link", "--backend", "sandbox-portal", "--contact", contact])
            #expect(result.status == 2, "stderr: \(result.stderr)")
            // One line saying what is wrong, then the usage line every usage error ends with.
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2 && lines.last?.hasPrefix("usage: authdeck login") == true)
            #expect(lines.first?.contains("not a valid email address") == true)
        }
        let missing = runner.run(["login", "email-link", "--backend", "sandbox-portal"])
        #expect(missing.status == 2 && missing.stderr.contains("--contact you@example.com"))
        #expect(sandbox.links(to: Self.address).isEmpty)
        #expect(try setup.listed().isEmpty)
    }

    @Test func backendsWithoutMagicLinksSayTheMethodIsNotEnabled() throws {
        let result = runner.run(["login", "email-link", "--backend", "sandbox-turnkey", "--contact", Self.address])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Email link sign-in is not enabled for this backend"))
        #expect(sandbox.links(to: Self.address).isEmpty)
    }
}
