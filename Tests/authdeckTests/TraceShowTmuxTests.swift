import Foundation
import Testing

/// A customer's trace in the TUI's own Trace screen, on a real terminal (tmux): `authdeck trace show FILE` opens the
/// TUI on it without the store or the config, and `o` on the Trace screen opens files, damaged ones told in one line.
@Suite(TmuxPane.required)
struct TraceShowTmuxTests {
    let folder = TemporaryFolder()

    /// A trace as a customer would send it, written by hand: a code refused at the token endpoint.
    static let trace =
        (try? String(
            contentsOfFile: CLIRunner.repositoryRoot
                + "/Tests/authdeckTests/Fixtures/customer-trace.jsonl", encoding: .utf8)) ?? ""

    /// A good run to open beside it, by hand too.
    static let goodRun = """
        {"at":"2026-12-01T11:00:00.000Z","details":{},"elapsedMs":2,"kind":"transition","summary":"idle → awaitingCallback(waiting)"}
        {"at":"2026-12-01T11:00:03.000Z","details":{},"elapsedMs":3100,"kind":"result","summary":"stored session google-ada"}
        {"at":"2026-12-01T11:00:03.001Z","details":{"code":0},"elapsedMs":3101,"kind":"exit","summary":"exit code 0"}

        """

    /// Line 2 is cut short, as a truncated download would leave it.
    static let broken = """
        {"at":"2026-12-01T11:00:00.000Z","details":{},"elapsedMs":2,"kind":"transition","summary":"a"}
        {"at":"2026-12-01T11:00:03.000Z","details":{},"elapsedMs":31

        """

    @Test func traceShowOpensTheTraceScreenWithoutTheStore() throws {
        #expect(Self.trace.split(separator: "\n").count == 7)
        let path = folder.write("customer.jsonl", Self.trace)
        _ = folder.write("good-run.jsonl", Self.goodRun)
        _ = folder.write("broken.jsonl", Self.broken)
        // A config that cannot be read: showing a file needs none, nor a store.
        let unreadable = CLIRunner(
            home: folder.path + "/home", extra: ["AUTHDECK_CONFIG": folder.write("config.json", "{not json")])
        let pane = try unreadable.startTUI(in: folder.path, arguments: ["trace", "show", path])
        defer { pane.close() }
        try pane.waitFor("ended: Authentication failed: invalid_grant: Bad Request. (exit 4)")
        let first = pane.capture()
        #expect(first.contains("authdeck · Trace"))
        #expect(first.contains("File " + path))
        #expect(first.contains("400 from https://oauth2.googleapis.com/token"))
        #expect(first.contains("store not opened"))
        #expect(!first.contains("\"error_description\""))
        // j/k and the arrows move the bar; Enter expands the response to its redacted body.
        pane.send("j")
        pane.send("j")
        pane.send("Down")
        pane.send("k")
        pane.send("Down")
        pane.send("Down")
        try pane.press("Enter", until: "\"error_description\" : \"Bad Request\"")
        #expect(pane.capture().contains("\"status\" : 400"))
        pane.send("End")
        pane.send("Home")
        pane.send("PageDown")
        // o asks for a path, starting in the file's folder; a damaged file is one line naming the line.
        try pane.press("o", until: "Trace file (Tab completes")
        #expect(pane.capture().contains("Esc cancels): " + folder.path + "/"))
        // Tab completes the name as far as the folder's names agree (only broken.jsonl starts so).
        pane.send("bro")
        pane.send("Tab")
        try pane.press("Enter", until: "broken.jsonl line 2 is not a trace step")
        #expect(pane.capture().contains("ended: Authentication failed: invalid_grant"))
        // Ctrl-U clears the field: what was typed before it is not part of the path read.
        pane.send("o")
        pane.send("junk")
        pane.send("C-u")
        try pane.submit(
            folder.path + "/missing.jsonl", until: "cannot read the trace " + folder.path + "/missing.jsonl")
        pane.send("o")
        try pane.submit("good-run.jsonl", until: "ended: signed in (exit 0)")
        #expect(pane.capture().contains("stored session google-ada"))
        // a expands every step: the exit step's code is there without moving to it.
        try pane.press("a", until: "\"code\" : 0")
        try pane.quit()
        // Read-only, and nothing else was touched: the file is as it was and no store was made.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.trace)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/home/sessions.db"))
    }

    @Test func theTUIsTraceScreenOpensAFileAndEscGoesBack() throws {
        let path = folder.write("customer.jsonl", Self.trace)
        let pane = try CLIRunner.passphraseStore(in: folder).startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("No sessions yet")
        // No sandbox in this config: S says so in one line.
        try pane.press("S", until: "No sandbox is configured")
        try pane.press("t", until: "o opens a trace file")
        try pane.press("o", until: "Trace file (Tab completes")
        try pane.submit(path, until: "ended: Authentication failed: invalid_grant: Bad Request. (exit 4)")
        pane.send("Down")
        pane.send("Down")
        pane.send("Down")
        pane.send("Down")
        try pane.press("Enter", until: "\"error_description\" : \"Bad Request\"")
        try pane.press("Escape", until: "No sessions yet")
        #expect(!pane.capture().contains("invalid_grant"))
        try pane.quit()
    }
}
