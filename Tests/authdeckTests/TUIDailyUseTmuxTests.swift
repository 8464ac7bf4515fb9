import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Under tmux, the real binary: the first run without a keyring, dumb terminals, and the daily keys.
@Suite(TmuxPane.required)
struct TUIDailyUseTmuxTests {
    let folder = TemporaryFolder()
    /// No passphrase file and no session bus: nothing but the screen can give the store a key.
    let runner: CLIRunner

    init() {
        var base = CLIRunner.passphraseStore(in: folder)
        base.environment["AUTHDECK_PASSPHRASE_FILE"] = nil
        runner = base
    }

    /// Sandboxes started by `againstSandbox`, kept running until the test (this suite instance) ends.
    private let sandboxes = SandboxHolder()

    /// `store` against a sandbox started for this test (its config; `browser` as $BROWSER).
    func againstSandbox(_ store: CLIRunner, browser: [String: String] = [:]) throws -> CLIRunner {
        let sandbox = try SandboxProcess(folder: folder, runner: store)
        sandboxes.keep(sandbox)
        var against = store
        against.environment["AUTHDECK_CONFIG"] = sandbox.configPath
        against.environment.merge(browser) { _, new in new }
        return against
    }

    @Test func aFirstRunChoosesThePassphraseTwiceThenCarriesOnWithTheSignIn() throws {
        let pane = try againstSandbox(runner, browser: ScriptedBrowser.approving).startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("Choose a passphrase for the new store.")
        #expect(!pane.capture().contains("store is locked"))
        // Later: the list, then n asks again instead of failing with "the store is locked".
        try pane.press("Escape", until: "No sessions yet")
        try pane.press("n", until: "Choose a passphrase for the new store.")
        try pane.submit("first-try", until: "Repeat it")
        try pane.submit("first-tyr", until: "The two passphrases differ")
        pane.send("plum tree 42")
        pane.send("Enter")
        pane.send("plum tree 42")
        pane.send("Enter")
        // The unlock carries on with what asked for it: the New sign-in screen, not the list.
        try pane.waitFor("Sign in with", timeout: 20)
        try pane.press("g", until: "Signed in with Google", timeout: 20)
        try pane.press("Enter", until: "1 session")
        try pane.quit()
        // The key is wrapped by the chosen passphrase: a script with it reads the token, a wrong one cannot.
        let listed = runner.run(["list", "--json"])
        let key = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?
                .first?["key"] as? String)
        _ = runner.run(["store", "lock"])
        let right = runner.run(
            ["token", key],
            environment: [
                "AUTHDECK_PASSPHRASE_FILE": folder.write("right", "plum tree 42\n")
            ])
        #expect(right.status == 0, "token: \(right.stderr)")
        _ = runner.run(["store", "lock"])
        let wrong = runner.run(
            ["token", key],
            environment: [
                "AUTHDECK_PASSPHRASE_FILE": folder.write("wrong", "first-try\n")
            ])
        #expect(wrong.status != 0)
    }

    @Test func aDumbTerminalIsRefusedWithAUsageError() throws {
        let pane = try runner.startTUI(in: folder.path, term: "dumb")
        defer { pane.close() }
        #expect(pane.exitStatus() == 2)
        let screen = pane.capture()
        #expect(screen.contains("TERM=dumb cannot move the cursor"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/home/sessions.db"))
    }

    /// Sessions imported as JSON lines with a passphrase store: three as in TUITmuxTests plus two that differ only
    /// in their backend and a long key.
    func seeded() -> CLIRunner {
        var seededRunner = runner
        seededRunner.environment["AUTHDECK_PASSPHRASE_FILE"] = folder.write("passphrase", "correct horse\n")
        let long = "support-repro-google-3e479fbd-0f7c-4a8e-9d51-2b6f1c0e7a93"
        let sessions = [
            ("alpha-google", "direct", "google", 3600.0, true),
            ("bravo-discord", "direct", "discord", 200, false),
            ("charlie-x", "direct", "x", -3700, false),
            ("delta-portal", "sandbox-portal", "google", 900, false),
            (long, "sandbox-turnkey", "google", 900, false),
        ].map { key, backend, provider, expires, selected in
            SeedSession(
                key: key, backend: backend, provider: provider, email: "\(key.prefix(5))@example.com", created: -7200,
                expires: expires, selected: selected, accessToken: "token-\(key.prefix(8))")
        }
        SeedSession.importAll(sessions, into: seededRunner, via: folder)
        return seededRunner
    }

    /// `store` in the TUI, once it lists its five sessions.
    func seededTUI(_ store: CLIRunner, cols: Int = 100, rows: Int = 30) throws -> TmuxPane {
        let pane = try store.startTUI(in: folder.path, cols: cols, rows: rows)
        do {
            try pane.waitFor("5 sessions")
        } catch {
            pane.close()
            throw error
        }
        return pane
    }

    func selectedKey(_ runner: CLIRunner) throws -> String? {
        let result = runner.run(["list", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.first { $0["selected"] as? Bool == true }?["key"] as? String
    }

    @Test func enterOpensDetailsUChangesTheDefaultAndZUndoesIt() throws {
        let store = seeded()
        let project = folder.path + "/project"
        mkdir(project, 0o755)
        _ = folder.write("project/.authdeck-session", "delta-portal\n")
        let command = "cd '\(project)' && exec '\(CLIRunner.binary)' tui"
        let pane = try TmuxPane(
            command: ["/bin/sh", "-c", command], environment: store.environment,
            folder: folder.path, cols: 80, rows: 24)
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        var screen = pane.capture()
        // 80×24: the bar keeps help and quit; the two sandbox backends are told apart; the folder's session is @.
        let bar = screen.split(separator: "\n").last.map(String.init) ?? ""
        #expect(bar.contains("? help") && bar.contains("q quit"), "\(bar)")
        #expect(screen.contains("sandbox-portal") && screen.contains("sandbox-turnkey"))
        #expect(screen.contains("@ delta-portal"))
        #expect(screen.contains("1/5"))
        #expect(screen.contains("-1h 01m") || screen.contains("-1h 02m"))
        #expect(screen.contains("…") && screen.contains("7a93"))
        // A stray Enter changes nothing: it opens the details.
        pane.send("Down")
        try pane.press("Enter", until: "Session bravo-discord")
        try pane.waitFor("Actions")
        #expect(try selectedKey(store) == "alpha-google")
        try pane.press("u", until: "Scripts now use bravo-discord by default (was alpha-google)")
        #expect(try selectedKey(store) == "bravo-discord")
        try pane.press("z", until: "Undone: scripts use alpha-google by default again.")
        #expect(try selectedKey(store) == "alpha-google")
        try pane.press("Escape", until: "2/5")
        // Help is the key table, aligned.
        try pane.press("?", until: "Keys")
        screen = pane.capture()
        #expect(screen.contains("u       default for scripts"))
        #expect(screen.contains("Enter   details and actions"))
        pane.send("Escape")
        // Filter by status, then mark both sandbox rows and sign out of them: Enter means No, y means yes.
        pane.send("/")
        try pane.submit("status:expired", until: "1 of 5 match")
        #expect(pane.capture().contains("charlie-x"))
        pane.send("Escape")
        pane.send("/")
        try pane.submit("backend:sandbox", until: "2 of 5 match")
        pane.send("Space")
        try pane.press("Space", until: "2 marked")
        try pane.press("d", until: "Sign out of 2 marked sessions")
        try pane.press("Enter", until: "Nothing was signed out.")
        try pane.press("d", until: "Sign out of 2 marked sessions")
        try pane.press("y", until: "0 of 3 match")
        try pane.quit()
        let keys = try
            (JSONSerialization.jsonObject(with: Data(store.run(["list", "--json"]).stdout.utf8))
            as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
        #expect(keys == ["alpha-google", "bravo-discord", "charlie-x"])
    }

    @Test func copiesGoToTheClipboardWithOSC52() throws {
        let store = seeded()
        let pane = try store.startTUI(in: folder.path)
        defer { pane.close() }
        pane.tmuxCommand(["set", "-s", "set-clipboard", "on"])
        try pane.waitFor("5 sessions")
        try pane.press("y", until: "Copied the key alpha-google")
        #expect(pane.pasteBuffer() == "alpha-google")
        try pane.press("e", until: "Copied an export line")
        #expect(pane.pasteBuffer() == "export AUTHDECK_SESSION=alpha-google")
        try pane.press("Enter", until: "Session alpha-google")
        try pane.press("c", until: "Copied the access token of alpha-google; clears in 45 s")
        #expect(pane.pasteBuffer() == "token-alpha-go")
        #expect(!pane.capture().contains("token-alpha-go"))  // copied, never shown
        try pane.quit()
    }

    @Test func rRepeatsADeniedSignInAndTheTraceKeepsBothAttempts() throws {
        // The first consent is denied, the second approved.
        let count = folder.path + "/browser-count"
        let browser = folder.writeScript(
            "browser.sh",
            """
            #!/bin/sh
            sleep 1
            if [ -e '\(count)' ]; then answer=approve; else answer=deny; touch '\(count)'; fi
            curl -s -L -o /dev/null "$1&sandbox_user=ada&sandbox_auto=$answer"
            """)
        let pane = try seededTUI(againstSandbox(seeded(), browser: ["BROWSER": browser]))
        defer { pane.close() }
        try pane.press("n", until: "Sign in with")
        try pane.press("g", until: "R retry", timeout: 20)
        #expect(!pane.capture().contains("Signed in with"))
        try pane.press("R", until: "Signed in with Google", timeout: 20)
        try pane.press("t", until: "attempt 2 of 2")
        try pane.press("[", until: "attempt 1 of 2")
        try pane.press("e", until: "Trace written to")
        let traces = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/home/traces")
        #expect(traces.count == 1)
        let name = try #require(traces.first)
        #expect(
            name.range(
                of: #"^trace-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-google\.jsonl$"#,
                options: .regularExpression) != nil, "\(name)")
        pane.send("Escape")
        try pane.press("Enter", until: "6 sessions")
        try pane.quit()
    }

    @Test func enterOnATraceStepShowsItsRedactedDetailsAndTheIDTokenClaims() throws {
        let pane = try seededTUI(againstSandbox(seeded(), browser: ScriptedBrowser.approving))
        defer { pane.close() }
        try pane.press("n", until: "Sign in with")
        try pane.press("g", until: "Signed in with Google", timeout: 20)
        try pane.press("t", until: "POST http://127.0.0.1:")
        #expect(pane.capture().contains("▸"))
        // From the first step, expand each in turn until the ID token's decoded claims are on screen; every
        // token seen on the way is redacted.
        pane.send("g")
        var claims = false
        for _ in 0..<40 where !claims {
            pane.send("Enter")
            let screen = pane.capture()
            for line in screen.split(separator: "\n")
            where line.contains("\"access_token\"")
                || line.contains("\"refresh_token\"") || line.contains("\"id_token\" :")
            {
                #expect(line.contains("[redacted"), "\(line)")
            }
            claims = screen.contains("\"claims\" : {") && screen.contains("\"email\" : \"ada@example.com\"")
            pane.send("j")
        }
        #expect(claims, "the ID token's claims never showed:\n\(pane.capture())")
        pane.send("Escape")
        pane.send("Escape")
        try pane.quit()
    }

    /// An SGR (1006) mouse press and release at a 0-based screen position, as xterm reports a left click.
    static func click(row: Int, col: Int) -> [UInt8] {
        Array("\u{1B}[<0;\(col + 1);\(row + 1)M\u{1B}[<0;\(col + 1);\(row + 1)m".utf8)
    }

    @Test func mouseClicksPressResendAndOpenARow() throws {
        let pane = try seededTUI(againstSandbox(seeded()))
        defer { pane.close() }
        // Row 3 of the screen is the second session; a click moves there, a second click opens it.
        pane.sendRaw(Self.click(row: 3, col: 10))
        try pane.waitFor("2/5")
        pane.sendRaw(Self.click(row: 3, col: 10))
        try pane.waitFor("Session bravo-discord")
        pane.send("Escape")
        pane.send("n")
        try pane.press("e", until: "Which address should the code go to?")
        try pane.submit("ada@example.com", until: "A code was sent to ada@example.com.")
        // The Resend button (row 6, from column 10) answers a click: too early, it says when.
        pane.sendRaw(Self.click(row: 6, col: 12))
        try pane.waitFor("You can ask for a new code in")
        try pane.press("Escape", until: "Sign-in cancelled")
        try pane.quit()
    }

    @Test func makeRunPrintsTheExportLinesAnotherTerminalNeeds() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/run-sandbox.sh").path
        let home = folder.path + "/sandbox-home"
        let result = runner.run(executable: script, [CLIRunner.binary], environment: ["AUTHDECK_HOME": home])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("export AUTHDECK_HOME=") })
        #expect(
            line.trimmingCharacters(in: .whitespaces)
                == "export AUTHDECK_HOME=\(home) AUTHDECK_CONFIG=\(home)/sandbox-config.json")
    }

    @Test func loginSessionIsAUsageErrorThatNamesSessionKey() {
        let result = runner.run(["login", "google", "--session", "work"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--session-key KEY"))
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/home/sessions.db"))
    }

    @Test func theNewSignInScreenOffersTheDeviceGrant() throws {
        let pane = try seededTUI(againstSandbox(seeded(), browser: ["BROWSER": "/bin/true"]), cols: 120, rows: 40)
        defer { pane.close() }
        pane.send("n")
        try pane.press("m", until: "device grant")
        try pane.press("g", until: "On any device, open this address and enter the code", timeout: 20)
        try pane.press("Escape", until: "Sign-in cancelled")
        try pane.quit()
    }

    @Test func dRunsTheDoctorFromTheTUI() throws {
        let pane = try seededTUI(seeded(), cols: 120, rows: 40)
        defer { pane.close() }
        try pane.press("D", until: "Any key closes this.", timeout: 60)
        let screen = pane.capture()
        #expect(screen.contains("config") && screen.contains("store"))
        pane.send("x")
        try pane.quit()
    }

    @Test func theAuthorizeURLIsOneLogicalLineAtEverySize() throws {
        let pane = try seededTUI(againstSandbox(seeded(), browser: ["BROWSER": "/bin/true"]), cols: 80, rows: 24)
        defer { pane.close() }
        pane.send("n")
        try pane.press("g", until: "Waiting for the redirect", timeout: 20)
        for (cols, rows) in [(80, 24), (120, 40), (100, 30)] {
            pane.resize(cols: cols, rows: rows)
            Thread.sleep(forTimeInterval: 1.2)  // a tick repaints
            if cols == 120 {
                // At 120×40 the full-size QR code takes the height: the URL sits beside it in rows (c copies it
                // whole), which read back in order give the whole URL.
                let lines = pane.capture().split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
                var url = ""
                if let first = lines.firstIndex(where: { String($0).contains("/oidc/google/authorize?") }) {
                    let start = String(lines[first]).distance(
                        from: String(lines[first]).startIndex,
                        to: String(lines[first]).range(of: "http://127.0.0.1:")!.lowerBound)
                    for line in lines[first...] {
                        let text = line.count > start ? String(line[start...]).trimmingCharacters(in: .whitespaces) : ""
                        if text.isEmpty || text.contains(" ") { break }
                        url += text
                    }
                }
                #expect(pane.capture().contains("Scan the code"))
                #expect(
                    url.contains("/authorize?") && url.contains("code_challenge=") && url.contains("nonce="),
                    "\(url)")
                // v leaves the code out: the URL gets whole rows again, one logical line; v brings the code back.
                pane.send("v")
                Thread.sleep(forTimeInterval: 1.2)
                let whole = pane.captureJoined().split(separator: "\n").map(String.init)
                let single = whole.first { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/authorize?") }
                #expect(
                    single?.contains("code_challenge=") == true && single.map { $0.count > cols } == true,
                    "after v: \(whole.joined(separator: "\n"))")
                #expect(!pane.capture().contains("Scan the code"))
                try pane.press("v", until: "Scan the code")
                continue
            }
            let joined = pane.captureJoined().split(separator: "\n").map(String.init)
            let line = joined.first { $0.hasPrefix("http://127.0.0.1:") && $0.contains("/authorize?") }
            #expect(
                line?.contains("code_challenge=") == true && line?.contains("state=") == true,
                "\(cols)x\(rows): \(joined.joined(separator: "\n"))")
            #expect(line.map { $0.count > cols } == true)
        }
        pane.send("Escape")
        try pane.quit()
    }

    @Test func theNextRunOpensNewSignInOnTheBackendLastUsed() throws {
        let store = seeded()
        let against = try againstSandbox(store, browser: ["BROWSER": "/bin/true"])
        let first = try against.startTUI(in: folder.path)
        try first.waitFor("5 sessions")
        try first.press("n", until: "‹ sandbox ›")
        first.send("b")
        let screen = first.capture()
        let chosen = try #require(screen.range(of: #"‹ [a-z-]+ ›"#, options: .regularExpression).map { screen[$0] })
        #expect(chosen != "‹ sandbox ›")
        try first.press("g", until: "Waiting for the redirect", timeout: 20)
        first.send("Escape")
        try first.quit()
        first.close()
        mkdir(folder.path + "/second", 0o755)
        let second = try against.startTUI(in: folder.path + "/second")
        defer { second.close() }
        try second.waitFor("5 sessions")
        try second.press("n", until: String(chosen))
        second.send("Escape")
        try second.quit()
    }
}

/// Keeps sandboxes alive for as long as the test that started them.
final class SandboxHolder: @unchecked Sendable {
    private var running: [SandboxProcess] = []

    func keep(_ sandbox: SandboxProcess) { running.append(sandbox) }
}
