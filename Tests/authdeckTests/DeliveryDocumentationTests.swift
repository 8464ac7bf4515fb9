import Foundation
import Testing

/// The man page and the three completions name every option of token, exec, env, git-credential, agent and stamp,
/// as each command's own --help lists them.
@Suite struct DeliveryDocumentationTests {
    static let commands = ["token", "exec", "env", "git-credential", "agent", "stamp"]
    static let global: Set = ["session", "config", "unlock-for", "keyring-timeout", "quiet", "help"]

    @Test(arguments: commands)
    func everyOptionIsDocumented(_ command: String) throws {
        let help = CLIRunner(home: "/nonexistent").run([command, "--help"]).stdout
        let options = help.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("--"), let word = trimmed.split(separator: " ").first else { return nil }
            return String(word.dropFirst(2))
        }.filter { !Self.global.contains($0) }
        #expect(!options.isEmpty)
        let root = CLIRunner.repositoryRoot + "/Resources/"
        let man = try String(contentsOfFile: root + "authdeck.1", encoding: .utf8)
        let bash = try String(contentsOfFile: root + "completions/authdeck.bash", encoding: .utf8)
        let zsh = try String(contentsOfFile: root + "completions/_authdeck", encoding: .utf8)
        let fish = try String(contentsOfFile: root + "completions/authdeck.fish", encoding: .utf8)
        let manSection =
            man.components(separatedBy: ".TP\n").first {
                $0.hasPrefix(".BR \(command.replacingOccurrences(of: "-", with: "\\-")) ")
            } ?? ""
        #expect(!manSection.isEmpty, "the man page has no entry for \(command)")
        for option in options {
            #expect(
                manSection.contains("\\-\\-" + option.replacingOccurrences(of: "-", with: "\\-")),
                "man: \(command) --\(option)")
            #expect(bash.contains("--\(option)"), "bash: \(command) --\(option)")
            #expect(zsh.contains("'--\(option)"), "zsh: \(command) --\(option)")
            #expect(fish.contains("-l \(option)"), "fish: \(command) --\(option)")
        }
    }
}
