import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Turnkey's `completeOAuth` in two steps, through the real binary and `authdeck sandbox`: `login --oidc-token-only`
/// stops at the provider's OIDC token (on stdout only) and keeps just its session key, pending; `login --oidc-token
/// FILE|- --public-key HEX` finishes with that token, or with one an issuer written in Python's `cryptography`
/// (Fixtures/oidc-token-mint.py, trusted by the sandbox's proxy through `--trust-issuer`) minted for the key. Nonces
/// and claims are worked out and read by Python, never by authdeck's helpers.
@Suite(.serialized, .enabled(if: InteropServer.Kind.tokenExchange.available))
struct CompleteOAuthTests: SandboxLoginSuite {
    static let issuer = "https://python-issuer.example"
    let issuerKeys: TemporaryFolder
    let setup: SandboxLoginSetup

    init() throws {
        let keys = TemporaryFolder()
        _ = CLIRunner(home: keys.path).run(executable: "/usr/bin/python3", [Self.mint, "keys", keys.path])
        issuerKeys = keys
        setup = try SandboxLoginSetup(sandboxArguments: [
            "--trust-issuer", Self.issuer + "=" + keys.path + "/jwks.json",
        ])
    }

    static let mint = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/oidc-token-mint.py"

    func python(_ arguments: [String]) -> String {
        runner.run(executable: "/usr/bin/python3", [Self.mint] + arguments).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A token the Python issuer signs for `publicKey`'s nonce.
    func minted(for publicKey: String, subject: String = "py-user") -> String {
        python(["mint", issuerKeys.path, Self.issuer, "authdeck-python", subject, publicKey])
    }

    /// An owner-only file holding `token`, as a secret file must be.
    func tokenFile(_ token: String, name: String = "oidc-token") -> String {
        let path = folder.write(name, token + "\n")
        chmod(path, 0o600)
        return path
    }

    /// `--oidc-token-only` for ada at the sandbox's Google: the token and the public key it printed.
    func tokenOnly() throws -> (token: String, publicKey: String, result: CLIRunner.Result) {
        let result = runner.run(["login", "google", "--backend", "sandbox-turnkey", "--oidc-token-only"], stdin: "")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "stdout: \(result.stdout)")
        return (lines[0], lines[1], result)
    }

    func complete(_ arguments: [String], stdin: String = "") -> CLIRunner.Result {
        runner.run(["login", "google", "--backend", "sandbox-turnkey"] + arguments, stdin: stdin)
    }

    /// The `public_key` the proxy bound the stored session's JWT to, read by Python.
    func boundKey(_ result: CLIRunner.Result) -> String? {
        let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let jwt = runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return InteropLogin().jwtClaims(jwt)["public_key"] as? String
    }

    @Test func theFirstStepPrintsTheTokenAndKeyAndTheSecondStoresTheSession() throws {
        let (token, publicKey, first) = try tokenOnly()
        #expect(publicKey.count == 66 && publicKey.allSatisfy(\.isHexDigit))
        let claims = InteropLogin().jwtClaims(token)
        #expect(claims["nonce"] as? String == python(["nonce", publicKey]))
        #expect(claims["email"] as? String == "ada@example.com")
        #expect(!first.stderr.contains(token))
        #expect(first.stderr.contains("no session is stored"), "stderr: \(first.stderr)")
        #expect(try setup.listed().isEmpty)

        let done = complete(["--oidc-token", tokenFile(token), "--public-key", publicKey])
        #expect(done.status == 0, "stderr: \(done.stderr)")
        #expect(!done.stderr.contains(token))
        #expect(boundKey(done) == publicKey)
        #expect(try setup.listed().count == 1)

        // The pending key went with its token: a second completion is refused before anything is sent.
        let again = complete(["--oidc-token", tokenFile(token, name: "again"), "--public-key", publicKey])
        #expect(again.status == 2)
        #expect(again.stderr.contains("holds no pending session key"), "stderr: \(again.stderr)")
    }

    /// `--json` prints the SDK's onOAuthSuccess value: the token, the public key and the provider's name.
    @Test func theFirstStepAsJSONNamesTokenKeyAndProvider() throws {
        let result = runner.run(
            ["login", "google", "--backend", "sandbox-turnkey", "--oidc-token-only", "--json"], stdin: "")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let token = try #require(object["oidcToken"] as? String)
        let publicKey = try #require(object["publicKey"] as? String)
        #expect(object["providerName"] as? String == "google" && object["expiresAt"] is String)
        #expect(InteropLogin().jwtClaims(token)["nonce"] as? String == python(["nonce", publicKey]))
        #expect(!result.stderr.contains(token))
    }

    /// completeOAuth with an OIDC token from elsewhere: Python's issuer mints it for the pending key, standard input
    /// carries it, and the proxy (trusting that issuer's JWKS) signs the new user up and binds the session to the key.
    @Test func aTokenMintedElsewhereForThePendingKeyFinishesFromStandardInput() throws {
        let (_, publicKey, _) = try tokenOnly()
        let token = minted(for: publicKey)
        let done = complete(["--oidc-token", "-", "--public-key", publicKey], stdin: token + "\n")
        #expect(done.status == 0, "stderr: \(done.stderr)")
        #expect(done.stderr.contains("Account created and signed in"), "stderr: \(done.stderr)")
        #expect(boundKey(done) == publicKey)
    }

    /// Every bad input is one line, exit 2, with nothing stored and the pending key still there for a good token.
    @Test func badInputIsOneLineAndStoresNothing() throws {
        let (_, publicKey, _) = try tokenOnly()
        let stranger = python(["public-key"])
        let openFile = folder.write("open-token", minted(for: publicKey) + "\n")
        chmod(openFile, 0o644)
        let cases: [(arguments: [String], says: String)] = [
            (["--oidc-token", folder.path + "/missing", "--public-key", publicKey], "cannot read"),
            (["--oidc-token", openFile, "--public-key", publicKey], "chmod 600"),
            (["--oidc-token", tokenFile("not.a-jwt", name: "junk"), "--public-key", publicKey], "holds no JWT"),
            (
                ["--oidc-token", tokenFile(minted(for: publicKey), name: "t1"), "--public-key", "abc"],
                "compressed P-256"
            ),
            (
                ["--oidc-token", tokenFile(minted(for: stranger), name: "t2"), "--public-key", stranger],
                "holds no pending session key"
            ),
            (
                ["--oidc-token", tokenFile(minted(for: stranger), name: "t3"), "--public-key", publicKey],
                "nonce is not sha256 of --public-key"
            ),
            (["--oidc-token", tokenFile(minted(for: publicKey), name: "t4")], "needs --public-key"),
            (["--oidc-token-only", "--backend", "sandbox"], "name a turnkey backend"),
        ]
        for (arguments, says) in cases {
            let result = complete(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
            // One line saying what is wrong, then the usage line every usage error ends with.
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2 && lines.last?.hasPrefix("usage: authdeck login") == true, "\(result.stderr)")
        }
        #expect(try setup.listed().isEmpty)
        let done = complete([
            "--oidc-token", tokenFile(minted(for: publicKey), name: "good"), "--public-key", publicKey,
        ])
        #expect(done.status == 0, "stderr: \(done.stderr)")
    }
}
