import AuthClient
import AuthCore
import Foundation
import Testing

/// A given browser command (`login --browser`, config.json's `browser`): split into words as dash splits them (the
/// shell is the counterpart, run here on the same line), `{url}` and `{profile}` filled in words and never through
/// a shell, and each session key naming a folder of its own.
@Suite struct BrowserCommandTests {
    /// The words dash makes of `line` (`printf '%s\n' LINE`), for lines without expansions or newlines.
    static func dashWords(_ line: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/dash")
        process.arguments = ["-c", "printf '%s\\n' " + line]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast().map(String.init)
    }

    @Test(arguments: [
        #"chromium --user-data-dir={profile} {url}"#,
        #"a 'b c'  "d \"e\" \$f \\ \x" g\ h 'it'\''s' """#,
        #"firefox -P 'work profile' --new-window"#,
        #"x"y"'z' "" ''"#,
    ])
    func splitsAsDashDoes(line: String) throws {
        #expect(ShellWord.split(line) == (try Self.dashWords(line)))
    }

    @Test func unterminatedQuotesAreRefused() throws {
        #expect(ShellWord.split("chromium 'unclosed") == nil)
        #expect(ShellWord.split(#"chromium "unclosed"#) == nil)
        #expect(ShellWord.split(#"chromium trailing\"#) == nil)
        #expect(throws: SignInError.self) {
            try BrowserLauncher(command: "chromium 'x", profile: nil, environment: [:])
        }
        // `{profile}` without a session key has no folder to name.
        #expect(throws: SignInError.self) {
            try BrowserLauncher(command: "chromium --user-data-dir={profile}", profile: nil, environment: [:])
        }
    }

    @Test func eachKeyIsAFolderOfItsOwn() {
        let data = URL(fileURLWithPath: "/data")
        #expect(
            BrowserLauncher.profileFolder(dataFolder: data, sessionKey: "work-1") == "/data/browser-profiles/work-1")
        #expect(
            BrowserLauncher.profileFolder(dataFolder: data, sessionKey: "../x") == "/data/browser-profiles/%2E.%2Fx")
        #expect(
            BrowserLauncher.profileFolder(dataFolder: data, sessionKey: "a b/é")
                == "/data/browser-profiles/a%20b%2F%C3%A9")
    }

    /// The URL reaches the program as one word where `{url}` stands, however it reads to a shell.
    @Test func theURLIsOneWordAndNoShellRuns() throws {
        let fake = try BrowserURLTests.FakeBrowser()
        let url = "https://id.example/authorize?x=$(touch%20" + fake.folder + "/ran)&y=`id`;z"
        let launcher = try BrowserLauncher(
            command: "'\(fake.folder)/browser' {url} --new-window", profile: nil, environment: [:])
        try launcher.open(url)
        #expect(fake.opened(waitingFor: 1) == [url])
        #expect(!FileManager.default.fileExists(atPath: fake.folder + "/ran"))
    }
}
