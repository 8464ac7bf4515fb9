import Foundation
import Testing

/// Under tmux, the real binary against a real sandbox: OIDC's issuer and client id typed on
/// New sign-in, OIDC's PAR and DPoP choices through to Details' binding, a redirect URI no receiver gets told at
/// once, a refusal worded without command-line flags, the QR code at 120×40 read back by zbarimg, and the Trace
/// screen's help.
@Suite(TmuxPane.required)
struct TUISignInTmuxTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let sandbox: SandboxProcess

    init() throws {
        var base = CLIRunner.passphraseStore(in: folder, config: nil)
        sandbox = try SandboxProcess(folder: folder, runner: base)
        base.environment["AUTHDECK_CONFIG"] = sandbox.configPath
        runner = base
    }

    @Test func anIssuerAndClientIDTypedOnNewSignInAreTheOnesUsed() throws {
        let pane = try runner.startTUI(in: folder.path, ScriptedBrowser.approving)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Sign in with")
        // OIDC's button is named as every message names it, without an ellipsis.
        #expect(pane.capture().contains("[o] OIDC") && !pane.capture().contains("OIDC…"), "\(pane.capture())")
        for _ in 0..<4 { pane.send("Right") }
        for _ in 0..<3 { pane.send("Tab") }
        try pane.waitFor("Client id")
        // Plain http to another host is refused on the form, in one line, and nothing starts.
        pane.send("http://id.example.com")
        pane.send("Tab")
        try pane.submit(
            "sandbox-google", until: "The issuer must be an https URL (http only on 127.0.0.1 or localhost).")
        // The error put the keyboard back on the issuer field: clear it.
        for _ in 0..<"http://id.example.com".count { pane.send("BSpace") }
        // The sandbox's Google profile as the issuer: config.json's OIDC issuer is its generic one.
        try pane.submit(sandbox.baseURL + "/oidc/google", until: "Signed in with OIDC", timeout: 20)
        try pane.press("Enter", until: "1 session")
        try pane.quit()
        let listed = runner.run(["list", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        #expect(rows.first?["provider"] as? String == "oidc")
        #expect(rows.first?["issuer"] as? String == sandbox.baseURL + "/oidc/google")
    }

    /// RFC 7638 3: SHA-256 over the JWK's required members (crv, kty, x, y), sorted, no whitespace, base64url; the
    /// JWK read from the header of a proof `authdeck dpop-proof` made with the session's key.
    func thumbprint(ofKeyIn proof: String) -> String {
        let script = """
            import base64, hashlib, json, sys
            header = sys.stdin.read().strip().split(".")[0]
            jwk = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["jwk"]
            members = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
            print(base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).rstrip(b"=").decode())
            """
        return runner.run(executable: "/usr/bin/python3", ["-c", script], stdin: proof).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// config.json turns on PAR and DPoP for OIDC: New sign-in shows both, a method the client cannot use is refused
    /// on the form in login's words, the waiting screen names what applies, the trace the PAR and DPoP steps, and
    /// Details the DPoP key's thumbprint, computed here in Python from the public key the session's proofs carry.
    @Test func dpopAndPARFromConfigAreShownUsedAndTheBindingIsOnDetails() throws {
        try sandbox.configure(
            provider: "oidc", ["pushedAuthorizationRequests": true, "dpop": true], discovered: true)
        // The browser approves four seconds after it opens: long enough to read the waiting screen.
        let pane = try runner.startTUI(
            in: folder.path, ["BROWSER": ScriptedBrowser.path, "SCRIPTED_BROWSER_DELAY": "4"], cols: 80, rows: 24)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Sign in with")
        for _ in 0..<4 { pane.send("Right") }
        try pane.waitFor("PAR on  signed request off  response query  DPoP on")
        try pane.waitFor("‹ automatic (as login chooses) ›")
        // private_key_jwt without a key file: login's line, on the form, and nothing starts.
        for _ in 0..<5 { pane.send("Tab") }
        for _ in 0..<4 { pane.send("Right") }
        try pane.waitFor("‹ private_key_jwt ›")
        try pane.press("Enter", until: "Sign-in unavailable: tokenEndpointAuthMethod private_key_jwt needs a private")
        #expect(pane.capture().contains("Sign in with"))
        for _ in 0..<4 { pane.send("Left") }
        try pane.press("Enter", until: "Protocol: PAR · DPoP · public client", timeout: 10)
        try pane.waitFor("Signed in with OIDC", timeout: 20)
        // The trace names the pushed request and the token request's DPoP proof.
        try pane.press("t", until: "Trace")
        pane.send("g")
        try pane.waitFor("/par · PAR")
        try pane.waitFor("/token · DPoP")  // "proof" lies past column 80
        try pane.press("Escape", until: "Signed in with OIDC")
        try pane.press("Enter", until: "1 session")
        try pane.press("Enter", until: "Client   none: a public client")

        let listed = runner.run(["list", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let key = try #require(rows.first?["key"] as? String)
        let proof = runner.run(["dpop-proof", key, "--method", "GET", "--url", sandbox.baseURL + "/"])
        #expect(proof.status == 0, "stderr: \(proof.stderr)")
        let jkt = thumbprint(ofKeyIn: proof.stdout)
        #expect(jkt.count == 43, "python printed \(jkt)")
        try pane.waitFor("Token    DPoP · jkt " + jkt)
        try pane.press("Escape", until: "1 session")
        try pane.quit()
    }

    @Test func aRedirectURINoReceiverGetsIsToldOnTheWaitingScreenAtOnce() throws {
        // The README's walk-through: Google configured with a redirect URI the browser never brings back.
        var config =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.configPath)))
            as? [String: Any] ?? [:]
        var providers = config["providers"] as? [String: Any] ?? [:]
        var google = providers["google"] as? [String: Any] ?? [:]
        google["redirectURI"] = "https://wrong.example/callback"
        providers["google"] = google
        config["providers"] = providers
        let wrong = folder.path + "/wrong.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: wrong))
        let pane = try runner.startTUI(
            in: folder.path, ["AUTHDECK_CONFIG": wrong, "BROWSER": "/bin/true"], cols: 120, rows: 40)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        pane.send("g")
        // Well inside the five minutes the sign-in waits before it times out.
        try pane.waitFor("⚠ The redirect URI https://wrong.example/callback", timeout: 10)
        let screen = pane.capture()
        #expect(screen.contains("reaches none of authdeck's receivers"))
        #expect(screen.contains("on the list runs doctor"))
        try pane.press("Escape", until: "Sign-in cancelled")
        try pane.quit()
    }

    @Test func theQRCodeFits120x40AndZbarimgReadsItFromTheScreen() throws {
        let pane = try runner.startTUI(in: folder.path, ["BROWSER": "/bin/true"], cols: 120, rows: 40)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.press("g", until: "Scan the code")
        let screen = pane.capture()
        #expect(!screen.contains("needs a larger terminal"))
        // The code's lines: column 1 onwards, half blocks. Light modules are ink: █ both, ▀ the upper, ▄ the lower.
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let codeLines = lines.filter { $0.count > 2 && $0[0] == " " && "█▀▄".contains($0[1]) }
        // The top line is quiet zone, all light: its run of full blocks is the code's width.
        let width = codeLines.first.map { $0.dropFirst().prefix { $0 == "█" }.count } ?? 0
        #expect(codeLines.count >= 20 && codeLines.count <= 37)
        var modules: [[Bool]] = []
        for line in codeLines {
            let cells = Array(line.dropFirst().prefix(width))
            modules.append(cells.map { $0 == " " || $0 == "▄" })  // dark upper half
            modules.append(cells.map { $0 == " " || $0 == "▀" })  // dark lower half
        }
        modules = Array(modules.prefix(width))  // an odd side leaves the last line's lower half outside the code
        guard let decoded = try runner.decodeQR(modules, in: folder, suite: "TUISignInTmuxTests") else {
            pane.send("Escape")
            return
        }
        #expect(decoded.status == 0)
        #expect(
            decoded.stdout.hasPrefix(sandbox.baseURL + "/oidc/google/authorize?response_type=code"),
            "zbarimg read: \(decoded.stdout)")
        pane.send("Escape")
        try pane.quit()
    }

    /// A sign-in refused because a non-sandbox backend reaches the sandbox says how to fix it in the TUI's words
    /// (the Backend field), never with a command-line flag.
    @Test func aRefusalInTheTUINamesNoCommandLineFlag() throws {
        let pane = try runner.startTUI(in: folder.path, ScriptedBrowser.approving, cols: 120, rows: 40)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Backend")
        for _ in 0..<8 where !pane.capture().contains("‹ direct ›") { pane.send("b") }
        try pane.press("g", until: "Sign-in unavailable", timeout: 20)
        let screen = pane.captureJoined()
        #expect(screen.contains("choose sandbox in the Backend field"), "\(screen)")
        #expect(!screen.contains("--backend"), "\(screen)")
        try pane.press("Enter", until: "No sessions yet")
        try pane.quit()
    }

    @Test func questionMarkOnTheTraceScreenListsItsKeys() throws {
        let pane = try runner.startTUI(in: folder.path, ScriptedBrowser.approving)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        pane.send("n")
        try pane.press("g", until: "Signed in with Google", timeout: 20)
        try pane.press("t", until: "? help")
        pane.send("?")
        for text in [
            "previous step", "expand or fold the step's details", "older attempt (the last 20 of this run)",
            "export trace-<time>-<provider>.jsonl", "close the trace",
        ] {
            try pane.waitFor(text)
        }
        try pane.press("x", until: "Secrets are redacted")
        #expect(!pane.capture().contains("older attempt"))
        pane.send("Escape")
        pane.send("Enter")
        try pane.quit()
    }
}
