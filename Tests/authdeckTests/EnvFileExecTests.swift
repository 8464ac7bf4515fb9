import Foundation
import Testing

/// `exec --env-file`: the file's references become the sessions' tokens in a real shell's environment before the
/// command starts, bad lines and missing sessions stop it with one line naming file:line, and `--mask` hides the
/// tokens in what the command (bash, curl -v) writes, even a token written a few bytes at a time.
@Suite struct EnvFileExecTests {
    let folder = TemporaryFolder()

    func seeded() -> CLIRunner {
        let runner = CLIRunner(
            home: folder.path + "/home", passphraseFile: folder.write("passphrase", "correct horse\n"),
            extra: ["HOME": folder.path])
        let withID =
            "{\"key\":\"work\",\"backend\":\"direct\",\"provider\":\"oidc\",\"subject\":\"s-work\","
            + "\"issuer\":\"https://id.example.com\",\"createdAt\":\"2024-01-02T03:04:05Z\","
            + "\"expiresAt\":\"2099-01-01T00:00:00Z\",\"accessToken\":\"AT-work-0123456789\","
            + "\"idToken\":\"eyJ.id-work.sig\"}\n"
        let lines =
            withID + TokenDeliveryTests.line("ci", token: "AT-ci-abcdefghij")
            + TokenDeliveryTests.line("stale", token: "AT-stale", expires: "2001-01-01T00:00:00Z")
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return runner
    }

    static let envFile = """
        # the API's token
        API_TOKEN=authdeck://work/token

        ID_TOKEN=authdeck://work/id-token
        CI_TOKEN=authdeck://ci/token
        PLAIN=a=b c
        """

    @Test func referencesBecomeTheSessionsTokensInAShell() {
        let runner = seeded()
        let file = folder.write("app.env", Self.envFile)
        let result = runner.run(
            ["exec", "--env-file", file, "--", "/bin/bash", "-c", "echo \"$API_TOKEN|$ID_TOKEN|$CI_TOKEN|$PLAIN\""])
        #expect(result.status == 0, "exec: \(result.stderr)")
        #expect(result.stdout == "AT-work-0123456789|eyJ.id-work.sig|AT-ci-abcdefghij|a=b c\n")
        // The exit status and a signal that ended the command pass through as they do without a file.
        #expect(runner.run(["exec", "--env-file", file, "--", "/bin/sh", "-c", "exit 7"]).status == 7)
        #expect(runner.run(["exec", "--env-file", file, "--mask", "--", "/bin/sh", "-c", "exit 9"]).status == 9)
        let killed = runner.run(["exec", "--env-file", file, "--mask", "--", "/bin/sh", "-c", "kill -TERM $$"])
        #expect(killed.status == 128 + 15, "\(killed)")
    }

    @Test func badLinesAndMissingSessionsStopTheCommandWithTheirPlace() {
        let runner = seeded()
        let marker = folder.path + "/started"
        let cases: [(text: String, line: Int, code: Int32, says: String)] = [
            ("A=1\nTOKEN=authdeck://nobody/token\n", 2, 7, "nobody"),
            ("TOKEN=authdeck://work/refresh-token\n", 1, 2, "unknown field 'refresh-token'"),
            ("# fine\nthis is not an assignment\n", 2, 2, "not NAME=value"),
            ("1BAD=x\n", 1, 2, "not a variable name"),
            ("TOKEN=authdeck://work\n", 1, 2, "authdeck://KEY/token"),
            ("\nTOKEN=authdeck://stale/token\n", 2, 1, "expired"),
            ("TOKEN=authdeck://ci/id-token\n", 1, 1, "no ID token"),
        ]
        for (index, item) in cases.enumerated() {
            let file = folder.write("bad\(index).env", item.text)
            let result = runner.run(["exec", "--env-file", file, "--", "/usr/bin/touch", marker])
            #expect(result.status == item.code, "\(item.text): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(item.text): \(result.stderr)")
            #expect(result.stderr.contains("\(file):\(item.line): "), "\(item.text): \(result.stderr)")
            #expect(result.stderr.contains(item.says), "\(item.text): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker), "the command ran for \(item.text)")
        }
        let missing = runner.run(["exec", "--env-file", folder.path + "/none.env", "--", "/bin/true"])
        #expect(missing.status == 2 && missing.stderr.contains("none.env"), "\(missing.stderr)")
        #expect(runner.run(["exec", "--mask", "--", "/bin/true"]).status == 2)
        #expect(
            runner.run(["exec", "--env-file", folder.write("x.env", ""), "--env", "X", "--", "/bin/true"]).status == 2)
    }

    /// A token written to stderr three bytes at a time (so reads split it anywhere) and one whole on stdout are
    /// both shown as <authdeck:KEY>; output around them passes unchanged.
    @Test func maskHidesTokensSplitAcrossReads() {
        let runner = seeded()
        let file = folder.write("app.env", Self.envFile)
        let script = """
            printf 'start %s end\\n' "$API_TOKEN"
            t="$CI_TOKEN"; while [ -n "$t" ]; do printf '%s' "${t:0:3}" >&2; t="${t:3}"; sleep 0.01; done
            printf ' and AT-work-01 alone\\n' >&2
            printf 'id %s' "$ID_TOKEN"
            """
        let result = runner.run(["exec", "--env-file", file, "--mask", "--", "/bin/bash", "-c", script])
        #expect(result.status == 0, "exec: \(result.stderr)")
        #expect(result.stdout == "start <authdeck:work> end\nid <authdeck:work>", "\(result.stdout)")
        #expect(result.stderr == "<authdeck:ci> and AT-work-01 alone\n", "\(result.stderr)")
        // Without --mask the same command shows the tokens: the masking is --mask's doing.
        let plain = runner.run(["exec", "--env-file", file, "--", "/bin/bash", "-c", script])
        #expect(plain.stderr.contains("AT-ci-abcdefghij"))
    }

    /// curl, sending the token as a bearer header, prints it in its -v trace; with --mask the trace shows the
    /// placeholder while the server still received the real token.
    @Test func curlsVerboseTraceIsMasked() throws {
        guard Installed.has("/usr/bin/curl") else { return Installed.skip("curl") }
        let runner = seeded()
        let log = folder.path + "/requests.log"
        let server = try ScriptServer(
            fixture: "recording-https.py", arguments: ["-", "-", log], folder: folder, runner: runner)
        let file = folder.write("app.env", Self.envFile)
        let result = runner.run([
            "exec", "--env-file", file, "--mask", "--", "/bin/sh", "-c",
            "curl -sS -v -H \"Authorization: Bearer $API_TOKEN\" http://127.0.0.1:\(server.port)/userinfo",
        ])
        #expect(result.status == 0, "exec: \(result.stderr)")
        #expect(result.stderr.contains("> Authorization: Bearer <authdeck:work>"), "\(result.stderr)")
        #expect(!result.stderr.contains("AT-work-0123456789") && !result.stdout.contains("AT-work-0123456789"))
        let recorded = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(recorded == "/userinfo Bearer AT-work-0123456789\n", "\(recorded)")
    }
}
