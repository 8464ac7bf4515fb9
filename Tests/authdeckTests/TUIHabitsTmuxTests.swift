import Foundation
import Testing

/// The habits operators bring from k9s, htop and fzf, against the real binary in tmux: each theme as the terminal
/// holds it (tmux's own record of the cells, `capture-pane -e`, never our idea of them), NO_COLOR overriding the
/// theme with the selected row marked `>`, an unknown theme refused in one line; `?` help narrowed with `/`; a fuzzy
/// filter (Tab) that still puts the exact key first; `I` turning the sort round with the header's arrow (`^`/`v`
/// outside UTF-8); `A`
/// marking every session the filter shows, and the sign-out of them naming each.
@Suite(.serialized, TmuxPane.required)
struct TUIHabitsTmuxTests {
    let runner = CLIRunner.passphraseStore()
    var folder: TemporaryFolder { runner.folder }

    func seeded() -> CLIRunner {
        var store = runner
        // The test run's own NO_COLOR would make every theme monochrome; the cases that want it set it.
        store.environment["NO_COLOR"] = nil
        store.environment["AUTHDECK_PASSPHRASE_FILE"] = folder.write("passphrase", "correct horse\n")
        let keys = ["globex-google-bob-001", "google-bob", "gx-bo-b", "acme-x", "zeta-x"]
        let sessions = keys.map { key in
            SeedSession(
                key: key, provider: key.hasSuffix("-x") ? "x" : "google", email: "\(key)@example.com",
                created: -600, expires: 3600, accessToken: "token-\(key)")
        }
        SeedSession.importAll(sessions, into: store, via: folder)
        return store
    }

    /// The TUI in a pane of its own folder (`name`), so no pane finds an earlier one's tmux socket or exit mark.
    func start(
        _ store: CLIRunner, _ name: String, _ extra: [String: String] = [:], arguments: [String] = ["tui"],
        rows: Int = 30
    ) throws -> TmuxPane {
        let path = folder.path + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try store.startTUI(in: path, extra, arguments: arguments, cols: 120, rows: rows)
    }

    /// The foreground colours (SGR 30-38, 90-97) the pane's cells carry, from tmux's escape sequences.
    static func foregrounds(_ styled: String) -> Set<Int> {
        var found: Set<Int> = []
        for part in styled.split(separator: "\u{1B}").dropFirst() where part.hasPrefix("[") {
            guard let end = part.firstIndex(of: "m") else { continue }
            for parameter in part.dropFirst()[..<end].split(separator: ";") {
                if let value = Int(parameter), (30...38).contains(value) || (90...97).contains(value) {
                    found.insert(value)
                }
            }
        }
        return found
    }

    @Test func eachThemeIsWhatTheTerminalDrawsAndNoColorAlwaysWins() throws {
        let store = seeded()
        // Dark (the default): cyan headings. Light: blue ones, no cyan (it fades on white).
        for (extra, arguments, wanted, unwanted) in [
            ([:], ["tui"], 36, 34), ([:], ["tui", "--theme", "light"], 34, 36),
            (["AUTHDECK_THEME": "light"], ["tui"], 34, 36),
        ] as [([String: String], [String], Int, Int)] {
            let pane = try start(store, "\(arguments.count)-\(extra.count)", extra, arguments: arguments)
            defer { pane.close() }
            try pane.waitFor("5 sessions")
            let colours = Self.foregrounds(pane.captureStyled())
            #expect(colours.contains(wanted), "\(arguments) \(extra): \(colours)")
            #expect(!colours.contains(unwanted), "\(arguments) \(extra): \(colours)")
            try pane.quit()
        }
        // NO_COLOR over a light theme, and monochrome chosen: no colour in any cell, the selected row marked `>`.
        for (extra, arguments) in [
            (["NO_COLOR": "1"], ["tui", "--theme", "light"]), ([:], ["tui", "--theme", "monochrome"]),
        ] as [([String: String], [String])] {
            let pane = try start(store, "mono-\(extra.count)", extra, arguments: arguments)
            defer { pane.close() }
            try pane.waitFor("5 sessions")
            #expect(Self.foregrounds(pane.captureStyled()).isEmpty, "\(arguments) \(extra)")
            let lines = pane.capture().split(separator: "\n")
            #expect(lines.filter { $0.hasPrefix(">") }.count == 1)
            // The cursor opens on the default for scripts, the second row (2/5).
            #expect(pane.capture().contains("2/5"))
            #expect(lines.first { $0.hasPrefix(">") }?.contains("globex-google-bob-001") == true)
            // The sign-out question's focused answer is marked too, not only reversed.
            try pane.press("d", until: ">n< No")
            try pane.press("n", until: "Nothing was signed out.")
            try pane.quit()
        }
        // NO_COLOR set but empty asks for nothing (no-color.org): the colours stay.
        let pane = try start(store, "empty-no-color", ["NO_COLOR": ""])
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        #expect(Self.foregrounds(pane.captureStyled()).contains(36))
        try pane.quit()
    }

