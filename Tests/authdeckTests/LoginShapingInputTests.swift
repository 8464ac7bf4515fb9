import Foundation
import Testing

/// `login`'s request-shaping options refuse what cannot be sent: one line naming the option and the fix (then the
/// synopsis, as every usage error), exit 2,
/// before the store is asked for anything or a browser opens, so nothing is stored.
@Suite(.serialized) struct LoginShapingInputTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        setup = try SandboxLoginSetup()
    }

    static let refused: [([String], String)] = [
        (["--prompt", "sometimes"], "--prompt: 'sometimes' is not one of login, consent, select_account, none"),
        (["--prompt", "none login"], "--prompt:"),
        (["--claims", "{\"id_token\":"], "--claims: takes a JSON object"),
        (["--claims", "[1]"], "--claims: takes a JSON object"),
        (["--authorization-details", "{\"type\":\"a\"}"], "--authorization-details: takes a JSON array"),
        (["--authorization-details", "[{\"actions\":[]}]"], "\"type\""),
        (["--authorization-details", "@/nonexistent/details.json"], "cannot read /nonexistent/details.json"),
        (["--param", "state=mine"], "--param: state is set by authdeck"),
        (["--param", "nonce=n"], "--param: nonce is set by authdeck"),
        (["--param", "code_challenge=c"], "--param: code_challenge is set by authdeck"),
        (["--param", "redirect_uri=https://evil.example/"], "--param: redirect_uri is set by authdeck"),
        (["--param", "request_uri=urn:x"], "--param: request_uri is set by authdeck"),
        (["--param", "prompt=login"], "use --prompt"),
        (["--param", "novalue"], "--param: takes NAME=VALUE"),
        (["--max-age", "-5"], "--max-age: takes a whole number of seconds"),
        (["--max-age", "1.5"], "--max-age: takes a whole number of seconds"),
        (["--resource", "api/relative"], "--resource: 'api/relative' is not an absolute URI"),
        (["--resource", "https://api.example/#part"], "without a fragment"),
        (["--acr-values", " "], "--acr-values: names no value"),
        (["--device", "--prompt", "login"], "--device has no authorization request to shape"),
    ]

    @Test func eachBadValueIsOneUsageLineAndNothingIsStored() throws {
        for (options, words) in Self.refused {
            let result = runner.run(["login", "oidc", "--session-key", "shaped"] + options, stdin: "")
            #expect(result.status == 2, "\(options): \(result.stderr)")
            // The one line saying what is wrong, then the synopsis every usage error ends with.
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first?.contains(words) == true, "\(options): \(result.stderr)")
            #expect(lines.count == 2 && lines.last?.hasPrefix("usage: authdeck login") == true)
        }
        #expect(try setup.listed().isEmpty)
        // The same options with good values sign in at the sandbox.
        let good = runner.run(
            [
                "login", "oidc", "--session-key", "shaped", "--prompt", "login", "--login-hint", "a@example.org",
                "--resource", "https://api.example/", "--resource", "urn:example:other",
                "--claims", "{\"id_token\":{\"email\":null}}", "--param", "ui_locales=de",
            ], stdin: "")
        #expect(good.status == 0, "stderr: \(good.stderr)")
        #expect(try setup.listed().count == 1)
    }
}
