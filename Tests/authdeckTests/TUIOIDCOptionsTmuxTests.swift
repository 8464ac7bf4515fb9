import Foundation
import Testing

/// Under tmux at 80×24, the real binary against a real sandbox whose config.json turns on PAR and DPoP for OIDC:
/// New sign-in shows both as config.json sets them, a method the client cannot use is refused on the form in
/// login's words, the waiting screen names what applies, and Details shows the DPoP key's thumbprint, computed
/// here in Python from the public key the session's own proofs carry.
@Suite(TmuxPane.required)
struct TUIOIDCOptionsTmuxTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let sandbox: SandboxProcess

    init() throws {
        var base = CLIRunner.passphraseStore(in: folder, config: nil)
        sandbox = try SandboxProcess(folder: folder, runner: base)
        base.environment["AUTHDECK_CONFIG"] = sandbox.configPath
        runner = base
        try sandbox.configure(
            provider: "oidc", ["pushedAuthorizationRequests": true, "dpop": true], discovered: true)
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

    @Test func dpopAndPARFromConfigAreShownUsedAndTheBindingIsOnDetails() throws {
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
}