    @Test func anUnknownThemeIsOneLineAndExitTwo() throws {
        let store = seeded()
        for (extra, arguments, source) in [
            ([:], ["tui", "--theme", "neon"], "--theme"), (["AUTHDECK_THEME": "neon"], ["tui"], "AUTHDECK_THEME"),
        ] as [([String: String], [String], String)] {
            let pane = try start(store, source, extra, arguments: arguments)
            defer { pane.close() }
            #expect(pane.exitStatus() == 2)
            let shown = pane.capture().split(separator: "\n").map(String.init).filter { !$0.isEmpty }
            #expect(shown == ["authdeck tui: \(source) names the theme 'neon': use one of dark, light, monochrome"])
        }
        let config = folder.write("config.json", "{\"theme\": \"solarized\"}")
        let pane = try start(store, "config", ["AUTHDECK_CONFIG": config])
        defer { pane.close() }
        #expect(pane.exitStatus() == 2)
        #expect(pane.capture().contains("config.json names the theme 'solarized': use one of dark, light, monochrome"))
    }

    @Test func helpNarrowsAsYouTypeAndListsTheFilterFields() throws {
        let store = seeded()
        let pane = try start(store, "help", rows: 40)
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        try pane.press("?", until: "key: status: backend: provider: · ~ fuzzy (Tab)")
        pane.send("/")
        try pane.press("revo", until: "1 of ")
        let screen = pane.capture()
        #expect(screen.contains("revoke and sign out"))
        #expect(screen.contains("revoke"))
        #expect(!screen.contains("new sign-in"))
        // Enter keeps the filter; Esc clears it and help shows every line again; another key closes help.
        try pane.press("Enter", until: "Esc clears, / changes.")
        try pane.press("Escape", until: "new sign-in")
        try pane.press("x", until: "5 sessions")
        #expect(!pane.capture().contains("backend: provider:"))
        try pane.quit()
    }

    @Test func theSortArrowIsASCIIOutsideAUTF8Locale() throws {
        let store = seeded()
        let pane = try start(store, "ascii", ["LANG": "C", "LC_ALL": ""])
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        #expect(pane.capture().contains("KEY^"))
        try pane.press("I", until: "KEYv")
        try pane.quit()
    }

    @Test func fuzzyFilterReverseSortAndMarkAllShown() throws {
        let store = seeded()
        let pane = try start(store, "habits", ["NO_COLOR": "1"])
        defer { pane.close() }
        try pane.waitFor("5 sessions")
        // Tab switches the filter to fuzzy: letters in order, the exact key above one that sorts before it.
        pane.send("/")
        try pane.press("Tab", until: "Fuzzy:")
        try pane.press("google-bob", until: "2 of 5 match “~google-bob”")
        var selected = pane.capture().split(separator: "\n").first { $0.hasPrefix(">") } ?? ""
        #expect(selected.contains("google-bob") && !selected.contains("globex"), "\(selected)")
        for _ in 0..<10 { pane.send("BSpace") }
        try pane.press("gbob", until: "3 of 5 match “~gbob”")
        try pane.press("Tab", until: "0 of 5 match “gbob”")
        pane.send("Escape")
        // I turns the key order round: the header says so and zeta-x comes first; the cursor stays on its session.
        try pane.press("I", until: "KEY↓")
        let screen = pane.capture().split(separator: "\n")
        let header = screen.firstIndex { $0.contains("KEY↓") } ?? 0
        #expect(screen[header + 1].contains("zeta-x") && screen[header + 5].contains("acme-x"), "\(screen)")
        selected = screen.first { $0.hasPrefix(">") } ?? ""
        #expect(selected.contains("acme-x"), "\(selected)")
        try pane.press("I", until: "KEY↑")
        // A marks what the filter shows; d then names every one.
        pane.send("/")
        try pane.press("provider:x", until: "2 of 5 match")
        pane.send("Enter")
        try pane.press("A", until: "Marked the 2 shown (2 marked)")
        try pane.press("d", until: "Sign out of 2 marked sessions")
        try pane.press("y", until: "Signed out of 2 sessions: acme-x, zeta-x.")
        let left = store.run(["list", "--json"]).stdout
        #expect(!left.contains("acme-x") && !left.contains("zeta-x") && left.contains("google-bob"))
        try pane.quit()
    }
}
