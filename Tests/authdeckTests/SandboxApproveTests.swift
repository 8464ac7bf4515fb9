import Foundation
import Testing

/// `authdeck sandbox approve` as `$BROWSER`, on every sandbox backend with a consent step: it follows every redirect
/// as a browser does (the sandbox's straight to the loopback receiver; Portal's through its callback on to
/// `authdeck://`, which it hands to the waiting sign-in as `open-url` does), posts Apple's form_post page, and the
/// login ends signed in (Portal names the user by its id).
@Suite(.serialized) struct SandboxApproveTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup(schemeHandler: false)
    }

    @Test(arguments: [
        ("google", "sandbox"), ("apple", "sandbox"), ("google", "sandbox-turnkey"), ("google", "sandbox-portal"),
        ("apple", "sandbox-portal"),
    ])
    func approveSignsInThroughEveryRedirect(_ provider: String, _ backend: String) throws {
        let browser = CLIRunner.binary + " sandbox approve --user ada"
        let result = runner.run(
            ["login", provider, "--backend", backend, "--yes", "--timeout", "20"], stdin: "",
            environment: ["BROWSER": browser], timeout: 40)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("Signed in with \(provider) as "), "\(result.stderr)")
        if backend == "sandbox" {
            #expect(result.stderr.contains("(session \(provider)-ada@example.com)"), "\(result.stderr)")  // --user ada
        }
        let key = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try setup.listed().contains { $0["key"] as? String == key && $0["backend"] as? String == backend })
    }

    /// Portal's refusal travels the same redirects to the waiting sign-in, which ends at once instead of timing out.
    @Test func aDenialEndsTheLoginAsRefused() throws {
        let browser = CLIRunner.binary + " sandbox approve --deny"
        let result = runner.run(
            ["login", "google", "--backend", "sandbox-portal", "--timeout", "20"], stdin: "",
            environment: ["BROWSER": browser], timeout: 40)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("Authentication failed: oauth_failed"), "\(result.stderr)")
        #expect(try setup.listed().isEmpty)
    }
}
