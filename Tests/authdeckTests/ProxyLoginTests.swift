import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck login` through the auth-proxy backends end to end: the real binary, `authdeck sandbox` as a child
/// process, a passphrase store, the scripted browser for social logins, and codes typed on standard input (a pipe,
/// not a terminal) as the sandbox's outbox delivers them.
@Suite(.serialized) struct ProxyLoginTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    static let doraSecret = "JBSWY3DPEHPK3PXP"

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func login(_ arguments: [String], environment: [String: String?] = [:]) -> CLIRunner.Result {
        runner.run(["login"] + arguments, stdin: "", environment: environment, timeout: 30)
    }

    func live(_ arguments: [String], environment: [String: String?] = [:]) throws -> LiveLogin {
        try LiveLogin(runner: runner, arguments: ["login"] + arguments + ["--timeout", "30"], environment: environment)
    }

    func listed() throws -> [[String: Any]] { try setup.listed() }

    /// The code the sandbox sent, once authdeck has said so: a line typed before that is refused as "not sent
    /// yet", as it would be from a person who typed before the code arrived.
    func code(_ run: LiveLogin) throws -> String {
        #expect(run.wait { run.stderr.contains("A code was sent to") })
        return try #require(sandbox.codes().last?.code)
    }

    /// A login that asks for a code, given the code the sandbox sent; what it printed once it ended.
    func signInWithCode(_ arguments: [String]) throws -> CLIRunner.Result {
        let run = try live(arguments)
        run.send(try code(run))
        return run.finish()
    }

    static func wrong(_ code: String) -> String {
        (code.first == "1" ? "2" : "1") + code.dropFirst()
    }

    static func totp() -> String {
        TOTP.code(secret: Base32.decode(doraSecret) ?? [], time: Int64(Date().timeIntervalSince1970))
    }

    /// The session stored under the printed key; its token never appeared on stderr.
    func expectStored(_ result: CLIRunner.Result, backend: String, provider: String) throws {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try #require(try listed().first { $0["key"] as? String == key })
        #expect(session["backend"] as? String == backend)
        #expect(session["provider"] as? String == provider)
        let token = runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3 || ["sandbox-portal", "sandbox"].contains(backend))
        #expect(!token.isEmpty)
        #expect(!result.stderr.contains(token))
    }

    // MARK: - Contacts

    @Test func anInvalidEmailIsRefusedBeforeAnyRequest() throws {
        for contact in ["ada@@example.com", "ada example.com", "ada@example"] {
            let result = login(["email", "--contact", contact])
            #expect(result.status == 2, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("not a valid email address or phone number"))
        }
        #expect(login(["email"]).status == 2)
        #expect(sandbox.codes().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.outboxPath) || sandbox.codes().isEmpty)
    }

    @Test func anInvalidPhoneNumberIsRefusedBeforeAnyRequest() throws {
        for contact in ["555-0100", "+1 555", "+1 555 CALL NOW"] {
            let result = login(["sms", "--contact", contact, "--backend", "sandbox-turnkey"])
            #expect(result.status == 2, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("8–15 digits"))
        }
        #expect(sandbox.codes().isEmpty)
    }

    // MARK: - Email and SMS codes

    @Test func anEmailCodeLogsAnExistingUserIn() throws {
        let result = try signInWithCode(["email", "--contact", " ada@EXAMPLE.com "])
        #expect(result.stderr.contains("A code was sent to ada@example.com"))
        #expect(result.stderr.contains("Signed in with email as ada@example.com"))
        try expectStored(result, backend: "sandbox", provider: "email")
    }

    @Test func anSMSCodeThroughTheTurnkeyBackend() throws {
        let result = try signInWithCode(["sms", "--contact", "+1 (555) 010-0002", "--backend", "sandbox-turnkey"])
        #expect(result.stderr.contains("A code was sent to +15550100002"))
        // The made-up key carries the number without the `+` as one dash: no `sms--1555…`.
        #expect(result.stdout == "sms-15550100002\n", "key: \(result.stdout)")
        try expectStored(result, backend: "sandbox-turnkey", provider: "sms")
    }

    @Test func aNewUserSignsUpAndIsToldSo() throws {
        let result = try signInWithCode(["email", "--contact", "cleo@example.com"])
        #expect(result.stderr.contains("Account created and signed in"))
        try expectStored(result, backend: "sandbox", provider: "email")
    }

    @Test func codesOfTheWrongLengthOrAlphabetAreRefusedBeforeSending() throws {
        let run = try live(["email", "--contact", "ada@example.com"])
        let code = try code(run)
        // Five malformed codes: had any reached the proxy, five failures would have used up the otpId.
        for bad in ["12345", "1234567", "12a456", "abcdef", "12 3"] { run.send(bad) }
        #expect(run.wait { run.stderr.components(separatedBy: "That code is not valid").count == 6 })
        run.send(code)
        let result = run.finish()
        #expect(result.status == 0, "stderr: \(result.stderr)")
    }

    @Test func aWrongCodeIsShownAndTheRightOneStillWorks() throws {
        let run = try live(["email", "--contact", "ada@example.com"])
        let code = try code(run)
        run.send(Self.wrong(code))
        // The proxy's own reason, and the code step stays, as tkhq/swift-sdk's code screen does.
        #expect(run.wait { run.stderr.contains("The code was refused: invalid code (4 attempts left)") })
        #expect(run.stderr.contains("Type the code again, or resend for a new one."))
        run.send(code)
        let result = run.finish()
        try expectStored(result, backend: "sandbox", provider: "email")
    }

    @Test func tooManyWrongCodesKeepTheCodeStepButStoreNothing() throws {
        let run = try live(["email", "--contact", "ada@example.com"])
        let code = try code(run)
        for round in 1...5 {
            run.send(Self.wrong(code))
            #expect(run.wait { run.stderr.components(separatedBy: "The code was refused").count == round + 1 })
        }
        #expect(run.stderr.contains("too many attempts"))
        // The otpId is spent: the right code is refused too, and the user may still ask for a new one or cancel.
        run.send(code)
        #expect(run.wait { run.stderr.components(separatedBy: "The code was refused").count == 7 })
        run.interrupt()
        let result = run.finish()
        #expect(result.status == 3, "stderr: \(result.stderr)")
        #expect(try listed().isEmpty)
    }

    @Test func aResendInsideTheCooldownIsRefused() throws {
        let run = try live(["email", "--contact", "ada@example.com"])
        let code = try code(run)
        run.send("resend")
        #expect(run.wait { run.stderr.contains("a new code can be sent in") })
        #expect(sandbox.codes().count == 1)
        run.send(code)
        let result = run.finish()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(sandbox.codes().count == 1)
    }

    @Test func aTOTPUserTypesTheSecondFactor() throws {
        let run = try live(["email", "--contact", "dora@example.com"])
        run.send(try code(run))
        #expect(run.wait { run.stderr.contains("Two-factor code required") })
        // The enrolment link is shown only as a QR code: its secret never appears as text.
        #expect(run.stderr.contains("▀") || run.stderr.contains("▄") || run.stderr.contains("█"))
        #expect(!run.stderr.contains(Self.doraSecret))
        let right = Self.totp()
        run.send(Self.wrong(right))
        #expect(run.wait { run.stderr.contains("attempts left).") && run.stderr.contains("not valid") })
        #expect(try listed().isEmpty)
        run.send(Self.totp())
        let result = run.finish()
        try expectStored(result, backend: "sandbox", provider: "email")
    }

    @Test func aStoredTestAccountSeedIsOfferedAndUsedOnlyWhenAsked() throws {
        let add = runner.run(["totp", "add", "dora@example.com", "--secret", "-"], stdin: Self.doraSecret + "\n")
        #expect(add.status == 0, "stderr: \(add.stderr)")
        #expect(!add.stderr.contains("command line"))
        let listed = runner.run(["totp", "list", "--json"])
        #expect(listed.stdout.contains("\"user\":\"dora@example.com\""))
        #expect(!listed.stdout.contains(Self.doraSecret))
        #expect(runner.run(["totp", "code", "dora@example.com"]).stdout == Self.totp() + "\n")

        let run = try live(["email", "--contact", "dora@example.com"])
        run.send(try code(run))
        #expect(run.wait { run.stderr.contains("type seed to use its current code") })
        // Offered, not used: nothing is stored until the user asks for the seed's code.
        #expect(try self.listed().isEmpty)
        run.send("seed")
        let result = run.finish()
        try expectStored(result, backend: "sandbox", provider: "email")
        #expect(runner.run(["totp", "rm", "dora@example.com"]).status == 0)
        #expect(runner.run(["totp", "code", "dora@example.com"]).status == 7)
    }

    // MARK: - Social logins through the proxies

    @Test(arguments: ["google", "apple", "discord", "x"])
    func socialLoginThroughTheTurnkeyProxy(_ provider: String) throws {
        let result = login([provider, "--backend", "sandbox-turnkey"])
        #expect(result.stderr.contains("Signed in with \(provider)"))
        try expectStored(result, backend: "sandbox-turnkey", provider: provider)
    }

    /// Without oauthFlow and without a client secret, Google and Apple run the proxy's hosted pages (the default the
    /// seed shows), the answer coming back through authdeck://, and the sign-in says which flow runs and why; the
    /// sandbox's own config sets oauthFlow code, and the sign-in says that too.
    @Test(arguments: ["google", "apple"])
    func withoutAClientSecretTheHostedFlowRunsAndSaysSo(_ provider: String) throws {
        var config =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: sandbox.configPath))) as? [String: Any] ?? [:]
        var backends = config["backends"] as? [String: Any] ?? [:]
        var turnkey = backends["sandbox-turnkey"] as? [String: Any] ?? [:]
        turnkey["oauthFlow"] = nil
        backends["sandbox-turnkey"] = turnkey
        config["backends"] = backends
        let path = setup.folder.path + "/hosted-default.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        let title = provider == "google" ? "Google" : "Apple"
        let hosted = login([provider, "--backend", "sandbox-turnkey"], environment: ["AUTHDECK_CONFIG": path])
        #expect(
            hosted.stderr.contains(
                "authdeck: \(title) signs in through the auth proxy's hosted pages at http://127.0.0.1:"),
            "stderr: \(hosted.stderr)")
        #expect(hosted.stderr.contains("/turnkey/oauth-origin, oauthFlow hosted (no client secret is configured)"))
        try expectStored(hosted, backend: "sandbox-turnkey", provider: provider)
        let code = login([provider, "--backend", "sandbox-turnkey", "--session-key", "\(provider)-code"])
        #expect(
            code.stderr.contains(
                "authdeck: \(title) signs in with authdeck's own client sandbox-\(provider), oauthFlow code (set in config.json)"
            ))
        try expectStored(code, backend: "sandbox-turnkey", provider: provider)
    }

    /// Para's branch on both backends that can tell a new user from an existing one: an unknown social user
    /// verifies the email with the code the sandbox's outbox got before anything is stored.
    @Test(arguments: [
        ("google", "sandbox"), ("discord", "sandbox"), ("google", "sandbox-turnkey"), ("discord", "sandbox-turnkey"),
    ])
    func aNewSocialUserVerifiesTheEmailCode(_ provider: String, _ backend: String) throws {
        let run = try live([provider, "--backend", backend], environment: ["SANDBOX_USER": "cleo"])
        #expect(run.wait { run.stderr.contains("New account: verify the email. A code was sent to cleo@example.com") })
        #expect(try listed().isEmpty)
        run.send(try #require(sandbox.codes().last?.code))
        let result = run.finish()
        #expect(result.stderr.contains("Account created and signed in"))
        try expectStored(result, backend: backend, provider: provider)
    }

    /// Para's passkeys on the sandbox backend: a new user makes a software passkey after the email code (sealed
    /// with the session), and the next login completes with it and no code; `--passkey` elsewhere is one line.
    @Test func aSoftwarePasskeyIsMadeAfterTheEmailAndUsedByTheNextLogin() throws {
        let run = try live(
            ["google", "--backend", "sandbox", "--passkey", "software", "--session-key", "cleo-first"],
            environment: ["SANDBOX_USER": "cleo"])
        #expect(run.wait { run.stderr.contains("New account: verify the email. A code was sent to cleo@example.com") })
        run.send(try #require(sandbox.codes().last?.code))
        let first = run.finish()
        try expectStored(first, backend: "sandbox", provider: "google")
        #expect(try passkeysRegistered(for: "cleo@example.com"))

        let codes = sandbox.codes().count
        let again = login(
            ["google", "--backend", "sandbox", "--passkey", "software", "--session-key", "cleo-again"],
            environment: ["SANDBOX_USER": "cleo"])
        try expectStored(again, backend: "sandbox", provider: "google")
        #expect(sandbox.codes().count == codes)

        // The store holds no security-key passkey for the account: one line, nothing stored.
        let hardware = login(
            ["google", "--backend", "sandbox", "--passkey", "hardware", "--session-key", "cleo-key"],
            environment: ["SANDBOX_USER": "cleo"])
        #expect(hardware.status != 0)
        #expect(hardware.stderr.contains("this store holds no hardware passkey the relying party lists"))
        #expect(try listed().count == 2)

        for elsewhere in [["google", "--backend", "sandbox-turnkey"], ["discord", "--backend", "sandbox"]] {
            let refused = login(elsewhere + ["--passkey", "software"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--passkey is Para's step after a social sign-in"))
        }
        #expect(try listed().count == 2)
    }

    /// Whether the sandbox's relying party holds a passkey for `email`, as curl finds out.
    func passkeysRegistered(for email: String) throws -> Bool {
        let answer = try Program.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "-d",
                "{\"email\":\"\(email)\"}", sandbox.baseURL + "/webauthn/authentication_options",
            ])
        return answer.text == "200"
    }

    /// config.json's `passkey` for a provider asks for the passkey as `--passkey` does (the TUI's way to pick one:
    /// New sign-in runs the same sign-in use case).
    @Test func configJSONsPasskeyAsksForOneAsTheFlagDoes() throws {
        let path = try setup.config("google", "passkey", "software", file: "passkey-config.json")
        let environment: [String: String?] = ["SANDBOX_USER": "cleo", "AUTHDECK_CONFIG": path]
        #expect(try passkeysRegistered(for: "cleo@example.com") == false)
        let run = try live(
            ["google", "--backend", "sandbox", "--session-key", "cleo-config"], environment: environment)
        #expect(run.wait { run.stderr.contains("A code was sent to cleo@example.com") })
        run.send(try #require(sandbox.codes().last?.code))
        try expectStored(run.finish(), backend: "sandbox", provider: "google")
        #expect(try passkeysRegistered(for: "cleo@example.com"))
        let codes = sandbox.codes().count
        let again = login(
            ["google", "--backend", "sandbox", "--session-key", "cleo-config-2"], environment: environment)
        try expectStored(again, backend: "sandbox", provider: "google")
        #expect(sandbox.codes().count == codes)
    }

    @Test(arguments: ["google", "apple"])
    func portalSignInWithoutTOTP(_ provider: String) throws {
        let result = login([provider, "--backend", "sandbox-portal", "--yes"])
        try expectStored(result, backend: "sandbox-portal", provider: provider)
        #expect(result.stderr.contains("keeping the session for"))
    }

    @Test func portalSignInWithTOTP() throws {
        let run = try live(["google", "--backend", "sandbox-portal"], environment: ["SANDBOX_USER": "dora"])
        // Named as the TUI names her: by the enrolment link's account, not Portal's UUID.
        #expect(run.wait { run.stderr.contains("Two-factor code required for dora@example.com (") })
        #expect(try listed().isEmpty)
        run.send(Self.totp())
        #expect(run.wait { run.stderr.contains("signed in as dora@example.com (google via sandbox-portal)") })
        run.send("y")
        let result = run.finish()
        try expectStored(result, backend: "sandbox-portal", provider: "google")
    }

    /// Portal names the user by an id only; the stored seed is found by the enrolment link's account, by `login` as
    /// by the TUI (one lookup in the sign-in use case; the command line used to ask by the id and offer nothing).
    @Test func aStoredSeedAnswersPortalsTOTPByTheEnrolmentLinksAccount() throws {
        let add = runner.run(["totp", "add", "dora@example.com", "--secret", "-"], stdin: Self.doraSecret + "\n")
        #expect(add.status == 0, "stderr: \(add.stderr)")
        let run = try live(["google", "--backend", "sandbox-portal"], environment: ["SANDBOX_USER": "dora"])
        #expect(run.wait { run.stderr.contains("type seed to use its current code") })
        #expect(try listed().isEmpty)
        run.send("seed")
        #expect(run.wait { run.stderr.contains("signed in as dora@example.com (google via sandbox-portal)") })
        run.send("y")
        try expectStored(run.finish(), backend: "sandbox-portal", provider: "google")
    }

    /// Portal's redirect has no state, so a web page or another program could have delivered
    /// its own account's token. The session is shown and stored only on a yes typed at the question; a no, or an
    /// input that ends first, stores nothing.
    @Test func aPortalSessionIsStoredOnlyWhenTheUserKeepsIt() throws {
        let declined = try live(["google", "--backend", "sandbox-portal"])
        #expect(declined.wait { declined.stderr.contains("Keep this session? [y/N]") })
        #expect(try listed().isEmpty)
        declined.send("n")
        let refused = declined.finish()
        #expect(refused.status != 0, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("Sign-in cancelled"))
        #expect(try listed().isEmpty)

        let ended = login(["google", "--backend", "sandbox-portal"])
        #expect(ended.status != 0, "stderr: \(ended.stderr)")
        #expect(ended.stderr.contains("pass --yes to keep it"))
        #expect(try listed().isEmpty)

        let kept = try live(["google", "--backend", "sandbox-portal"])
        #expect(kept.wait { kept.stderr.contains("Keep this session? [y/N]") })
        kept.send("yes")
        try expectStored(kept.finish(), backend: "sandbox-portal", provider: "google")
    }

    /// Portal's backend only sends `error=oauth_failed`, a denial included: an authentication failure, not a cancel.
    @Test func portalDenialIsOAuthFailed() throws {
        let result = login(["google", "--backend", "sandbox-portal"], environment: ["SANDBOX_DECISION": "deny"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("oauth_failed"))
        #expect(try listed().isEmpty)
    }

    @Test func codesAreRefusedByBackendsThatCannotSendThem() throws {
        let result = login(["email", "--contact", "ada@example.com", "--backend", "sandbox-portal"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Email code sign-in is not enabled"))
        #expect(sandbox.codes().isEmpty)
    }
}

/// `authdeck login` running with its standard input held open, so a test can type a line when the sign-in is
/// ready for it (a code after the outbox got it, a TOTP code after the prompt), as a person at the terminal would.
final class LiveLogin: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var out = Data(), err = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(runner: CLIRunner, arguments: [String], environment extra: [String: String?]) throws {
        process.executableURL = URL(fileURLWithPath: CLIRunner.binary)
        process.arguments = arguments
        var environment = runner.environment
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        output.fileHandleForReading.readabilityHandler = { [unowned self] handle in
            let data = handle.availableData
            lock.withLock { out.append(data) }
        }
        errors.fileHandleForReading.readabilityHandler = { [unowned self] handle in
            let data = handle.availableData
            lock.withLock { err.append(data) }
        }
        let finished = self.finished
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Ctrl-C, as the terminal would send it.
    func interrupt() {
        kill(process.processIdentifier, SIGINT)
    }

    /// Polls until `condition` holds or 15 s pass.
    func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// Waits for the command to end (killing it after `timeout`) and answers what it printed.
    func finish(timeout: TimeInterval = 30) -> CLIRunner.Result {
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        try? input.fileHandleForWriting.close()
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        let restOut = output.fileHandleForReading.readDataToEndOfFile()
        let restErr = errors.fileHandleForReading.readDataToEndOfFile()
        return lock.withLock {
            out.append(restOut)
            err.append(restErr)
            return
                CLIRunner.Result(
                    status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                    stderr: String(decoding: err, as: UTF8.self), timedOut: timedOut)
        }
    }
}
