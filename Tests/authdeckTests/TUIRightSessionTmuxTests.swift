import Foundation
import Testing

/// The mistakes a busy operator makes, each against the real binary in tmux: a destructive key after a filter that
/// also matches near-namesakes acts on the exact key, its question names the session in full, and an action on
/// marked rows names every session it touched; `c` on an expired session that cannot be refreshed copies nothing
/// and says why, as `authdeck token` refuses it; `authdeck store lock` in another process locks an open TUI, and
/// `L` locks it from the keyboard; on New sign-in under NO_COLOR, a letter typed on a row other than the
/// providers' starts nothing and the focused row is marked with `>`.
@Suite(.serialized, TmuxPane.required)
struct TUIRightSessionTmuxTests {
    let runner = CLIRunner.passphraseStore()
    var folder: TemporaryFolder { runner.folder }

    /// Near-namesakes of google-bob that sort before it by key.
    func seeded(expired: Bool = false) -> CLIRunner {
        var store = runner
        store.environment["AUTHDECK_PASSPHRASE_FILE"] = folder.write("passphrase", "correct horse\n")
        let keys = ["globex-google-bob-001", "google-bob", "google-bob-2", "acme-google-bob", "zeta-x"]
        let sessions = keys.map { key in
            SeedSession(
                key: key, provider: key == "zeta-x" ? "x" : "google", email: "\(key)@example.com", created: -600,
                expires: expired && key == "zeta-x" ? -3700 : 3600, accessToken: "token-\(key)")
        }
        SeedSession.importAll(sessions, into: store, via: folder)
        return store
    }

    /// `store` in the TUI with tmux taking OSC 52 copies into its paste buffer, once it lists its five sessions.
    func clipboardTUI(_ store: CLIRunner, _ extra: [String: String] = [:]) throws -> TmuxPane {
        let pane = try store.startTUI(in: folder.path, extra, cols: 120)
        pane.tmuxCommand(["set", "-s", "set-clipboard", "on"])
        do {
            try pane.waitFor("5 sessions")
        } catch {
            pane.close()
            throw error
        }
        return pane
    }

