import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Under tmux, the real binary: the `:` command line (Tab, a destructive command's question, an unknown name,
/// Esc) and keys.json, whose keys the TUI uses and whose mistakes stop it before it draws.
extension TUIDailyUseTmuxTests {
    /// keys.json with `text` in a config folder of this test's, as `XDG_CONFIG_HOME` names it.
    func keyMap(_ text: String) -> [String: String] {
        mkdir(folder.path + "/xdg", 0o755)
        mkdir(folder.path + "/xdg/authdeck", 0o755)
        _ = folder.write("xdg/authdeck/keys.json", text)
        return ["XDG_CONFIG_HOME": folder.path + "/xdg"]
    }

    @Test func theCommandLineCompletesAsksBeforeSigningOutAndNamesTheNearestCommand() throws {
        let store = seeded()
        let pane = try seededTUI(store)
        defer { pane.close() }
        // Tab completes the name, then the key from the store.
        try pane.press(":", until: "Tab complete")
        pane.send("log")
        try pane.press("Tab", until: ":logout")
        pane.send("ch")
        try pane.press("Tab", until: ":logout charlie-x")
        try pane.press("Enter", until: "Sign out of charlie-x (x, ")
        try pane.press("n", until: "Nothing was signed out")
        #expect(try selectedKey(store) == "alpha-google")
        // A name it does not know: one line with the nearest, and nothing happens.
        pane.send(":")
        try pane.submit("refersh", until: "Unknown command :refersh: did you mean :refresh?")
        // Arguments: the filter as `/` takes it, then Up brings the last command back.
        pane.send(":")
        try pane.submit("filter status:expired", until: "1 of 5 match “status:expired”")
        pane.send(":")
        try pane.press("Up", until: ":filter status:expired")
        // Esc leaves the line unrun (the filter stays as it was); a second Esc on the list clears the filter.
        try pane.press("Escape", until: "Enter open")
        #expect(!pane.capture().contains(":filter"))
        try pane.press("Escape", until: "5 sessions")
        pane.send(":")
        try pane.submit("use delta-portal", until: "Scripts now use delta-portal by default")
        #expect(try selectedKey(store) == "delta-portal")
        pane.send(":")
        pane.send("quit")
        try pane.quit(with: "Enter")
    }

    @Test func keysJSONRebindsAKeyForTheListHelpAndTheStatusBar() throws {
        let store = seeded()
        var rebound = store
        rebound.environment.merge(keyMap(#"{"sessions": {"logout": "x", "revoke": []}}"#)) { _, new in new }
        let pane = try seededTUI(rebound)
        defer { pane.close() }
        #expect(pane.capture().contains("x sign out"))
        try pane.press("d", until: "5 sessions")
        #expect(!pane.capture().contains("Sign out of"))
        try pane.press("x", until: "Sign out of alpha-google (google, ")
        try pane.press("n", until: "Nothing was signed out")
        try pane.press("?", until: "x       sign out (marked or this)")
        try pane.press("Escape", until: "5 sessions")
        try pane.quit()
    }

    @Test func aKeysJSONMistakeIsOneLineAndTheTUIDoesNotStart() throws {
        for (run, (json, line)) in [
            (#"{"sessions": {"logout": "r"}}"#, "keys.json: sessions.logout: r is also refresh's key on the sessions"),
            (#"{"sessions": {"sign-out": "x"}}"#, "keys.json: sessions.sign-out: no action “sign-out”"),
            (#"{"sessions": {"logout": "Ctrl-X"}}"#, "keys.json: sessions.logout: “Ctrl-X” is not a key"),
        ].enumerated() {
            // A tmux server and exit marker of its own for each run: the last one's may still be going away.
            let paneFolder = folder.path + "/pane-\(run)"
            mkdir(paneFolder, 0o700)
            let pane = try runner.startTUI(in: paneFolder, keyMap(json))
            defer { pane.close() }
            #expect(pane.exitStatus() == 2)
            let screen = pane.captureJoined()
            #expect(screen.contains(line), "\(screen)")
            #expect(!screen.contains("authdeck ·"))
            // doctor reads it as the TUI does.
            let doctor = runner.run(["doctor"], environment: keyMap(json))
            #expect(doctor.stdout.contains("FAIL  keys"), "\(doctor.stdout)")
            #expect(doctor.stdout.contains(line), "\(doctor.stdout)")
        }
    }
}
