import Foundation
import Testing

/// The support tooling: per-directory sessions, doctor, completions and the man page, through the real binary
/// (seeding, doctor's broken-config report and the help run in this process, `CLIRunner.inProcess`).
@Suite struct SupportToolingTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        runner = CLIRunner.passphraseStore(in: folder, passphrase: "tooling passphrase", runtime: false)
    }

    func seed(_ keys: [String]) {
        let lines = keys.map { key in
            #"{"key":"\#(key)","backend":"direct","provider":"google","subject":"s-\#(key)","issuer":"https://accounts.google.com","accessToken":"token-of-\#(key)","expiresAt":"2099-01-01T00:00:00Z"}"#
        }
        let result = runner.inProcess.run(["store", "import", "-"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "import failed: \(result.stderr)")
    }

    /// Runs authdeck in `directory` through bash, so the working directory is what the test says.
    func run(in directory: String, _ arguments: String, environment: [String: String?] = [:]) -> CLIRunner.Result {
        runner.run(
            executable: "/bin/bash", ["-c", "cd '\(directory)' && \"$AUTHDECK_BIN\" \(arguments)"],
            environment: environment)
    }

    @Test func directorySessionSitsBetweenTheEnvironmentAndTheSelection() throws {
        seed(["first", "second", "third"])
        #expect(runner.run(["use", "first"]).status == 0)
        let project = folder.path + "/project"
        let deep = project + "/src/module"
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)

        #expect(run(in: project, "token").stdout == "token-of-first\n")
        let here = run(in: project, "use --here second")
        #expect(here.status == 0, "stderr: \(here.stderr)")
        #expect(FileManager.default.fileExists(atPath: project + "/.authdeck-session"))
        #expect(run(in: deep, "token").stdout == "token-of-second\n")
        #expect(run(in: deep, "token", environment: ["AUTHDECK_SESSION": "third"]).stdout == "token-of-third\n")
        #expect(run(in: deep, "token --session first").stdout == "token-of-first\n")
        #expect(run(in: folder.path, "token").stdout == "token-of-first\n")
        // A key that is not stored is refused before the file is written.
        #expect(run(in: deep, "use --here nosuch").status == 7)
        #expect(!FileManager.default.fileExists(atPath: deep + "/.authdeck-session"))
    }

    @Test func doctorReportsEachCheckAndFailsOnABrokenConfig() throws {
        let healthy = runner.run(["doctor"])
        #expect(healthy.status == 0, "stdout: \(healthy.stdout)")
        for area in ["config", "store", "browser"] { #expect(healthy.stdout.contains(area)) }
        let broken = folder.write("broken.json", "{\"backends\": 3}")
        let runner = runner.inProcess
        let result = runner.run(["doctor", "--config", broken])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL  config"))
        #expect(result.stdout.contains("fix:"))
        let json = runner.run(["doctor", "--json", "--config", broken])
        let checks = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(checks?.contains { $0["level"] as? String == "fail" && $0["area"] as? String == "config" } == true)
    }

    @Test func bashCompletionOffersCommandsOptionsAndSessionKeys() throws {
        seed(["alpha-session", "beta-session"])
        let script = CLIRunner.repositoryRoot + "/Resources/completions/authdeck.bash"
        let bin = (CLIRunner.binary as NSString).deletingLastPathComponent
        func complete(_ words: [String]) -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let result = runner.run(
                executable: "/bin/bash",
                [
                    "-c",
                    """
                    export PATH='\(bin)':"$PATH"; source '\(script)'
                    COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _authdeck; printf '%s\\n' "${COMPREPLY[@]}"
                    """,
                ])
            return result.stdout.split(separator: "\n").map(String.init)
        }
        #expect(Set(complete(["authdeck", ""])).isSuperset(of: ["login", "list", "token", "doctor", "sandbox"]))
        #expect(
            Set(complete(["authdeck", "login", ""])).isSuperset(of: [
                "google", "apple", "discord", "x", "oidc", "email", "sms",
            ]))
        #expect(complete(["authdeck", "token", "al"]) == ["alpha-session"])
        #expect(complete(["authdeck", "logout", "--re"]) == ["--revoke"])
    }

    @Test func manPageAndZshFishCompletionsNameEveryCommand() throws {
        let help = runner.inProcess.run(["--help"]).stdout
        let commands = help.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), let word = line.split(separator: " ").first else { return nil }
            return String(word)
        }
        #expect(commands.count >= 13)
        let root = CLIRunner.repositoryRoot + "/Resources/"
        let man = try String(contentsOfFile: root + "authdeck.1", encoding: .utf8)
        let zsh = try String(contentsOfFile: root + "completions/_authdeck", encoding: .utf8)
        let fish = try String(contentsOfFile: root + "completions/authdeck.fish", encoding: .utf8)
        for command in commands {
            let roff = command.replacingOccurrences(of: "-", with: "\\-")
            #expect(
                man.contains(".B \(roff)") || man.contains(".BR \(roff)") || man.contains(".BI \(roff)"),
                "the man page lacks \(command)")
            #expect(zsh.contains("'\(command):"), "zsh completion lacks \(command)")
            #expect(fish.contains(" \(command)"), "fish completion lacks \(command)")
        }
    }

    @Test func openURLWithNobodyWaitingIsAClearError() {
        let result = runner.run(
            ["open-url", "authdeck://callback?code=a&state=b"],
            environment: ["XDG_RUNTIME_DIR": folder.path + "/run"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no authdeck sign-in is waiting"))
        #expect(runner.run(["open-url", "https://example.com/?code=a"]).status == 2)
    }
}
