import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The README's quick start as a new user tried it: the TUI unlocked by typing the passphrase on its unlock screen
/// (no keyring, no passphrase file), scripts importing, signing in and reading tokens in another process, a
/// sign-in in the TUI, then quit. Every session must survive, visible to every process as soon as it is stored.
@Suite(.serialized, TmuxPane.required)
struct SharedStoreTmuxTests: SandboxLoginSuite {
    let setup: SandboxLoginSetup
    static let passphrase = "correct horse battery staple"

    init() throws {
        setup = try SandboxLoginSetup()
    }

    func keys() -> [String] {
        ((try? setup.listed()) ?? []).compactMap { $0["key"] as? String }
    }

    func sqlite3(_ sql: String) -> String {
        let result = runner.run(executable: "/usr/bin/sqlite3", [folder.path + "/home/sessions.db", sql])
        return result.stdout + result.stderr
    }

    static func lines(_ prefix: String, count: Int) -> String {
        (0..<count).map { index in
            "{\"key\":\"\(prefix)-\(index)\",\"provider\":\"google\",\"subject\":\"\(prefix)\(index)\","
                + "\"accessToken\":\"AT-\(prefix)-\(index)\"}\n"
        }.joined()
    }

    /// A TUI whose store opens locked: no passphrase file and no kernel-keyring cache entry.
    func lockedTUI(_ runner: CLIRunner) throws -> TmuxPane {
        #expect(runner.run(["store", "lock"]).status == 0)
        var locked = runner
        locked.environment["AUTHDECK_PASSPHRASE_FILE"] = nil
        return try locked.startTUI(in: folder.path, ["BROWSER": ScriptedBrowser.path])
    }

    func unlock(_ pane: TmuxPane) throws {
        try pane.waitFor("Store locked")
        try pane.submit(Self.passphrase, until: "Store unlocked.", timeout: 20)
    }

