import Foundation
import Testing

/// `authdeck list` and `status` as the real binary prints them: wide (CJK) keys keep the columns aligned as a
/// terminal shows them, an expired session shows how long ago it expired (signed, as the TUI's EXPIRES column),
/// the session a folder's `.authdeck-session` chose is marked `@`, and `status` says what chose the session.
@Suite struct ListChoiceTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    var home: String { folder.path + "/home" }

    init() {
        runner = CLIRunner.passphraseStore(in: folder, passphrase: "list passphrase", runtime: false)
        let lines = [
            ("plain", "2099-01-01T00:00:00Z"), ("東京-仕事", "2099-01-01T00:00:00Z"), ("old", "2001-01-01T00:00:00Z"),
        ]
        .map { key, expires in
            #"{"key":"\#(key)","backend":"direct","provider":"google","subject":"s-\#(key)","#
                + #""issuer":"https://accounts.google.com","accessToken":"token-of-\#(key)","#
                + #""expiresAt":"\#(expires)"}"#
        }
        _ = runner.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        _ = runner.run(["use", "plain"])
    }

    /// Terminal columns as Unicode's East Asian Width gives them for the text used here: CJK Unified Ideographs
    /// (U+4E00–U+9FFF) are Wide, two columns; ASCII is one.
    static func columns(_ text: Substring) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ((0x4E00...0x9FFF).contains($1.value) ? 2 : 1) }
    }

    func run(in directory: String, _ arguments: String, environment: [String: String?] = [:]) -> CLIRunner.Result {
        runner.run(
            executable: "/bin/bash", ["-c", "cd '\(directory)' && \"$AUTHDECK_BIN\" \(arguments)"],
            environment: environment)
    }

    @Test func wideKeysKeepTheColumnsAligned() throws {
        let result = runner.run(["list"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 4, "\(result.stdout)")
        // The BACKEND column starts at the same terminal column on every line.
        let starts = lines.enumerated().map { index, line -> Int in
            let range = line.range(of: index == 0 ? "BACKEND" : "direct")
            return range.map { Self.columns(line[..<$0.lowerBound]) } ?? -1
        }
        #expect(Set(starts).count == 1, "columns differ: \(starts)\n\(result.stdout)")
    }

    @Test func anExpiredSessionShowsHowLongAgoSigned() throws {
        let result = runner.run(["list"])
        let row = try #require(result.stdout.split(separator: "\n").first { $0.contains(" old ") })
        let days = Int(Date().timeIntervalSince(ISO8601DateFormatter().date(from: "2001-01-01T00:00:00Z")!) / 86_400)
        #expect(row.contains(" -\(days)d "), "\(row)")
        #expect(!row.hasSuffix("expired"), "\(row)")
        let status = runner.run(["status", "old"])
        #expect(status.stdout.contains("(expired \(days)d"), "\(status.stdout)")
    }

    @Test func theFolderChoiceIsMarkedAndStatusSaysWhoChose() throws {
        let project = home + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let file = project + "/.authdeck-session"
        _ = FileManager.default.createFile(atPath: file, contents: Data("東京-仕事\n".utf8))

        let list = run(in: project, "list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("@ 東京-仕事 "), "\(list.stdout)")
        #expect(list.stdout.contains("* plain "), "the selected session keeps its own mark: \(list.stdout)")
        #expect(list.stderr.contains(file), "\(list.stderr)")

        #expect(run(in: project, "status").stdout.contains("chosen by:      \(file)\n"))
        let variable = run(in: project, "status", environment: ["AUTHDECK_SESSION": "old"])
        #expect(
            variable.stdout.contains("session:        old\nchosen by:      $AUTHDECK_SESSION\n"), "\(variable.stdout)")
        let option = run(in: project, "status --session plain")
        #expect(option.stdout.contains("chosen by:      --session\n"), "\(option.stdout)")
        let selected = run(in: home, "status")
        #expect(selected.stdout.contains("chosen by:      the store's selected session"), "\(selected.stdout)")
        let json = run(in: project, "status --json")
        #expect(json.stdout.contains(#""chosenBy":"\#(file)""#), "\(json.stdout)")
    }
}
