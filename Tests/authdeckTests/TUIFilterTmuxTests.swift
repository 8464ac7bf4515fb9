import Foundation
import Testing

/// The `/` filter over a store of a few thousand sessions, as the user sees it: the first rows at once, the count
/// once typing stops (worked out off the loop's thread), and sessions another process imports while the TUI is
/// open found by the filter (the store's triggers keep its search index in step) and counted.
@Suite(.serialized, TmuxPane.required)
struct TUIFilterTmuxTests {
    let runner = CLIRunner.passphraseStore()
    var folder: TemporaryFolder { runner.folder }

    static func lines(_ prefix: String, _ range: Range<Int>, email: (Int) -> String) -> String {
        range.map { index in
            "{\"key\":\"\(prefix)-\(index)\",\"provider\":\"google\",\"subject\":\"s\(index)\","
                + "\"email\":\"\(email(index))\",\"accessToken\":\"AT-\(index)\"}\n"
        }.joined()
    }

    @Test func theCountFollowsTheFirstRowsAndAnImportElsewhereIsFound() throws {
        let seed = runner.run(
            ["store", "import", "-"], stdin: Self.lines("f", 0..<3_000) { "User\($0)@example.com" })
        #expect(seed.status == 0, "\(seed.stderr)")
        let pane = try runner.startTUI(in: folder.path)
        defer { pane.close() }
        try pane.waitFor("3000 sessions")
        // user1, user10…19, user100…199, user1000…1999: 1,111 rows, more than the first window of 128.
        pane.send("/")
        try pane.press("user1", until: "1111 of 3000 match “user1”", timeout: 10)
        #expect(!pane.capture().contains("counting"))
        // One letter in every row (example): the first rows in order, then the count.
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        try pane.press("x", until: "3000 of 3000 match “x”", timeout: 10)
        // A word in no row: nothing, and the count says so.
        pane.send("BSpace")
        try pane.press("qq", until: "0 of 3000 match “qq”", timeout: 10)
        // Another process imports 200 sessions while the filter "user1" is on: all 200 match it.
        pane.send("BSpace")
        pane.send("BSpace")
        try pane.press("user1", until: "1111 of 3000 match “user1”", timeout: 10)
        pane.send("Enter")
        let late = runner.run(
            ["store", "import", "-"], stdin: Self.lines("late", 0..<200) { "user1late\($0)@elsewhere.example" })
        #expect(late.status == 0, "\(late.stderr)")
        try pane.waitFor("1311 of 3200 match “user1”", timeout: 10)
        // Words only the new sessions hold are found through the index the import's triggers kept.
        pane.send("/")
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        pane.send("BSpace")
        try pane.press("elsewhere", until: "200 of 3200 match “elsewhere”", timeout: 10)
        pane.send("Enter")
        try pane.press("G", until: "200/200")
        #expect(pane.capture().contains("late-99"))
        try pane.quit()
    }
}
