import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The whole program under tmux: `authdeck tui` in a 100×30 pane, keys sent with send-keys, the screen read with
/// capture-pane. Skipped only when tmux is missing outside CI.
@Suite(TmuxPane.required)
struct TUITmuxTests {
    let runner = CLIRunner.passphraseStore()
    var folder: TemporaryFolder { runner.folder }

    /// Three sessions in the store, one selected, imported as JSON lines.
    func seed() {
        let sessions = [
            ("alpha-google", "google", "ada@example.com", 3600.0, true),
            ("bravo-discord", "discord", "grace@example.com", 200, false),
            ("charlie-x", "x", "hopper@example.com", -60, false),
        ].map { key, provider, email, expires, selected in
            SeedSession(
                key: key, provider: provider, email: email, created: -600, expires: expires, selected: selected,
                accessToken: "token-\(key)")
        }
        SeedSession.importAll(sessions, into: runner, via: folder)
    }

    func listed() throws -> [[String: Any]] {
        let result = runner.run(["list", "--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    @Test func moveSelectAndSignOutWithConfirmation() throws {
        seed()
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("3 sessions")
        let screen = pane.capture()
        #expect(screen.contains("alpha-google") && screen.contains("bravo-discord") && screen.contains("charlie-x"))
        #expect(screen.contains("expiring") && screen.contains("expired"))
        pane.send("Down")
        try pane.press("Enter", until: "Session bravo-discord")
        try pane.press("u", until: "Scripts now use bravo-discord by default")
        try pane.press("d", until: "Sign out of bravo-discord (discord, ")
        try pane.press("n", until: "Nothing was signed out")
        try pane.press("d", until: "Sign out of bravo-discord (discord, ")
        try pane.press("y", until: "Signed out of bravo-discord")
        try pane.waitFor("2 sessions")
        try pane.quit()
        let sessions = try listed()
        #expect(sessions.map { $0["key"] as? String } == ["alpha-google", "charlie-x"])
        #expect(sessions.allSatisfy { $0["selected"] as? Bool == false })
    }

    @Test func escDuringAwaitingCallbackReturnsToTheListWithNothingStored() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        // A browser that never comes back: the screen waits until Esc.
        let pane = try runner.startTUI(
            in: folder.path, ["AUTHDECK_CONFIG": sandbox.configPath, "BROWSER": "/bin/true"])
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.waitFor("Sign in with")
        pane.send("g")
        // The screen says it waits as soon as the sign-in starts; the URL comes once the attempt has begun.
        try pane.waitFor("/oidc/google/authorize?")
        let waiting = pane.capture()
        #expect(waiting.contains("Waiting for the redirect"))
        #expect(waiting.contains("loopback http://127.0.0.1:"))
        #expect(waiting.contains("/oidc/google/authorize?"))
        pane.send("g")  // a second press of the same key starts nothing
        try pane.press("Escape", until: "Sign-in cancelled; nothing was stored.")
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.press("e", until: "Which address should the code go to?")
        pane.send("Escape")
        try pane.press("Escape", until: "No sessions yet")
        try pane.quit()
        #expect(try listed().isEmpty)
    }

    @Test func aBrowserSignInAgainstTheSandboxShowsTheWaitThenTheNewSession() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        let pane = try runner.startTUI(
            in: folder.path, ScriptedBrowser.approving.merging(["AUTHDECK_CONFIG": sandbox.configPath]) { $1 })
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.press("g", until: "Waiting for the redirect from the browser")
        try pane.waitFor("Signed in with Google", timeout: 20)
        try pane.press("Enter", until: "1 session")
        #expect(pane.capture().contains("google-ada"))
        try pane.press("t", until: "POST http://127.0.0.1:")
        pane.send("Escape")
        try pane.quit()
        let sessions = try listed()
        #expect(sessions.count == 1)
        #expect((sessions.first?["key"] as? String)?.hasPrefix("google-ada") == true)
    }

