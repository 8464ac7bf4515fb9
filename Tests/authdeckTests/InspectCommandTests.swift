import Foundation
import Testing

/// `inspect` and `introspect` on sessions that give them nothing to check or no way to check it: an unknown key, a
/// damaged token, an issuer that cannot be reached, an opaque token, an auth proxy's session, a provider without an
/// introspection endpoint. Each says so in one line with its exit code, and the store is left as it was. The
/// sessions come in through `store import`; the commands run in this process.
@Suite struct InspectCommandTests {
    let runner = CLIRunner.passphraseStore().inProcess

    /// A JWT-shaped token whose header and claims are these JSON texts and whose signature is filler: nothing here
    /// may get as far as checking it.
    static func jwt(header: String, claims: String) -> String {
        func encoded(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return encoded(header) + "." + encoded(claims) + ".c2lnbmF0dXJl"
    }

    func imported(_ lines: String) throws {
        let result = runner.run(["store", "import", "-"], stdin: lines)
        try #require(result.status == 0, "import: \(result.stderr)")
    }

    var listing: String { runner.run(["list", "--json"]).stdout }

    @Test func anUnknownKeyIsNoSuchSession() throws {
        try imported(#"{"key":"known","accessToken":"opaque-1","issuer":"https://id.example.com"}"# + "\n")
        for command in ["inspect", "introspect"] {
            let result = runner.run([command, "nope"])
            #expect(result.status == 7, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("authdeck \(command): ") && result.stderr.contains("nope"))
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty)
        }
    }

    @Test func aDamagedTokenIsNamedAndExits4WithNothingChanged() throws {
        try imported(
            #"{"key":"dmg","idToken":"e30.not base64!.c2ln","accessToken":"opaque-1","issuer":"http://127.0.0.1:1"}"#
                + "\n")
        let before = listing
        let result = runner.run(["inspect", "dmg"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr == "authdeck inspect: failed: id_token damaged\n")
        #expect(result.stdout.contains("ID token: damaged\n"))
        #expect(result.stdout.contains("check decode  FAILED its header or claims are not base64url-encoded JSON"))
        #expect(result.stdout.contains("Access token: opaque"))
        #expect(!result.stdout.contains("not base64!") && !result.stdout.contains("opaque-1"))
        #expect(listing == before)
    }

    @Test func anIssuerThatCannotBeReachedIsOneLineAndExit4() throws {
        let token = Self.jwt(
            header: #"{"alg":"RS256","kid":"k1"}"#, claims: #"{"iss":"http://127.0.0.1:1","sub":"u","exp":1}"#)
        try imported(#"{"key":"far","idToken":"\#(token)","issuer":"http://127.0.0.1:1"}"# + "\n")
        let before = listing
        for arguments in [["inspect", "far"], ["inspect", "far", "--json"], ["introspect", "far"]] {
            let result = runner.run(arguments)
            #expect(result.status == 4, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stderr)")
            #expect(result.stderr.contains("'far'") && result.stderr.contains("127.0.0.1 port 1"), "\(result.stderr)")
            #expect(!result.stderr.contains(token))
        }
        #expect(
            runner.run(["inspect", "far"]).stderr.contains(
                "cannot check the signatures of 'far' without the issuer's keys"))
        #expect(listing == before)
    }

    @Test func anOpaqueAccessTokenNeedsNoNetworkAndPasses() throws {
        try imported(#"{"key":"op","accessToken":"opaque-secret-1","issuer":"http://127.0.0.1:1"}"# + "\n")
        let result = runner.run(["inspect", "op", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let tokens = document?["tokens"] as? [[String: Any]]
        #expect(tokens?.count == 1 && tokens?.first?["format"] as? String == "opaque")
        #expect(document?["ok"] as? Bool == true && !result.stdout.contains("opaque-secret-1"))
    }

    @Test func anAuthProxySessionSaysWhatItHolds() throws {
        let hex = String(repeating: "ab", count: 32)
        try imported(
            #"{"key":"tk","backend":"sandbox-turnkey","provider":"google","sessionJwt":"a.b.c","privateKeyHex":"\#(hex)","#
                + #""issuer":"http://127.0.0.1:1"}"# + "\n")
        let result = runner.run(["inspect", "tk"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("holds") && result.stdout.contains("a session JWT from the sandbox-turnkey"))
        #expect(result.stdout.contains("a P-256 session key") && !result.stdout.contains(hex))
    }
}

/// `inspect` and `introspect` on a session signed in at the sandbox, which publishes keys but no introspection
/// endpoint (in neither its discovery nor its RFC 8414 metadata).
@Suite(.serialized) struct InspectSandboxTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    @Test func aProviderWithoutAnIntrospectionEndpointIsOneLineAndExit4() throws {
        let login = runner.run(["login", "oidc", "--session-key", "s"])
        try #require(login.status == 0, "stderr: \(login.stderr)")
        let inspected = runner.run(["inspect", "s"])
        #expect(inspected.status == 0, "stderr: \(inspected.stderr)")
        #expect(inspected.stdout.contains("ID token: JWT"))
        let before = runner.run(["list", "--json"]).stdout
        let asked = runner.run(["introspect", "s"])
        #expect(asked.status == 4)
        #expect(
            asked.stderr
                == "authdeck introspect: cannot introspect 's': the provider of session 's' has no introspection "
                + "endpoint (none in its discovery or RFC 8414 metadata)\n", "\(asked.stderr)")
        #expect(asked.stdout.isEmpty && runner.run(["list", "--json"]).stdout == before)
    }
}