    func keys(_ store: CLIRunner) throws -> [String] {
        let result = store.run(["list", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return rows.compactMap { $0["key"] as? String }
    }

    @Test func aDestructiveKeyAfterAFilterActsOnTheExactKeyAndNamesItInFull() throws {
        let store = seeded()
        let pane = try store.startTUI(in: folder.path, cols: 120)
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        pane.send("/")
        try pane.press("google-bob", until: "4 of 5 match “google-bob”")
        pane.send("Enter")
        // The revoke question names the session, its provider and user, and the host it would ask.
        try pane.press("R", until: "Revoke the tokens of google-bob (google, google-bob@example.com) at issuer.example")
        try pane.press("n", until: "Nothing was signed out.")
        try pane.press("d", until: "Sign out of google-bob (google, google-bob@example.com)?")
        try pane.press("y", until: "Signed out of google-bob.")
        #expect(try keys(store) == ["acme-google-bob", "globex-google-bob-001", "google-bob-2", "zeta-x"])
        pane.send("/")
        pane.send("Escape")
        // key: is a key exactly (key:name* its start); ^ and $ anchor a word at a field's start and end; a quoted
        // text is a whole field.
        for (filter, count) in [
            ("key:google-bob-2", 1), ("key:g*", 2), ("^glo", 1), ("bob-001$", 1), ("\"zeta-x\"", 1), ("\"zeta\"", 0),
        ] {
            pane.send("/")
            try pane.press(filter, until: "\(count) of 4 match “\(filter)”")
            pane.send("Escape")
        }
        pane.send("Escape")
        try pane.quit()
    }

    @Test func signingOutOfMarkedSessionsNamesEveryOne() throws {
        let store = seeded()
        let pane = try store.startTUI(in: folder.path, cols: 120)
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        // Rows in key order: acme-google-bob, globex-google-bob-001, google-bob, …: mark the first three.
        try pane.press("g", until: "1/5")
        pane.send("Space")
        pane.send("Space")
        try pane.press("Space", until: "3 marked")
        try pane.press("d", until: "Sign out of 3 marked sessions")
        try pane.press("y", until: "Signed out of 3 sessions: acme-google-bob, globex-google-bob-001, google-bob.")
        #expect(try keys(store) == ["google-bob-2", "zeta-x"])
        try pane.quit()
    }

    @Test func copyingAnExpiredSessionThatCannotRefreshCopiesNothingAndSaysWhy() throws {
        let store = seeded(expired: true)
        // What `authdeck token` says of the same session.
        let token = store.run(["token", "zeta-x"])
        #expect(token.status != 0)
        #expect(token.stderr.contains("expired"))
        let pane = try clipboardTUI(store)
        defer { pane.close() }
        pane.tmuxCommand(["set-buffer", "before"])
        try pane.press("G", until: "5/5")
        try pane.press("c", until: "zeta-x expired 1h 01m ago and cannot be refreshed: nothing copied")
        #expect(pane.pasteBuffer() == "before")
        // A current session's token still copies.
        try pane.press("g", until: "1/5")
        try pane.press("c", until: "Copied the access token of acme-google-bob")
        #expect(pane.pasteBuffer() == "token-acme-google-bob")
        try pane.quit()
    }

    @Test func storeLockElsewhereLocksAnOpenTUIAndItsCopyKey() throws {
        let store = seeded()
        // `token` unlocks the store from the passphrase file and caches the key; the TUI, which has no passphrase
        // file, starts unlocked from that cache.
        #expect(store.run(["token", "google-bob"]).stdout == "token-google-bob\n")
        let pane = try clipboardTUI(store, ["AUTHDECK_PASSPHRASE_FILE": ""])
        defer { pane.close() }
        try pane.waitFor("unlocked")
        try pane.press("c", until: "Copied the access token of")
        pane.tmuxCommand(["set-buffer", "before"])
        let locked = store.run(["store", "lock"])
        #expect(locked.status == 0, "\(locked.stderr)")
        try pane.waitFor("Locked by authdeck store lock", timeout: 15)
        try pane.waitFor("The session store is locked.")
        // Listing goes on without the key; c asks to unlock instead of copying.
        try pane.press("Escape", until: "5 sessions")
        try pane.press("c", until: "Unlock the store to copy the token")
        #expect(pane.pasteBuffer() == "before")
        // The typed passphrase unlocks it again, and L locks it from the keyboard.
        try pane.submit("correct horse", until: "Store unlocked.")
        try pane.press("L", until: "Locked with L")
        #expect(store.run(["token", "google-bob"], environment: ["AUTHDECK_PASSPHRASE_FILE": ""]).status != 0)
        try pane.quit(with: "C-c")
    }

    /// A `store lock` that is the first write the open TUI sees still locks it: the TUI knew the lock record
    /// before any other process wrote.
    @Test func storeLockAsTheFirstWriteElsewhereLocksAnOpenTUI() throws {
        let store = seeded()
        #expect(store.run(["token", "google-bob"]).stdout == "token-google-bob\n")
        let pane = try clipboardTUI(store, ["AUTHDECK_PASSPHRASE_FILE": ""])
        defer { pane.close() }
        try pane.waitFor("unlocked")
        let locked = store.run(["store", "lock"])
        #expect(locked.status == 0, "\(locked.stderr)")
        try pane.waitFor("Locked by authdeck store lock", timeout: 15)
        try pane.quit(with: "C-c")
    }

    /// The pane's line that contains `text`.
    func line(_ pane: TmuxPane, containing text: String) -> String {
        pane.capture().split(separator: "\n").first { $0.contains(text) }.map(String.init) ?? ""
    }

    @Test func lettersStartAProviderOnlyOnItsRowAndFocusShowsWithoutColour() throws {
        var store = seeded()
        // A sandbox whose Google sign-in would start at once, with a browser that opens nothing.
        let sandbox = try SandboxProcess(folder: folder, runner: store)
        store.environment["AUTHDECK_CONFIG"] = sandbox.configPath
        let pane = try store.startTUI(in: folder.path, ["NO_COLOR": "1", "BROWSER": "/bin/true"], cols: 100)
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        try pane.press("n", until: "Sign in with")
        // The row and, monochrome under NO_COLOR, the focused button itself: `>g<` in place of `[g]`.
        #expect(line(pane, containing: ">g< Google").hasPrefix(">"))
        #expect(line(pane, containing: "Backend").hasPrefix("  "))
        pane.send("Tab")
        try pane.waitFor("> Backend")
        // One Tab short of the session key: the letters are not Google's, Apple's or Discord's shortcuts.
        pane.send("gad")
        pane.send("Tab")
        try pane.waitFor("> Session key")
        pane.send("gad-key")
        try pane.waitFor("gad-key")
        let screen = pane.capture()
        #expect(screen.contains("Sign in with"))
        #expect(!screen.contains("Signing in") && !screen.contains("Waiting"))
        #expect(line(pane, containing: "Backend").hasPrefix("  "))
        #expect(!line(pane, containing: "[g]").hasPrefix(">"))
        try pane.press("Escape", until: "5 sessions")
        try pane.quit()
    }

    /// tmux ignores the empty OSC 52 that clears a terminal's clipboard, so the clearing deletes the paste buffer the
    /// copy made, through the server of `$TMUX`; the user's own buffers stay.
    @Test func aClearedTokenLeavesTmuxsPasteBuffersButNotTheUsersOwn() throws {
        let store = seeded()
        let config = folder.write("clear-config.json", #"{"clipboardClearSeconds": 2}"#)
        let tmux = folder.path + "/tmux.sock,0,0"  // the pane's server, as tmux sets $TMUX in its panes
        let pane = try clipboardTUI(store, ["AUTHDECK_CONFIG": config, "TMUX": tmux])
        defer { pane.close() }
        pane.tmuxCommand(["set-buffer", "keep me"])
        try pane.press("g", until: "1/5")
        try pane.press("c", until: "Copied the access token of acme-google-bob; clears in 2 s")
        #expect(pane.pasteBuffer() == "token-acme-google-bob")
        try pane.waitFor("5 sessions")
        let deadline = Date().addingTimeInterval(6)
        while pane.pasteBuffer() != "keep me" && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(pane.pasteBuffer() == "keep me")
        try pane.quit()
    }
}
