import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension InteropTests {
    /// Any OpenID Connect provider through the Auth Proxy: glewlwyd 2.7 is the issuer of `login oidc --backend
    /// sandbox-turnkey` (the provider leg straight at glewlwyd, signed in by the interop browser), and the sandbox's
    /// proxy trusts glewlwyd's JWKS, which Python fetched from glewlwyd's discovery, so the ID token glewlwyd signed is
    /// what `account`, `signup` and `oauth_login` verify. Its nonce is checked by Python against the session key.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.glewlwyd.available))
    struct GlewlwydProxyInteropTests {
        let server: InteropServer
        let setup: SandboxLoginSetup
        var runner: CLIRunner { setup.runner }

        init() throws {
            server = try InteropServer(.glewlwyd)
            let info = server.info
            let jwksFile = server.folder.path + "/glewlwyd-jwks.json"
            let fetch = """
                import json, sys, urllib.request
                discovery = json.load(urllib.request.urlopen(sys.argv[1] + "/.well-known/openid-configuration"))
                open(sys.argv[2], "wb").write(urllib.request.urlopen(discovery["jwks_uri"]).read())
                """
            _ = CLIRunner(home: server.folder.path).run(
                executable: "/usr/bin/python3", ["-c", fetch, info.issuer, jwksFile])
            setup = try SandboxLoginSetup(sandboxArguments: ["--trust-issuer", info.issuer + "=" + jwksFile])
            try setup.sandbox.configure(
                provider: "oidc",
                [
                    "issuer": info.issuer, "clientID": info.publicClient, "redirectURI": info.redirectURI,
                    "scopes": ["openid"],
                ], discovered: true)
        }

        /// glewlwyd's registered redirect has a fixed port; the interop browser signs in there.
        var arguments: [String] {
            ["login", "oidc", "--backend", "sandbox-turnkey", "--listen", "127.0.0.1:\(server.info.redirectPort)"]
        }
        var browser: [String: String?] {
            [
                "BROWSER": CLIRunner.repositoryRoot + "/Tests/Interop/interop-browser.py",
                "INTEROP_BROWSER_LOG": setup.folder.path + "/interop-browser.log",
            ]
        }

        /// Runs `extra` after `arguments` to its end, typing the email's code when the proxy treats the user as new
        /// (Para's verification step, with the code the sandbox's outbox got).
        func signIn(_ extra: [String]) throws -> CLIRunner.Result {
            let run = try LiveLogin(
                runner: runner, arguments: arguments + extra + ["--timeout", "60"], environment: browser)
            _ = run.wait { run.stderr.contains("New account") || run.stderr.contains("authdeck login:") }
            if run.stderr.contains("New account"), let code = setup.sandbox.codes().last?.code { run.send(code) }
            return run.finish(timeout: 60)
        }

        @Test func aGenericIssuersIDTokenSignsInThroughTheProxy() throws {
            let result = try signIn([])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            // A user the proxy did not know: glewlwyd's email claim got the verification code first.
            #expect(result.stderr.contains("A code was sent to \(server.info.email)"), "stderr: \(result.stderr)")
            let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let session = try #require(try setup.listed().first { $0["key"] as? String == key })
            #expect(session["backend"] as? String == "sandbox-turnkey" && session["provider"] as? String == "oidc")
            let jwt = runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let claims = InteropLogin().jwtClaims(jwt)
            #expect((claims["public_key"] as? String)?.count == 66)
            #expect(claims["user_id"] as? String == session["subject"] as? String)
        }

        /// completeOAuth with a real provider's token: `--oidc-token-only` prints glewlwyd's ID token, whose nonce
        /// Python finds to be sha256 of the printed key, and `--oidc-token` hands it to the proxy with that key.
        @Test func glewlwydsTokenFinishesTheSignInInTwoSteps() throws {
            let first = runner.run(arguments + ["--oidc-token-only"], stdin: "", environment: browser, timeout: 60)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let lines = first.stdout.split(separator: "\n").map(String.init)
            try #require(lines.count == 2, "stdout: \(first.stdout)")
            let (token, publicKey) = (lines[0], lines[1])
            let claims = InteropLogin().jwtClaims(token)
            #expect(claims["iss"] as? String == server.info.issuer)
            let nonce = runner.run(
                executable: "/usr/bin/python3",
                [CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/oidc-token-mint.py", "nonce", publicKey]
            ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(claims["nonce"] as? String == nonce)
            #expect(try setup.listed().isEmpty)

            let file = setup.folder.write("glewlwyd-token", token + "\n")
            chmod(file, 0o600)
            let done = try signIn(["--oidc-token", file, "--public-key", publicKey])
            #expect(done.status == 0, "stderr: \(done.stderr)")
            let key = done.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let jwt = runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(InteropLogin().jwtClaims(jwt)["public_key"] as? String == publicKey)
        }
    }
}
