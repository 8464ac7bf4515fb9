import Foundation
import Testing

/// Under tmux, the real binary against a real sandbox: the sign-out question offers ending the session at the
/// provider only where the provider's cached discovery names an end-session endpoint; `e` runs the same sign-out
/// as `logout --end-session` (the scripted browser at the sandbox's endpoint and back to the registered address),
/// and the status line names what happened at each place.
@Suite(TmuxPane.required, .serialized)
struct TUISignOutAtProviderTmuxTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup

    init() throws {
        let uri = "http://127.0.0.1:\(try PortHolder.freePort())/logout"
        setup = try SandboxLoginSetup(sandboxArguments: ["--post-logout-redirect-uri", uri])
    }

    @Test func theSignOutQuestionEndsTheSessionAtTheProviderWhereItCan() throws {
        for (key, provider) in [("work", "oidc"), ("chat", "discord")] {
            let result = runner.run(["login", provider, "--session-key", key], stdin: "", timeout: 30)
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        let pane = try runner.startTUI(in: folder.path, ["BROWSER": ScriptedBrowser.path], cols: 120)
        defer { pane.close() }
        try pane.waitFor("2 sessions")
        // The filter leaves the OIDC session alone on the table, so d asks about it.
        pane.send("/")
        try pane.press("work", until: "1 of 2 match “work”")
        pane.send("Enter")
        try pane.press("d", until: "End at provider")
        try pane.press(
            "e", until: "work: At the provider: signed out · Revoked: not asked · Removed here: yes", timeout: 30)
        #expect(try setup.listed().map { $0["key"] as? String } == ["chat"])

        // Discord's provider names no end-session endpoint: the question is the plain one, and No keeps it.
        pane.send("/")
        for _ in 0..<4 { pane.send("BSpace") }
        try pane.press("chat", until: "1 of 1 match “chat”")
        pane.send("Enter")
        try pane.press("d", until: "Sign out of chat (discord, Ada)?")
        #expect(!pane.capture().contains("End at provider"))
        try pane.press("n", until: "Nothing was signed out.")
        try pane.quit()
        #expect(try setup.listed().count == 1)
    }
}
