import Foundation
import Testing

/// `authdeck trace show FILE` on a real terminal (tmux): the file opens in the Trace screen's look, a step expands
/// with Enter, and q gives the terminal back.
@Suite(.enabled(if: TmuxPane.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true",
                "tmux is not installed"))
struct TraceShowTmuxTests {
    let folder = TemporaryFolder()

    /// A trace as a customer would send it, written by hand: a code refused at the token endpoint.
    static let trace = [
        #"{"at":"2026-12-01T10:00:00.000Z","details":{"from":"idle","to":"awaitingCallback(waiting)"},"elapsedMs":3,"kind":"transition","summary":"idle → awaitingCallback(waiting)"}"#,
        #"{"at":"2026-12-01T10:00:00.010Z","details":{"url":"https://accounts.google.com/o/oauth2/v2/auth"},"elapsedMs":10,"kind":"authorize","summary":"authorize at https://accounts.google.com/o/oauth2/v2/auth"}"#,
        #"{"at":"2026-12-01T10:00:04.000Z","details":{"accepted":true,"source":"loopback"},"elapsedMs":4000,"kind":"receiver","summary":"loopback: accepted"}"#,
        #"{"at":"2026-12-01T10:00:04.001Z","details":{"method":"POST","url":"https://oauth2.googleapis.com/token"},"elapsedMs":4001,"kind":"request","summary":"POST https://oauth2.googleapis.com/token"}"#,
        #"{"at":"2026-12-01T10:00:04.090Z","details":{"body":{"error":"invalid_grant","error_description":"Bad Request"},"status":400,"url":"https://oauth2.googleapis.com/token"},"elapsedMs":4090,"kind":"response","summary":"400 from https://oauth2.googleapis.com/token in 89 ms"}"#,
        #"{"at":"2026-12-01T10:00:04.091Z","details":{"error":"Authentication failed: invalid_grant: Bad Request."},"elapsedMs":4091,"kind":"result","summary":"Authentication failed: invalid_grant: Bad Request."}"#,
        #"{"at":"2026-12-01T10:00:04.092Z","details":{"code":4},"elapsedMs":4092,"kind":"exit","summary":"exit code 4"}"#,
    ].joined(separator: "\n") + "\n"

    @Test func theFileOpensReadOnlyAndAStepExpands() throws {
        let path = folder.write("customer.jsonl", Self.trace)
        let environment = CLIRunner(home: folder.path + "/home").environment
        let pane = try TmuxPane(command: [CLIRunner.binary, "trace", "show", path], environment: environment,
                                folder: folder.path)
        defer { pane.close() }
        try pane.waitFor("read-only")
        let first = pane.capture()
        #expect(first.contains("ended: Authentication failed: invalid_grant: Bad Request. (exit 4)"))
        #expect(first.contains("400 from https://oauth2.googleapis.com/token"))
        #expect(!first.contains("\"error_description\""))
        for _ in 0..<4 { pane.send("Down") }
        pane.send("Enter")
        try pane.waitFor("\"error_description\" : \"Bad Request\"")
        #expect(pane.capture().contains("step 5/7"))
        pane.send("q")
        try pane.waitForExit()
        // Read-only: the file is as it was.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.trace)
    }
}
