import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The trace commands through the real binary, on traces that real logins wrote against a faulted sandbox:
/// `trace show` and `trace diff` read them; `trace replay` reproduces each in a fresh home that holds no store, no
/// config and no passphrase, and must end with the customer's error and exit code.
@Suite(.serialized) struct TraceCommandTests {
    /// A home with nothing in it: replay must need neither the user's store nor a secret.
    let fresh = TemporaryFolder()
    var freshRunner: CLIRunner {
        var runner = CLIRunner(home: fresh.path + "/home")
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        runner.environment["BROWSER"] = nil
        return runner
    }
    /// `trace show` and `trace diff` read files and print: they run in this process (`replay` and the logins that
    /// write the traces run the binary; the first `show` does too).
    var inProcess: CLIRunner { freshRunner.inProcess }

    /// A trace that `login` wrote under `fault`, copied out of the sandbox's folder.
    func customerTrace(_ fault: String, _ arguments: [String] = ["google"], sandbox: [String] = []) throws
        -> (path: String, result: CLIRunner.Result)
    {
        let setup = try FaultedSandbox(fault == "none" ? sandbox : ["--fault", fault] + sandbox)
        let result = setup.login(arguments)
        let path = fresh.path + "/customer-\(fault).jsonl"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: setup.tracePath, toPath: path)
        return (path, result)
    }

    func replayed(_ path: String) throws -> (json: [String: Any], result: CLIRunner.Result) {
        let result = freshRunner.run(["trace", "replay", path, "--json"], timeout: 90)
        let parsed = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let json = try #require(parsed, "status \(result.status) stdout: \(result.stdout) stderr: \(result.stderr)")
        return (json, result)
    }

    /// The replay ended as the customer's login did: same final error, same exit code, the fault switched on, and
    /// the fresh home untouched.
    func expectReproduced(
        _ path: String, _ customer: CLIRunner.Result, fault: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (json, result) = try replayed(path)
        let customerError = customer.stderr.split(separator: "\n").last.map(String.init) ?? ""
        let replay = json["replay"] as? [String: Any] ?? [:]
        #expect(result.status == customer.status, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(replay["exit"] as? Int == Int(customer.status), sourceLocation: sourceLocation)
        let replayError = replay["error"] as? String ?? "(none)"
        // The host and port differ between the two sandboxes; the words do not.
        let portless = { (text: String) in
            text.replacingOccurrences(
                of: #"127\.0\.0\.1:[0-9]+"#, with: "H",
                options: .regularExpression)
        }
        if customer.status == 0 {
            #expect(replay["error"] is NSNull, sourceLocation: sourceLocation)
        } else {
            #expect(
                portless("authdeck login: " + replayError) == portless(customerError),
                sourceLocation: sourceLocation)
        }
        #expect(json["sameError"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(json["sameExit"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(
            (json["faults"] as? [String])?.contains(fault) == true, "faults: \(json["faults"] ?? "")",
            sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: fresh.path + "/home"), sourceLocation: sourceLocation)
    }

    // MARK: - replay

    @Test(arguments: [
        ("token-5xx-html", ["google"]), ("slow-provider", ["google"]), ("code-expired", ["google"]),
        ("code-reused", ["apple"]), ("access-denied", ["google"]), ("access-denied-no-state", ["google"]),
        ("id-token-future-iat", ["google"]), ("id-token-wrong-aud", ["oidc"]), ("id-token-wrong-iss", ["google"]),
        ("id-token-wrong-nonce", ["apple"]), ("rotated-signing-key", ["google"]), ("no-email-claim", ["google"]),
        ("redirect-unreachable", ["google"]), ("otp-rate-limit", ["email", "--contact", "ada@example.com"]),
    ])
    func replayReproducesABrowserOrCodeFault(_ fault: String, _ arguments: [String]) throws {
        let sandbox = fault == "slow-provider" ? ["--delay-ms", "8000"] : []
        let (path, customer) = try customerTrace(fault, arguments, sandbox: sandbox)
        try expectReproduced(path, customer, fault: fault)
    }

    @Test(arguments: ["device-slow-down", "device-expired"])
    func replayReproducesADeviceGrantFault(_ fault: String) throws {
        let (path, customer) = try customerTrace(fault, ["google", "--device"], sandbox: ["--device-interval", "1"])
        try expectReproduced(path, customer, fault: fault)
        let (json, _) = try replayed(path)
        #expect(json["device"] as? Bool == true)
    }

    @Test func replayTypesTheCodeOfAnExpiredOneTimeCode() throws {
        let setup = try FaultedSandbox(["--fault", "otp-expired"])
        let run = try setup.live(["email", "--contact", "ada@example.com"], timeout: 5)
        #expect(run.wait { run.stderr.contains("A code was sent to") })
        run.send(try #require(setup.sandbox.codes().last?.code))
        // The refused code keeps the code step, so the customer's sign-in waits until it times out.
        #expect(run.wait { run.stderr.contains("The code was refused") })
        let customer = run.finish()
        #expect(customer.status == 6)
        try expectReproduced(setup.tracePath, customer, fault: "otp-expired")
    }

    @Test func replayTypesATOTPCodeIntoALockedAccount() throws {
        let setup = try FaultedSandbox(["--fault", "totp-lockout"])
        let run = try setup.live(["google", "--backend", "sandbox-turnkey"], environment: ["SANDBOX_USER": "dora"])
        #expect(run.wait { run.stderr.contains("Two-factor code required") })
        run.send(TOTP.code(secret: Base32.decode("JBSWY3DPEHPK3PXP") ?? [], time: Int64(Date().timeIntervalSince1970)))
        let customer = run.finish()
        #expect(customer.status == 4)
        try expectReproduced(setup.tracePath, customer, fault: "totp-lockout")
        let (json, _) = try replayed(setup.tracePath)
        #expect(json["backend"] as? String == "sandbox-turnkey")
    }

    /// A trace authdeck wrote replays through the backend that wrote it, whatever calls that backend made (the
    /// sandbox backend signs in through the proxy's calls too), and the TUI's export (closed by who wrote it, with no
    /// exit code) is not taken for an older authdeck's.
    @Test(arguments: [
        (["google"], "sandbox"), (["google", "--backend", "sandbox-turnkey"], "sandbox-turnkey"),
        (["email", "--contact", "ada@example.com"], "sandbox"),
        // Its calls are the sandbox backend's (otp_init): only the backend the trace names tells them apart.
        (["email", "--contact", "ada@example.com", "--backend", "sandbox-turnkey"], "sandbox-turnkey"),
    ])
    func replayTakesTheBackendThatWroteTheTrace(_ arguments: [String], _ backend: String) throws {
        let fault = arguments[0] == "email" ? "otp-rate-limit" : "code-reused"
        let (path, customer) = try customerTrace(fault, arguments)
        #expect(customer.status != 0, "\(customer.stderr)")
        let (json, result) = try replayed(path)
        #expect(json["backend"] as? String == backend, "\(result.stdout)")
        #expect(json["sameKind"] as? Bool == true, "\(result.stdout)")
        #expect(json["sameExit"] as? Bool == true, "\(result.stdout)")

        // As the TUI exports the same attempt: its steps, closed by a step naming the TUI and the backend.
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            .filter { !$0.contains("\"kind\":\"exit\"") }
        let closing =
            #"{"at":"2026-01-01T00:00:00.000Z","details":{"backend":"\#(backend)","writer":"tui"},"#
            + #""elapsedMs":1,"kind":"exit","summary":"exported from the TUI (no exit code)"}"#
        let exported = fresh.write(
            "tui-\(backend)-\(arguments[0]).jsonl", (lines + [Substring(closing)]).joined(separator: "\n") + "\n")
        let replay = freshRunner.run(["trace", "replay", exported], timeout: 90)
        #expect(!replay.stdout.contains("older authdeck"), "\(replay.stdout)")
        #expect(replay.stdout.contains("the TUI exported the trace"), "\(replay.stdout)")
        #expect(replay.stdout.contains("through \(backend),"), "\(replay.stdout)")
        #expect(freshRunner.run(["trace", "diff", path, exported]).status == 0, "the closing step is no divergence")
    }

    @Test func replaySaysWhatItCouldNotReproduce() throws {
        // A trace from an older authdeck, without the exit step, that timed out with the browser never back.
        let (path, _) = try customerTrace("redirect-unreachable")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let older = text.split(separator: "\n").filter { !$0.contains("\"kind\":\"exit\"") }.joined(separator: "\n")
        let olderPath = fresh.write("older.jsonl", older + "\n")
        let result = freshRunner.run(["trace", "replay", olderPath], timeout: 90)
        #expect(result.status == 6, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("faults: redirect-unreachable"))
        #expect(result.stdout.contains("reproduced: the same final error"))
        #expect(result.stdout.contains("not reproduced: the trace does not record the customer's exit code"))
        #expect(result.stdout.contains("not reproduced: the browser never came back"))
    }

    @Test func aTraceFromARealProviderIsReproducedByItsErrorCode() throws {
        // Written by hand as Google answers: invalid_grant with its own words, at its own hosts.
        let path = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/customer-trace.jsonl"
        let text = freshRunner.run(["trace", "replay", path], timeout: 90)
        #expect(text.status == 4, "stderr: \(text.stderr)")
        #expect(text.stdout.contains("replayed: google through sandbox, browser"))
        #expect(text.stdout.contains("faults: code-reused"))
        #expect(
            text.stdout.contains(
                "reproduced: the same kind of error (Authentication failed: invalid_grant) "
                    + "and exit code; the provider's words differ"))
        let (json, _) = try replayed(path)
        #expect(json["sameError"] as? Bool == false)
        #expect(json["sameKind"] as? Bool == true)
        #expect(json["sameExit"] as? Bool == true)
    }

    /// Hand-written in the shape authdeck writes, at providers that word things their own way: an
    /// Authlib-based server's `access_denied` redirect without `state` and without a description (told by the
    /// receiver step's `error` and null `state`), and Google's token endpoint behind a gateway answering 503 with
    /// an HTML page. Each is replayed with the matching fault and ends with the same kind of error and exit code.
    @Test(arguments: [
        (
            "customer-trace-denied-no-state.jsonl", "access-denied-no-state", 4, "Authentication failed: access_denied",
            "oidc through sandbox, browser"
        ),
        (
            "customer-trace-503.jsonl", "token-5xx-html", 1, "Sign-in unavailable: HTTP 5xx",
            "google through sandbox, browser"
        ),
    ])
    func aRealProvidersTraceInTodaysShapeIsReproducedByKind(
        _ file: String, _ fault: String, _ exit: Int,
        _ kind: String, _ flow: String
    ) throws {
        let path = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/" + file
        let text = freshRunner.run(["trace", "replay", path], timeout: 90)
        #expect(text.status == Int32(exit), "stdout: \(text.stdout) stderr: \(text.stderr)")
        #expect(text.stdout.contains("replayed: \(flow)"), "stdout: \(text.stdout)")
        #expect(text.stdout.contains("faults: \(fault)\n"), "stdout: \(text.stdout)")
        #expect(
            text.stdout.contains(
                "reproduced: the same kind of error (\(kind)) and exit code; the provider's "
                    + "words differ"), "stdout: \(text.stdout)")
        let (json, _) = try replayed(path)
        #expect(json["faults"] as? [String] == [fault])
        #expect(json["sameError"] as? Bool == false)
        #expect(json["sameKind"] as? Bool == true)
        #expect(json["sameExit"] as? Bool == true)
        #expect((json["replay"] as? [String: Any])?["exit"] as? Int == exit)
        #expect(!FileManager.default.fileExists(atPath: fresh.path + "/home"))
    }

    /// The result step records the error's code beside its message, and replay and diff compare the codes: a trace
    /// whose messages another authdeck worded differently is still reproduced by the same fault, and lines up with
    /// the original step for step.
    @Test(arguments: [("code-reused", ["apple"], "invalid_grant"), ("access-denied", ["google"], "access_denied")])
    func rewordedErrorMessagesAreComparedByTheirCode(_ fault: String, _ arguments: [String], _ code: String) throws {
        let (path, customer) = try customerTrace(fault, arguments)
        #expect(customer.status == 4, "stderr: \(customer.stderr)")
        let steps = TraceFile.steps(path)
        let result = try #require(steps.last { $0["kind"] as? String == "result" })
        #expect((result["details"] as? [String: Any])?["code"] as? String == code)
        let reworded = fresh.write("reworded-\(fault).jsonl", try Self.reworded(steps))

        let (json, _) = try replayed(reworded)
        #expect(json["sameKind"] as? Bool == true, "\(json)")
        #expect(json["sameExit"] as? Bool == true)
        #expect(json["faults"] as? [String] == [fault], "\(json)")
        #expect((json["replay"] as? [String: Any])?["code"] as? String == code)
        let text = freshRunner.run(["trace", "replay", reworded], timeout: 90)
        #expect(text.stdout.contains("reproduced: the same kind of error (\(code)) and exit code"), "\(text.stdout)")

        let diff = freshRunner.run(["trace", "diff", path, reworded, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any]
        #expect(object?["same"] as? Bool == true, "\(diff.stdout)")
    }

    /// `steps` with every error message in other words: the summary and `error` of result and notice steps, and
    /// the reason a receiver step gives for a refusal.
    static func reworded(_ steps: [[String: Any]]) throws -> String {
        let words = "The sign-in did not work out."
        return try steps.map { step in
            var step = step
            var details = step["details"] as? [String: Any] ?? [:]
            switch step["kind"] as? String {
            case "result" where details["error"] != nil, "notice":
                step["summary"] = words
                if details["error"] != nil { details["error"] = words }
            case "receiver" where details["accepted"] as? Bool == false:
                step["summary"] = "\(details["source"] ?? ""): refused: \(words)"
                details["reason"] = words
            default:
                break
            }
            step["details"] = details
            return String(
                decoding: try JSONSerialization.data(withJSONObject: step, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }

    // MARK: - diff

    @Test func diffMarksWhereACustomersRunLeavesAGoodOne() throws {
        let (good, goodResult) = try customerTrace("none")
        #expect(goodResult.status == 0)
        let (bad, _) = try customerTrace("code-reused")
        let result = inProcess.run(["trace", "diff", good, bad])
        #expect(result.status == 1, "traces that differ exit 1, as diff(1); stderr: \(result.stderr)")
        let marked = result.stdout.split(separator: "\n").filter { $0.hasPrefix("▶") }
        #expect(marked.count == 1)
        #expect(marked.first?.contains("response 200") == true && marked.first?.contains("response 400") == true)
        #expect(result.stdout.contains("main divergence: A step"))
        #expect(result.stdout.contains("'response 400 token invalid_grant'"))

        let json = inProcess.run(["trace", "diff", good, bad, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["same"] as? Bool == false)
        let first = try #require(object["firstDivergence"] as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let row = rows[(first["row"] as? Int ?? 1) - 1]
        #expect((row["a"] as? [String: Any])?["signature"] as? String == "response 200 token")
        #expect((row["b"] as? [String: Any])?["signature"] as? String == "response 400 token invalid_grant")
        #expect(row["mark"] as? String == "~")
        // Steps before the divergence line up one to one.
        #expect(rows.prefix((first["row"] as? Int ?? 1) - 1).allSatisfy { $0["mark"] as? String == "=" })

        // Two good runs at two sandboxes (other ports, keys and states) take the same steps.
        let (other, _) = try customerTrace("none")
        let same = inProcess.run(["trace", "diff", good, other, "--json"])
        let sameObject = try JSONSerialization.jsonObject(with: Data(same.stdout.utf8)) as? [String: Any]
        #expect(sameObject?["same"] as? Bool == true, "\(same.stdout)")
        #expect(same.status == 0)

        // The customer's run at the real provider: its authorize page has Google's path, and that comes first.
        // The token endpoint's 400 still is the row marked, and the path difference is said to matter less.
        let real = try String(contentsOfFile: bad, encoding: .utf8).replacingOccurrences(
            of: #""url":"http://127\.0\.0\.1:[0-9]+/oidc/google/authorize"#,
            with: #""url":"https://accounts.google.com/o/oauth2/v2/auth"#, options: .regularExpression)
        #expect(real.contains("https://accounts.google.com/o/oauth2/v2/auth"), "the trace names no authorize URL")
        let atProvider = fresh.write("at-provider.jsonl", real)
        let ranked = freshRunner.run(["trace", "diff", good, atProvider])
        #expect(ranked.status == 1, "\(ranked.stderr)")
        let rankedMark = ranked.stdout.split(separator: "\n").filter { $0.hasPrefix("▶") }
        #expect(rankedMark.count == 1 && rankedMark.first?.contains("response 400") == true, "\(ranked.stdout)")
        #expect(ranked.stdout.contains("'response 400 token invalid_grant'"))
        #expect(ranked.stdout.contains("matters less: A step"), "\(ranked.stdout)")
        let bad2 = freshRunner.run(["trace", "diff", good, fresh.path + "/missing.jsonl"])
        #expect(bad2.status == 2 && bad2.stderr.split(separator: "\n").count == 1, "\(bad2.stderr)")
    }

    // MARK: - show

    @Test func showListsTheStepsAndExpandsOne() throws {
        let (path, _) = try customerTrace("id-token-wrong-aud")
        let result = freshRunner.run(["trace", "show", path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // The tokens issued with a refused ID token are revoked, and the message says so.
        #expect(
            result.stdout.contains(
                "ended: Refused the ID token: wrong audience: aud is another-client, azp is another-client, "
                    + "this client is "))
        #expect(result.stdout.contains("; the tokens the provider issued were revoked. (exit 4)"))
        let lines = result.stdout.split(separator: "\n")
        let idToken = try #require(lines.first { $0.contains(" id_token ") })
        let number = try #require(idToken.dropFirst().split(separator: " ").first.map(String.init))
        let expanded = inProcess.run(["trace", "show", path, "--expand", number])
        #expect(expanded.stdout.contains("\"aud\" : \"another-client\""))
        // The ID token's exp with its moment beside it, as Foundation's formatter gives it in UTC.
        let exp = try #require(expanded.stdout.split(separator: "\n").first { $0.contains("\"exp\" : ") })
        let value = try #require(exp.range(of: "\"exp\" : ")).upperBound
        let seconds = try #require(Double(exp[value...].prefix { $0.isNumber || $0 == "." }))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        #expect(exp.hasSuffix("  (\(formatter.string(from: Date(timeIntervalSince1970: seconds))) UTC)"), "\(exp)")
        // Folded, the steps show no claims (the refusal's own line names the audience it found).
        #expect(!result.stdout.contains("\"aud\" : "))
        #expect(inProcess.run(["trace", "show", path, "--expand", "999"]).status == 2)
    }

    @Test func badTraceFilesAreOneLineErrors() throws {
        let step = #"{"kind":"transition","at":"x","elapsedMs":1,"summary":"a","details":{}}"#
        let broken = fresh.write("broken.jsonl", step + "\n{\"kind\": 3}\n")
        for command in [["show", broken], ["diff", broken, broken], ["replay", broken]] {
            let result = inProcess.run(["trace"] + command)
            // diff answers as diff(1) does: 2 for trouble, since 1 means the traces differ.
            #expect(result.status == (command[0] == "diff" ? 2 : 1))
            #expect(result.stderr.contains("line 2 is not a trace step"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(inProcess.run(["trace", "show", fresh.path + "/missing.jsonl"]).status == 1)
        #expect(inProcess.run(["trace"]).status == 2)
        #expect(inProcess.run(["trace", "frobnicate", broken]).status == 2)
        // A control character in a crafted trace never reaches the terminal.
        let escape = #"{"kind":"notice","at":"x","elapsedMs":1,"summary":"a\u001b[2Jb","details":{}}"#
        let crafted = fresh.write("crafted.jsonl", escape + "\n")
        let shown = inProcess.run(["trace", "show", crafted])
        #expect(shown.status == 0)
        #expect(!shown.stdout.contains("\u{1b}"))
    }

    @Test func anEndlessOrHugeTraceIsRefusedWithoutReadingItWhole() throws {
        // A sparse 4 GiB file (its size says no before a byte is read) and /dev/zero (read only up to the cap).
        let huge = fresh.path + "/huge.jsonl"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 4 << 30) == 0)
        for path in [huge, "/dev/zero"] {
            let result = inProcess.run(["trace", "show", path], timeout: 20)
            #expect(!result.timedOut && result.status == 1, "\(path): \(result.stderr)")
            #expect(result.stderr.contains("larger than 8 MiB"), "\(path): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func replayPassesOnlyAKnownProviderNameToLogin() throws {
        // The sandbox-style authorize path names the provider; a crafted one names an option instead.
        let authorize =
            #"{"kind":"authorize","at":"x","elapsedMs":1,"summary":"authorize at u","#
            + #""details":{"url":"http://127.0.0.1:9/oidc/--client-secret-file=x/authorize"}}"#
        let crafted = fresh.write("crafted-provider.jsonl", authorize + "\n")
        let result = freshRunner.run(["trace", "replay", crafted], timeout: 90)
        #expect(result.stdout.contains("replayed: oidc through sandbox"), "\(result.stdout) \(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains("client-secret-file"), "\(result.stdout) \(result.stderr)")
    }
}
