import AuthCrypto
import Foundation
import Testing

/// A script's two-factor code through real shell pipes into `authdeck login`, against the sandbox's turnkey
/// backend whose user dora has a TOTP seed (the sandbox checks codes by RFC 6238's text, not by our client's
/// helpers): a code piped before the code step asks reaches that step rather than the redirect paste, and a login
/// whose standard input is already at its end fails at once with exit 2 instead of waiting for its timeout.
@Suite(.serialized) struct ScriptedTOTPTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    /// `script` run by /bin/sh as dora's browser would sign in.
    func shell(_ script: String) -> CLIRunner.Result {
        runner.run(executable: "/bin/sh", ["-c", script], environment: ["SANDBOX_USER": "dora"], timeout: 90)
    }

    var login: String { "'\(CLIRunner.binary)' login google --backend sandbox-turnkey --timeout 40" }

    @Test func aCodePipedBeforeTheCodeStepAsksSignsIn() throws {
        let code = TOTP.code(secret: Base32.decode("JBSWY3DPEHPK3PXP") ?? [], time: Int64(Date().timeIntervalSince1970))
        let result = shell("printf '%s\\n' \(code) | \(login)")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Two-factor code required"))
        #expect(result.stderr.contains("Signed in with google as Dora (session google-dora@example.com)"))
        #expect(!result.stderr.contains("refused"))
        #expect(try setup.listed().count == 1)
    }

    @Test func aClosedStandardInputEndsTheCodeStepAtOnceWithExit2() throws {
        let started = Date()
        let result = shell("\(login) </dev/null")
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(result.stderr.contains("Two-factor code required"))
        let lines = result.stderr.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix("authdeck login: standard input ended before a two-factor code: pipe it in")
            },
            "\(result.stderr.suffix(300))")
        #expect(!result.stderr.contains("timed out"))
        #expect(try setup.listed().isEmpty)
    }
}