    /// A Portal sign-in (its redirect carries no state) stops at a dialog naming the account it
    /// signs in; n stores nothing, y stores the session.
    @Test func aPortalSessionIsStoredOnlyAfterKeepInTheDialog() throws {
        let setup = try SandboxLoginSetup()
        let pane = try setup.runner.startTUI(in: setup.folder.path)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        for answer in ["n", "y"] {
            try pane.press("n", until: "Backend")
            for _ in 0..<8 where !pane.capture().contains("‹ sandbox-portal ›") { pane.send("b") }
            try pane.press("g", until: "Keep this session?", timeout: 20)
            // Portal names the account by its id alone when no TOTP enrolment link named it.
            let screen = pane.capture()
            #expect(screen.contains("The browser came back signed in as ") && screen.contains("sandbox-portal)."))
            #expect(try setup.listed().isEmpty)
            try pane.press(answer, until: answer == "y" ? "Signed in with Google" : "Sign-in cancelled")
            pane.send("Enter")
        }
        try pane.waitFor("1 session")
        try pane.quit()
        #expect(try setup.listed().map { $0["backend"] as? String } == ["sandbox-portal"])
    }

    @Test func anEmailCodeTypedOnScreenThenATOTPCodeSignIn() throws {
        let sandbox = try SandboxProcess(folder: folder, runner: runner)
        let pane = try runner.startTUI(in: folder.path, ["AUTHDECK_CONFIG": sandbox.configPath])
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        // Ada: email, code from the outbox typed into the digit boxes.
        pane.send("n")
        try pane.press("e", until: "Which address should the code go to?")
        try pane.submit("ada@example.com", until: "A code was sent to ada@example.com.")
        #expect(pane.capture().contains("Resend in 0:"))
        // The sandbox's outbox is where its config says, not in the store's folder: the screen names it all the same.
        #expect(pane.captureJoined().contains("Sandbox: the code is in " + sandbox.outboxPath))
        let adaCode = try #require(sandbox.codes().last { $0.contact == "ada@example.com" }?.code)
        try pane.submit(adaCode, until: "Signed in with Email code as ada@example.com")
        try pane.press("Enter", until: "1 session")
        // Dora: email code, then the TOTP screen; a wrong code keeps it with one attempt less, the right one signs in.
        pane.send("n")
        try pane.press("e", until: "Which address should the code go to?")
        try pane.submit("dora@example.com", until: "A code was sent to dora@example.com.")
        let doraCode = try #require(sandbox.codes().last { $0.contact == "dora@example.com" }?.code)
        try pane.submit(doraCode, until: "needs a TOTP code")
        #expect(!pane.capture().contains("JBSWY3DPEHPK3PXP"))  // the enrolment secret is never shown as text
        let secret = Base32.decode("JBSWY3DPEHPK3PXP") ?? []
        let right = TOTP.code(secret: secret, time: Int64(Date().timeIntervalSince1970))
        let wrong = String(right.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })
        try pane.submit(wrong, until: "That code is not valid.")
        try pane.waitFor("attempts left")
        try pane.submit(
            TOTP.code(secret: secret, time: Int64(Date().timeIntervalSince1970)),
            until: "Signed in with Email code as dora@example.com")
        try pane.press("Enter", until: "2 sessions")
        try pane.quit()
        #expect(try listed().count == 2)
    }

    @Test func aResizeStormAndATinyPaneKeepTheProgramAlive() throws {
        seed()
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("3 sessions")
        for (cols, rows) in [(40, 10), (120, 40), (59, 15), (100, 30), (61, 17), (100, 30)] {
            pane.resize(cols: cols, rows: rows)
        }
        pane.resize(cols: 50, rows: 12)
        try pane.waitFor("Terminal too small")
        pane.resize(cols: 100, rows: 30)
        try pane.waitFor("3 sessions")
        try pane.quit(with: "C-c")
    }
}
