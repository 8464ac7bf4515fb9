import Foundation
import Testing

/// `authdeck dpop-proof` offline: a session imported with a DPoP key (RFC 6979 A.2.5's P-256 key) and an access
/// token whose `cnf.jkt` Python computed from that key; every proof is checked by Tests/Interop/dpop-check.py with
/// Python's `cryptography` (typ, thumbprint, htm, htu, ath, iat, signature), never by authdeck's code.
@Suite struct DPoPProofTests {
    let folder = TemporaryFolder()

    /// The session's access token: `{"cnf":{"jkt": thumbprint}}` as its payload, the thumbprint made in Python.
    func boundToken() throws -> String {
        let script = """
            import base64, hashlib, json
            from cryptography.hazmat.primitives.asymmetric import ec
            key = ec.derive_private_key(int("\(StampTests.privateHex)", 16), ec.SECP256R1()).public_key().public_numbers()
            enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
            jwk = {"crv": "P-256", "kty": "EC", "x": enc(key.x.to_bytes(32, "big")), "y": enc(key.y.to_bytes(32, "big"))}
            jkt = enc(hashlib.sha256(json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()).digest())
            print("eyJhbGciOiJub25lIn0." + enc(json.dumps({"sub": "s", "cnf": {"jkt": jkt}}).encode()) + ".c2ln")
            """
        let result = CLIRunner(home: folder.path).run(executable: "/usr/bin/python3", ["-c", script])
        return try #require(result.stdout.split(separator: "\n").first.map(String.init), "python: \(result.stderr)")
    }

    func seeded(token: String) -> CLIRunner {
        let passphrase = folder.write("passphrase", "correct horse\n")
        let runner = CLIRunner(home: folder.path + "/home", passphraseFile: passphrase)
        let bound = Self.boundLine("dp", token: token)
        let lines = bound + TokenDeliveryTests.line("plain", token: "AT-plain")
        #expect(runner.run(["store", "import", "-"], stdin: lines).status == 0)
        return runner
    }

    /// An import line for a DPoP session holding RFC 6979's key, with `token` as its access token.
    static func boundLine(_ key: String, token: String) -> String {
        TokenDeliveryTests.line(key, token: token).replacingOccurrences(
            of: "}\n", with: ",\"dpopKeyHex\":\"\(StampTests.privateHex)\",\"tokenType\":\"DPoP\"}\n")
    }

    func check(_ proof: String, token: String, method: String, url: String) -> String {
        CLIRunner(home: folder.path).run(
            executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/dpop-check.py", method, url],
            stdin: token + "\n" + proof
        ).stdout + ""
    }

    @Test func proofsCheckOutInPythonDirectAndUnderExec() throws {
        guard Installed.pythonHasCryptography() else { return Installed.skip("python3-cryptography") }
        let token = try boundToken()
        let runner = seeded(token: token)
        let url = "https://api.example.com/v1/items?q=1#part"
        let direct = runner.run(["dpop-proof", "dp", "--method", "POST", "--url", url])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        let proof = direct.stdout.trimmingCharacters(in: .newlines)
        #expect(check(proof, token: token, method: "POST", url: url) == "ok\n")
        // A proof is for its method and token only.
        #expect(check(proof, token: token, method: "GET", url: url).contains("htm is"))
        #expect(check(proof, token: token + "x", method: "POST", url: url).contains("ath is"))
        #expect(runner.run(["status", "dp"]).stdout.contains("token type:     DPoP"))

        // Under exec, the session exec chose (AUTHDECK_SESSION), with the nonce given.
        let underExec = runner.run([
            "exec", "--session", "dp", "--", "/bin/sh", "-c",
            "'\(CLIRunner.binary)' dpop-proof --method GET --url https://api.example.com/me --nonce n-1",
        ])
        #expect(underExec.status == 0, "stderr: \(underExec.stderr)")
        let nonced = underExec.stdout.trimmingCharacters(in: .newlines)
        #expect(check(nonced, token: token, method: "GET", url: "https://api.example.com/me") == "ok\n")
        let claims = try #require(nonced.split(separator: ".").dropFirst().first)
        let payload = try #require(Data(base64Encoded: Self.padded(String(claims))))
        #expect(String(decoding: payload, as: UTF8.self).contains("\"nonce\":\"n-1\""))
    }

    @Test func aSessionWithoutAKeyAndBadInputAreOneLine() {
        let runner = seeded(token: "AT-dp")
        let plain = runner.run(["dpop-proof", "plain", "--method", "GET", "--url", "https://api.example.com/"])
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("has no DPoP key") && plain.stderr.split(separator: "\n").count == 1)
        #expect(runner.run(["dpop-proof", "dp", "--method", "GET"]).status == 2)
        #expect(runner.run(["dpop-proof", "dp", "--method", "get", "--url", "https://a.example/"]).status == 2)
        #expect(runner.run(["dpop-proof", "dp", "--method", "GET", "--url", "ftp://a.example/"]).status == 2)
        #expect(
            runner.run(["dpop-proof", "dp", "--method", "GET", "--url", "https://a/", "--nonce", "a b"]).status == 2)
    }

    static func padded(_ text: String) -> String {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
    }
}
