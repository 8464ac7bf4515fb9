import Foundation
import Testing

extension TUISignInTmuxTests {
    /// New sign-in's OIDC rows shape the request as `login`'s options do: the prompt chosen with ←/→, a login hint
    /// and a resource typed, a max age that is not a number refused on the form in login's words (nothing starts),
    /// and the authorize URL the browser is given carries each value.
    @Test func promptLoginHintMaxAgeAndResourceTypedOnNewSignInReachTheAuthorizeURL() throws {
        let urls = folder.path + "/urls.txt"
        let browser = folder.writeScript(
            "browser.sh",
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(urls)'\nexec /usr/bin/python3 '\(ScriptedBrowser.path)' \"$@\"\n")
        let pane = try runner.startTUI(
            in: folder.path, ["BROWSER": browser, "SCRIPTED_BROWSER_DELAY": "1"], cols: 80, rows: 24)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        try pane.press("n", until: "Sign in with")
        for _ in 0..<4 { pane.send("Right") }
        try pane.waitFor("‹ provider's default ›")
        for _ in 0..<11 { pane.send("Tab") }
        try pane.press("Right", until: "‹ login ›")
        pane.send("Tab")
        pane.send("ada@example.org")
        pane.send("Tab")
        try pane.submit("soon", until: "Max age: takes a whole number of seconds")
        #expect(pane.capture().contains("Sign in with"))
        for _ in 0..<4 { pane.send("BSpace") }
        pane.send("600")
        pane.send("Tab")
        pane.send("Tab")
        try pane.submit("https://api.example/", until: "Signed in with OIDC", timeout: 20)
        try pane.press("Enter", until: "1 session")
        try pane.quit()

        let opened = try String(contentsOfFile: urls, encoding: .utf8)
        let query = URLComponents(string: opened.trimmingCharacters(in: .whitespacesAndNewlines))?.queryItems ?? []
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        #expect(value("prompt") == "login", "opened: \(opened)")
        #expect(value("login_hint") == "ada@example.org")
        #expect(value("max_age") == "600")
        #expect(value("resource") == "https://api.example/")
        #expect(value("acr_values") == nil)
    }
}
