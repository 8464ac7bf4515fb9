import Foundation
import Testing

/// A real backend that reaches the sandbox, a sandbox backend that is not on this
/// machine, and plain http to another host are errors, not sessions.
@Suite(.serialized) struct SandboxMisuseTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func config(_ json: String) -> String {
        setup.folder.write("misuse-\(abs(json.hashValue)).json", json)
    }

    @Test func aRealBackendPointedAtTheSandboxFails() throws {
        let issuer = setup.sandbox.baseURL + "/oidc/generic"
        let path = config(
            """
            {"backends": {"corp": {"type": "direct"}},
             "providers": {"oidc": {"issuer": "\(issuer)", "clientID": "authdeck-generic"}}}
            """)
        let result = runner.run(
            ["login", "oidc", "--backend", "corp", "--config", path, "--timeout", "20"],
            timeout: 40)
        #expect(result.status != 0, "stdout: \(result.stdout)")
        #expect(result.stderr.contains("sandbox"), "stderr: \(result.stderr)")
        #expect(try setup.listed().isEmpty)
        // The sandbox's own backends still work.
        #expect(runner.run(["login", "oidc", "--timeout", "20"], timeout: 40).status == 0)
    }

    @Test func aSandboxBackendOffThisMachineFails() throws {
        let path = config(
            """
            {"backends": {"remote": {"type": "sandbox", "baseURL": "https://sandbox.example.com"}}}
            """)
        let result = runner.run(["login", "google", "--backend", "remote", "--config", path], timeout: 40)
        #expect(result.status != 0)
        #expect(result.stderr.contains("not on this machine"), "stderr: \(result.stderr)")
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeAnyRequest() throws {
        let result = runner.run(
            [
                "login", "oidc", "--backend", "direct", "--issuer", "http://192.0.2.1/realm",
                "--client-id", "x", "--timeout", "20",
            ], timeout: 40)
        #expect(result.status != 0)
        #expect(result.stderr.contains("https is required"), "stderr: \(result.stderr)")
    }
}