    @Test func theTUIUnlockedAtThePromptAndScriptsShareOneStore() throws {
        #expect(runner.run(["store", "import", "-"], stdin: Self.lines("seed", count: 3)).status == 0)
        let pane = try lockedTUI(runner)
        defer { pane.close() }
        try unlock(pane)
        try pane.waitFor("3 sessions")
        // Another terminal: an import, a sign-in and token reads, while the TUI holds the store open.
        #expect(runner.run(["store", "import", "-"], stdin: Self.lines("script", count: 40)).status == 0)
        let login = runner.run(["login", "discord", "--session-key", "cli-login"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(runner.run(["token", "seed-1"]).stdout == "AT-seed-1\n")
        #expect(runner.run(["list"]).status == 0)
        // The TUI sees them within a second or two.
        try pane.waitFor("44 sessions", timeout: 5)
        // A sign-in in the TUI: visible to `list` in the other process as soon as the TUI says it is stored.
        try pane.press("n", until: "Sign in with")
        try pane.press("g", until: "Stored as session", timeout: 20)
        let stored = keys()
        #expect(stored.contains { $0.hasPrefix("google-ada") }, "list did not see the TUI's sign-in: \(stored)")
        try pane.press("Enter", until: "45 sessions")
        // A logout elsewhere disappears from the TUI too.
        #expect(runner.run(["logout", "script-0"]).status == 0)
        try pane.waitFor("44 sessions", timeout: 5)
        try pane.quit()

        #expect(sqlite3("PRAGMA integrity_check;") == "ok\n")
        let after = keys()
        #expect(after.count == 44, "\(after.count) sessions: \(after)")
        #expect(after.contains("cli-login") && after.contains("seed-0") && after.contains("script-39"))
        // And the store opens cleanly again, as the next start would.
        let reopened = runner.run(["list", "--json"])
        #expect(reopened.status == 0, "\(reopened.stderr)")
    }

    /// Writers that import and log out, killing their own authdeck now and then with SIGKILL mid-write. Each line
    /// out says what is known: ADD (import returned 0), DEL (logout returned 0), MAYBE (killed: either way).
    static let writerScript = """
        id=$1; end=$(( $(date +%s) + $2 )); i=0
        while [ "$(date +%s)" -lt "$end" ]; do
            k="w$id-$i"
            printf '{"key":"%s","accessToken":"tok-%s"}\\n' "$k" "$k" > "$3/line-$id"
            "$AUTHDECK_BIN" store import "$3/line-$id" --quiet 2>>"$3/err-$id" &
            pid=$!
            if [ $((RANDOM % 5)) = 0 ]; then sleep 0.0$((RANDOM % 9)); kill -9 $pid 2>/dev/null; fi
            if wait $pid; then echo "ADD $k"; else echo "MAYBE $k"; fi
            if [ $((i % 4)) = 1 ]; then
                if "$AUTHDECK_BIN" logout "$k" --quiet 2>>"$3/err-$id"; then echo "DEL $k"; else echo "MAYBE $k"; fi
            fi
            i=$((i + 1))
        done
        """

    /// Sign-ins, token reads and refreshes of sessions whose tokens live 70 s, so every read near expiry refreshes.
    static let readerScript = """
        id=$1; end=$(( $(date +%s) + $2 )); i=0
        while [ "$(date +%s)" -lt "$end" ]; do
            case $((i % 4)) in
                0) "$AUTHDECK_BIN" login discord --session-key "login-$id-$i" >/dev/null 2>>"$3/reader-err-$id" \\
                       && echo "ADD login-$id-$i" ;;
                1) "$AUTHDECK_BIN" refresh "refresh-$((i % 2))" --quiet 2>>"$3/reader-err-$id" ;;
                *) "$AUTHDECK_BIN" token "refresh-$((i % 2))" >/dev/null 2>>"$3/reader-err-$id" ;;
            esac
            i=$((i + 1))
        done
        """

    @Test func aMinuteOfTheTUIAndScriptsSharingTheStoreLosesNothing() throws {
        let soakFolder = TemporaryFolder()
        let short = try SandboxProcess(folder: soakFolder, runner: runner, extraArguments: ["--token-lifetime", "70"])
        var soak = runner
        soak.environment["AUTHDECK_CONFIG"] = short.configPath
        for index in 0..<2 {
            let login = soak.run(["login", "google", "--session-key", "refresh-\(index)"])
            #expect(login.status == 0, "\(login.stderr)")
        }
        let pane = try lockedTUI(soak)
        defer { pane.close() }
        try unlock(pane)

        let seconds = 60
        let writer = folder.write("soak-writer.sh", Self.writerScript)
        let reader = folder.write("soak-reader.sh", Self.readerScript)
        var workers: [(SpawnedProcess, String)] = []
        for (index, script) in [writer, writer, writer, reader, reader].enumerated() {
            let out = folder.path + "/soak-out-\(index)"
            workers.append(
                (
                    try soak.spawn(
                        executable: "/bin/bash", [script, "\(index)", "\(seconds)", folder.path],
                        stdoutPath: out), out
                ))
        }
        // Meanwhile the TUI signs in again and again (a re-login of the same account keeps its key).
        let end = Date().addingTimeInterval(TimeInterval(seconds))
        var tuiSignIns = 0
        while Date() < end {
            try pane.press("n", until: "Sign in with")
            try pane.press("g", until: "Stored as session", timeout: 30)
            tuiSignIns += 1
            try pane.press("Enter", until: "authdeck · Sessions")
        }
        var confirmed: Set<String> = ["refresh-0", "refresh-1"]
        var uncertain: Set<String> = []
        for (process, out) in workers {
            #expect(process.wait(timeout: 120).timedOut == false)
            let lines = String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self)
            for line in lines.split(separator: "\n") {
                let parts = line.split(separator: " ").map(String.init)
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "ADD": confirmed.insert(parts[1])
                case "DEL":
                    confirmed.remove(parts[1])
                    uncertain.insert(parts[1])
                default: uncertain.insert(parts[1])
                }
            }
        }
        try pane.quit()

        #expect(tuiSignIns > 0)
        #expect(sqlite3("PRAGMA integrity_check;") == "ok\n")
        let present = Set(keys())
        let missing = confirmed.subtracting(present).subtracting(uncertain)
        #expect(missing.isEmpty, "committed sessions missing: \(missing.sorted().prefix(20))")
        #expect(confirmed.count > 20, "the writers did too little to test anything: \(confirmed.count)")
        #expect(present.contains { $0.hasPrefix("google-ada") })
        // No refresh token was ever sent after it was rotated: the sandbox revokes the whole grant on reuse, so the
        // sessions would no longer refresh, and the readers would have said so.
        let readerErrors = (3...4).map { index in
            String(
                decoding: FileManager.default.contents(atPath: folder.path + "/reader-err-\(index)") ?? Data(),
                as: UTF8.self)
        }.joined()
        #expect(
            !readerErrors.contains("already used") && !readerErrors.contains("revoked"), "\(readerErrors.prefix(600))")
        let writerErrors = (0...2).map { index in
            String(
                decoding: FileManager.default.contents(atPath: folder.path + "/err-\(index)") ?? Data(), as: UTF8.self)
        }.joined()
        #expect(!writerErrors.contains("damaged") && !readerErrors.contains("damaged"), "\(writerErrors.prefix(600))")
        for index in 0..<2 {
            let refreshed = soak.run(["refresh", "refresh-\(index)"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
        }
    }
}
