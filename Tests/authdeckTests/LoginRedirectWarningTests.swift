import Foundation
import Testing

/// `login` with a redirect URI no receiver gets (the README's wrong-redirect walk-through) warns as soon
/// as the attempt begins, before the browser could time out, and the trace keeps the notice.
@Suite struct LoginRedirectWarningTests {
    @Test func aWrongRedirectURIIsAWarningLineRightAfterTheURL() throws {
        let setup = try SandboxLoginSetup()
        let wrong = try setup.config("google", "redirectURI", "https://wrong.example/callback", file: "wrong.json")
        let trace = setup.folder.path + "/trace.jsonl"
        let result = setup.runner.run(
            ["login", "google", "--timeout", "5", "--trace", trace],
            environment: ["AUTHDECK_CONFIG": wrong, "BROWSER": "/bin/true"])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let warning = try #require(
            lines.firstIndex {
                $0.hasPrefix(
                    "authdeck: warning: the redirect URI "
                        + "https://wrong.example/callback reaches none")
            })
        let timedOut = try #require(lines.firstIndex { $0.contains("timed out") })
        #expect(warning < timedOut)
        #expect(lines[warning].contains("authdeck doctor"))
        let steps = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        #expect(steps.contains { $0.contains("\"notice\"") && $0.contains("redirect unreachable") })

        // The sandbox's own loopback redirect draws no warning.
        let fine = setup.runner.run(["login", "google"])
        #expect(fine.status == 0, "stderr: \(fine.stderr)")
        #expect(!fine.stderr.contains("warning:"))
    }
}
