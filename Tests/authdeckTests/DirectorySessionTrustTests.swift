import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `.authdeck-session` another user could have planted never picks the session (the class of
/// git's CVE-2022-24765), and the search stops at `$HOME`.
@Suite struct DirectorySessionTrustTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        runner = CLIRunner.passphraseStore(in: folder, passphrase: "trust passphrase", runtime: false)
        let lines = ["mine", "planted"].map { key in
            #"{"key":"\#(key)","backend":"direct","provider":"google","subject":"s-\#(key)","#
                + #""issuer":"https://accounts.google.com","accessToken":"token-of-\#(key)","#
                + #""expiresAt":"2099-01-01T00:00:00Z"}"#
        }
        _ = runner.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        _ = runner.run(["use", "mine"])
    }

    func run(in directory: String, _ arguments: String, home: String? = nil) -> CLIRunner.Result {
        runner.run(
            executable: "/bin/bash", ["-c", "cd '\(directory)' && \"$AUTHDECK_BIN\" \(arguments)"],
            environment: ["HOME": home ?? "/nonexistent-home"])
    }

    func plant(_ key: String, in directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/.authdeck-session"
        _ = FileManager.default.createFile(atPath: path, contents: Data((key + "\n").utf8))
        return path
    }

    @Test func aFileOwnedByAnotherUserIsIgnoredWithAWarning() throws {
        guard try OtherUser.available() else { return }
        let shared = folder.path + "/shared"
        let planted = try plant("planted", in: shared)
        OtherUser.own(planted)
        let work = shared + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        for command in ["token", "status"] {
            let result = run(in: work, command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("ignoring \(planted)"), "\(command): \(result.stderr)")
            #expect(!result.stdout.contains("planted"), "\(command) used the planted session: \(result.stdout)")
        }
        #expect(run(in: work, "token").stdout == "token-of-mine\n")
    }

    @Test func aFileInAFolderOthersCanWriteIsIgnored() throws {
        let open = folder.path + "/open"
        let planted = try plant("planted", in: open)
        try #require(chmod(open, 0o777) == 0)
        let result = run(in: open, "token")
        #expect(result.stdout == "token-of-mine\n")
        #expect(result.stderr.contains("ignoring \(planted)"), "stderr: \(result.stderr)")
        // Once, whichever of the two binaries answers.
        for command in ["token", "status", "list", "list --json"] {
            let warnings = run(in: open, command).stderr.components(separatedBy: "ignoring \(planted)").count - 1
            #expect(warnings == 1, "\(command) warned \(warnings) times")
        }
        // use --here refuses to write where the file would not be trusted.
        let here = run(in: open, "use --here mine")
        #expect(here.status != 0)
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "planted\n")
        // Back to a folder only its owner writes: the same file counts again.
        try #require(chmod(open, 0o755) == 0)
        #expect(run(in: open, "token").stdout == "token-of-planted\n")
    }

    @Test func aFileWritableByOthersIsIgnored() throws {
        let project = folder.path + "/project"
        let planted = try plant("planted", in: project)
        try #require(chmod(planted, 0o666) == 0)
        let result = run(in: project, "token")
        #expect(result.stdout == "token-of-mine\n")
        #expect(result.stderr.contains("ignoring \(planted)"))
    }

    @Test func theSearchStopsAtHome() throws {
        _ = try plant("planted", in: folder.path + "/above")
        let home = folder.path + "/above/user"
        let work = home + "/work"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        #expect(run(in: work, "token", home: home).stdout == "token-of-mine\n")
        // Outside $HOME the search still goes up.
        #expect(run(in: work, "token", home: folder.path + "/elsewhere").stdout == "token-of-planted\n")
    }
}
