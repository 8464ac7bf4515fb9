import Foundation
import Testing

/// `authdeck trace show FILE` on a real terminal (tmux): the file opens in the Trace screen's look, a step expands
/// with Enter, and q gives the terminal back.
@Suite(.enabled(if: TmuxPane.isAvailable || ProcessInfo.processInfo.environment["CI"] == "true",
                "tmux is not installed"))
struct TraceShowTmuxTests {
    let folder = TemporaryFolder()

    /// A trace as a customer would send it, written by hand: a code refused at the token endpoint.
    static let trace = (try? String(contentsOfFile: CLIRunner.repositoryRoot
        + "/Tests/authdeckTests/Fixtures/customer-trace.jsonl", encoding: .utf8)) ?? ""

    @Test func theFileOpensReadOnlyAndAStepExpands() throws {
        #expect(Self.trace.split(separator: "\n").count == 7)
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
