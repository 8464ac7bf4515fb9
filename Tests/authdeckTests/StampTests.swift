import Foundation
import Testing

/// `authdeck stamp`: X-Stamp values checked by Python's `cryptography` as Turnkey would check them.
@Suite struct StampTests {
    let folder = TemporaryFolder()

    /// RFC 6979 appendix A.2.5's P-256 key; its public point's y is odd, so the compressed key starts 03.
    static let privateHex = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
    static let publicHex = "0360fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"

    func seeded() -> CLIRunner {
        let runner = CLIRunner(
            home: folder.path + "/home", passphraseFile: folder.write("passphrase", "correct horse\n"))
        let turnkey =
            "{\"key\":\"tk\",\"backend\":\"turnkey\",\"provider\":\"email\",\"subject\":\"org-1\","
            + "\"issuer\":\"https://proxy.example.com\",\"createdAt\":\"2024-01-02T03:04:05Z\","
            + "\"expiresAt\":\"2099-01-01T00:00:00Z\",\"sessionJwt\":\"JWT-tk\","
            + "\"privateKeyHex\":\"\(Self.privateHex)\"}\n"
        let expired = turnkey.replacingOccurrences(of: "\"tk\"", with: "\"tk-old\"")
            .replacingOccurrences(of: "2099-01-01", with: "2001-01-01")
        let lines = turnkey + expired + TokenDeliveryTests.line("direct", token: "AT-direct")
        #expect(runner.inProcess.run(["store", "import", "-"], stdin: lines).status == 0)
        return runner
    }

    func verify(_ stamp: String, body: String) -> String {
        let bodyFile = folder.write("checked-body", body)
        return CLIRunner(home: folder.path).run(
            executable: "/usr/bin/python3",
            [
                CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/stamp-verify.py", Self.publicHex, bodyFile,
                stamp,
            ]
        ).stdout
    }

    @Test func stampsVerifyAsTurnkeyChecksThem() {
        guard Installed.pythonHasCryptography() else { return Installed.skip("python3-cryptography") }
        let runner = seeded()
        let body =
            "{\"type\":\"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2\",\"organizationId\":\"org-1\","
            + "\"note\":\"é ✓\"}\n"
        let file = folder.write("body.json", body)
        let fromFile = runner.run(["stamp", "tk", "--body", file])
        #expect(fromFile.status == 0, "stderr: \(fromFile.stderr)")
        let stamp = fromFile.stdout.trimmingCharacters(in: .newlines)
        #expect(verify(stamp, body: body) == "ok\n")
        // A stamp is for its body only.
        #expect(verify(stamp, body: body + " ") == "signature does not verify\n")
        let fromStdin = runner.run(["stamp", "--session", "tk", "--body", "-", "--header"], stdin: "{}")
        #expect(fromStdin.stdout.hasPrefix("X-Stamp: "))
        #expect(verify(String(fromStdin.stdout.dropFirst(9)).trimmingCharacters(in: .newlines), body: "{}") == "ok\n")
        // Under exec, the command stamps with the session exec chose (AUTHDECK_SESSION), as the README shows.
        let underExec = runner.run([
            "exec", "--session", "tk", "--", "/bin/sh", "-c",
            "printf '{\"a\":1}' | '\(CLIRunner.binary)' stamp --body -",
        ])
        #expect(underExec.status == 0, "stderr: \(underExec.stderr)")
        #expect(verify(underExec.stdout.trimmingCharacters(in: .newlines), body: "{\"a\":1}") == "ok\n")
        let empty = runner.run(["stamp", "tk", "--body", "-"], stdin: "")
        #expect(verify(empty.stdout.trimmingCharacters(in: .newlines), body: "") == "ok\n")
    }

    @Test func badInput() {
        // In this process: refusals are the point, not the binary (the test above runs it).
        let runner = seeded().inProcess
        let body = folder.write("b", "{}")
        #expect(runner.run(["stamp", "tk"]).status == 2)
        let direct = runner.run(["stamp", "direct", "--body", body])
        #expect(direct.status == 1)
        #expect(direct.stderr.contains("no P-256 session key"))
        #expect(runner.run(["stamp", "nope", "--body", body]).status == 7)
        let expired = runner.run(["stamp", "tk-old", "--body", body])
        #expect(expired.status == 1)
        #expect(expired.stderr.contains("expired"))
        #expect(expired.stdout.isEmpty)
        let unreadable = runner.run(["stamp", "tk", "--body", folder.path + "/missing"])
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains("cannot read"))
        for result in [direct, expired, unreadable] { #expect(!result.stderr.contains(Self.privateHex)) }
    }
}
