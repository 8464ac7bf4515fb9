import Foundation
import Testing

/// The command table: subcommands refuse options they do not take, every command and subcommand has a
/// --help listing its options, the committed completions and man page are exactly what the table generates, and
/// bash, zsh and fish (real shells) complete a subcommand's own options and not another's.
@Suite struct CommandSurfaceTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        // In this process: the table, the parser and help are the point, not the binary (one test runs it).
        runner = CLIRunner.passphraseStore(in: folder, passphrase: "surface passphrase", runtime: false).inProcess
    }

    /// Hand-written: every command and subcommand with options it must list (besides the global ones).
    static let expectedOptions: [String: Set<String>] = [
        "tui": [], "list": ["json"], "use": ["here"], "open-url": [], "doctor": ["json"],
        "login": [
            "backend", "session-key", "replace", "issuer", "client-id", "client-secret-file", "scope", "dpop",
            "contact", "no-browser", "device", "listen", "timeout", "trace", "json",
        ],
        "token": ["id-token", "json", "min-valid", "format"], "exec": ["env", "env-file", "mask", "min-valid"],
        "env": ["shell", "env", "min-valid"], "git-credential": ["host", "username", "min-valid"],
        "aws-credentials": ["role-arn", "duration", "role-session-name"],
        "agent": ["allow", "socket", "confirm", "log"], "stamp": ["body", "header"], "refresh": ["all"],
        "dpop-proof": ["method", "url", "nonce"],
        "docker-credential": ["min-valid"],
        "logout": ["all", "expired", "revoke", "yes"], "status": ["json"],
        "inspect": ["json"], "introspect": ["json"],
        "totp": [], "totp add": ["secret", "uri", "replace"], "totp list": ["json"], "totp rm": [], "totp code": [],
        "sandbox": ["port", "users", "outbox", "config-out", "token-lifetime", "device-interval", "fault", "delay-ms"],
        "sandbox faults": ["delay-ms", "url", "json"], "sandbox panel": ["url"], "sandbox approve": ["user", "deny"],
        "store": [], "store lock": [], "store migrate": ["to", "pass-entry"],
        "store import": ["replace", "skip-existing"],
        "store export": [],
        "trace": [], "trace show": ["expand", "all", "plain", "json"], "trace diff": ["json"],
        "trace replay": ["timeout", "trace-out", "json"],
    ]
    static let global: Set = ["session", "config", "unlock-for", "keyring-timeout", "quiet", "help"]

    /// The `--name` words of a help text's option lines.
    static func options(inHelp help: String) -> Set<String> {
        Set(
            help.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " }
                guard line.hasPrefix("  "), trimmed.hasPrefix("--"), let word = trimmed.split(separator: " ").first
                else {
                    return nil
                }
                return String(word.dropFirst(2))
            })
    }

    // MARK: - Refusals and help

    @Test func aSubcommandRefusesAnotherSubcommandsOption() {
        let result = runner.run(["totp", "list", "--secret", "JBSWY3DPEHPK3PXP"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.first == "authdeck totp list: unknown option --secret", "stderr: \(result.stderr)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("usage: authdeck totp list") })
        #expect(result.stdout.isEmpty)
        // Nothing was created by the refused command.
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/home/sessions.db"))
        for (words, option, path) in [
            (["store", "lock", "--to", "passphrase"], "to", "store lock"),
            (["trace", "diff", "--expand", "1", "a", "b"], "expand", "trace diff"),
            (["sandbox", "panel", "--port", "8080"], "port", "sandbox panel"),
            (["sandbox", "--url", "http://127.0.0.1:1"], "url", "sandbox"),
            (["totp", "code", "--json", "ada"], "json", "totp code"),
            (["store", "--replace", "export", "-"], "replace", "store export"),
        ] {
            let refused = runner.run(words)
            #expect(refused.status == 2, "\(words): \(refused.stderr)")
            #expect(
                refused.stderr.hasPrefix("authdeck \(path): unknown option --\(option)\n"),
                "\(words): \(refused.stderr)")
        }
    }

    @Test func aParentWithoutItsSubcommandIsAUsageError() {
        let runner = runner.realBinary
        let missing = runner.run(["totp"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("authdeck totp: totp needs a command: add, list, rm, code\n"))
        let unknown = runner.run(["store", "unlock"])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.hasPrefix(
                "authdeck store: unknown store command 'unlock' (lock, migrate, import, "
                    + "export)\n"))
    }

    @Test func everyCommandAndSubcommandHasAHelpListingItsOptions() {
        let overview = runner.run(["--help"]).stdout
        let listed = Set(
            overview.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), let word = line.split(separator: " ").first else { return nil }
                return String(word)
            })
        let commands = Set(Self.expectedOptions.keys.filter { !$0.contains(" ") })
        #expect(listed == commands, "the overview lists \(listed.sorted())")
        for (path, expected) in Self.expectedOptions {
            let help = runner.run(path.split(separator: " ").map(String.init) + ["--help"])
            #expect(help.status == 0, "\(path) --help: \(help.stderr)")
            #expect(help.stdout.hasPrefix("usage: authdeck \(path)"), "\(path) --help: \(help.stdout)")
            let options = Self.options(inHelp: help.stdout)
            // `login` names its new session with --session-key and refuses --session: its help leaves it out.
            let global = path == "login" ? Self.global.subtracting(["session"]) : Self.global
            #expect(
                options.isSuperset(of: expected.union(global)),
                "\(path) --help lacks \(expected.union(global).subtracting(options).sorted())")
            // `help totp list` is the same text.
            #expect(runner.run(["help"] + path.split(separator: " ").map(String.init)).stdout == help.stdout)
        }
        // A parent's help names its subcommands.
        let totp = runner.run(["totp", "--help"]).stdout
        for name in ["add", "list", "rm", "code"] { #expect(totp.contains("\n  \(name) ")) }
        // An option a subcommand does not take is not in its help.
        #expect(!Self.options(inHelp: runner.run(["totp", "list", "--help"]).stdout).contains("secret"))
        // Nor a global option it refuses: the real binary's `login --help` against what `login --session` does.
        let login = runner.realBinary
        #expect(!Self.options(inHelp: login.run(["login", "--help"]).stdout).contains("session"))
        #expect(Self.options(inHelp: login.run(["login", "--help"]).stdout).contains("session-key"))
        #expect(login.run(["login", "google", "--session", "k"]).status == 2)
    }

    // MARK: - Generated files

    @Test(arguments: [
        ("bash", "completions/authdeck.bash"), ("zsh", "completions/_authdeck"),
        ("fish", "completions/authdeck.fish"),
    ])
    func theCommittedCompletionIsWhatTheTableGenerates(_ shell: String, _ file: String) throws {
        let committed = try String(contentsOfFile: CLIRunner.repositoryRoot + "/Resources/" + file, encoding: .utf8)
        let generated = runner.run(["--generate", "completions", shell])
        #expect(generated.status == 0, "stderr: \(generated.stderr)")
        #expect(
            generated.stdout == committed,
            "Resources/\(file) is not what the table generates: run make completions")
    }

    @Test func theCommittedManPageIsWhatTheTableGenerates() throws {
        let committed = try String(contentsOfFile: CLIRunner.repositoryRoot + "/Resources/authdeck.1", encoding: .utf8)
        let generated = runner.run(["--generate", "man"], stdin: committed)
        #expect(generated.status == 0, "stderr: \(generated.stderr)")
        #expect(
            generated.stdout == committed,
            "Resources/authdeck.1 is not what the table generates: run make completions")
        // The check can fail: an option list that lost a row is put back.
        let edited = committed.replacingOccurrences(of: ".IP \"\\fB\\-\\-skip\\-existing\\fR\"\n", with: "")
        #expect(edited != committed)
        #expect(runner.run(["--generate", "man"], stdin: edited).stdout == committed)
        // Every subcommand has its own entry, with its options and not another's.
        let entries = committed.components(separatedBy: ".TP\n")
        let list = entries.first { $0.hasPrefix(".BR \"totp list\" ") } ?? ""
        #expect(list.contains("\\-\\-json") && !list.contains("\\-\\-secret"), "man: \(list)")
        let add = entries.first { $0.hasPrefix(".BR \"totp add\" ") } ?? ""
        #expect(add.contains(".IP \"\\fB\\-\\-secret\\fR") && !add.contains(".IP \"\\fB\\-\\-json"), "man: \(add)")
    }

    // MARK: - Real shells

    func seed(_ keys: [String]) {
        let lines = keys.map { TokenDeliveryTests.line($0, token: "token-of-" + $0) }
        let result = runner.run(["store", "import", "-"], stdin: lines.joined())
        #expect(result.status == 0, "import failed: \(result.stderr)")
    }

    var binFolder: String { (CLIRunner.binary as NSString).deletingLastPathComponent }

    /// What bash's completion function puts in COMPREPLY for `words`, one line each; with `evaluated`, what each
    /// candidate is once bash reads it as a word of a command line (as after Tab and Enter).
    func bash(_ words: [String], evaluated: Bool = false) -> [String] {
        let script = CLIRunner.repositoryRoot + "/Resources/completions/authdeck.bash"
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let show =
            evaluated
            ? #"for c in "${COMPREPLY[@]}"; do eval "set -- $c"; printf '%s\n' "$1"; done"#
            : #"printf '%s\n' "${COMPREPLY[@]}""#
        return runner.run(
            executable: "/bin/bash",
            [
                "-c",
                """
                export PATH='\(binFolder)':"$PATH"; cd '\(folder.path)'; source '\(script)'
                COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _authdeck; \(show)
                """,
            ]
        ).stdout.split(separator: "\n").map(String.init)
    }

    /// What fish offers for `line` (the words, without descriptions).
    func fish(_ line: String) -> [String] {
        let script = CLIRunner.repositoryRoot + "/Resources/completions/authdeck.fish"
        let result = runner.run(
            executable: "/usr/bin/fish",
            [
                "--no-config", "-c",
                """
                set -gx PATH '\(binFolder)' $PATH; cd '\(folder.path)'; source '\(script)'; complete -C '\(line)'
                """,
            ])
        #expect(result.status == 0, "fish: \(result.stderr)")
        return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    /// What zsh's completion system adds for `line` followed by Tab, in an interactive zsh on a pseudo-terminal
    /// (zsh/zpty): every word `compadd` is given is appended to a file, and a widget marks when Tab is done.
    func zsh(_ line: String) -> [String] {
        let out = folder.path + "/zsh-\(UUID().uuidString)"
        let dir = CLIRunner.repositoryRoot + "/Resources/completions"
        let driver = folder.write(
            "zsh-driver-\(UUID().uuidString)",
            #"""
            zmodload zsh/zpty
            local out=$1 dir=$2 line=$3 bin=$4 i x
            zpty comp zsh -f -i
            zpty -w comp "PROMPT='> '; path=('$bin' \$path); fpath=('$dir' \$fpath); autoload -Uz compinit; compinit -u -d '$out.dump'"
            zpty -w comp "compadd() { local -a hits; builtin compadd -A hits \"\$@\"; print -rl -- \$hits >> '$out'; builtin compadd \"\$@\" }"
            zpty -w comp "capture() { zle complete-word; print -r -- done > '$out.end' }; zle -N capture; bindkey '^I' capture"
            zpty -w -n comp "$line"$'\t'
            for i in {1..400}; do [[ -e $out.end ]] && break; zpty -r -t comp x; sleep 0.05; done
            zpty -d comp
            [[ -e $out.end ]]
            """#)
        let result = runner.run(
            executable: "/usr/bin/zsh", ["-f", driver, out, dir, line, binFolder],
            environment: ["HOME": folder.path])
        #expect(result.status == 0, "zsh did not finish completing '\(line)': \(result.stderr)")
        let words = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return words.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesASubcommandsOwnOptionsOnly() {
        let list = bash(["authdeck", "totp", "list", "--"])
        #expect(list.contains("--json") && !list.contains("--secret"), "\(list)")
        let add = bash(["authdeck", "totp", "add", "--"])
        #expect(add.contains("--secret") && !add.contains("--json"), "\(add)")
        #expect(Set(bash(["authdeck", "store", ""])) == ["lock", "migrate", "import", "export"])
        #expect(Set(bash(["authdeck", "store", "migrate", "--to", ""])) == ["secret-service", "passphrase", "pass"])
        #expect(bash(["authdeck", "store", "lock", "--"]).allSatisfy { Self.global.contains(String($0.dropFirst(2))) })
        #expect(bash(["authdeck", "sandbox", "panel", "--p"]) == [])
        #expect(bash(["authdeck", "sandbox", "--p"]) == ["--port", "--post-logout-redirect-uri"])
    }

    /// `login` names the providers SPEC section 5 lists, written out here, in the same order wherever it names
    /// them: its help, its two usage errors and bash's completion of its operand (the New sign-in buttons and
    /// letters come from the same table: ProviderRowTests).
    @Test func loginNamesTheSameProvidersInItsHelpErrorsAndCompletion() {
        let providers = ["google", "apple", "discord", "x", "oidc", "email", "sms", "email-link"]
        let sentence = providers.dropLast().joined(separator: ", ") + " or " + providers.last!
        // `login` runs only as its own process.
        let runner = runner.realBinary
        let help = runner.run(["login", "--help"])
        #expect(help.status == 0 && help.stdout.contains("\nSign in with \(sentence), and store the session.\n"))
        let unnamed = runner.run(["login"])
        #expect(unnamed.status == 2 && unnamed.stderr.contains("name a provider: \(sentence)\n"), "\(unnamed.stderr)")
        let unknown = runner.run(["login", "github"])
        let list = providers.joined(separator: ", ")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown provider 'github' (\(list))\n"))
        #expect(bash(["authdeck", "login", ""]) == providers)
        #expect(bash(["authdeck", "login", "d"]) == ["discord"])
    }

    /// A shell's completion (`complete`) offers `totp list` and `totp add` their own options, not each other's.
    func expectOwnOptions(_ complete: (String) -> [String]) {
        let list = complete("authdeck totp list --")
        #expect(list.contains("--json") && !list.contains("--secret"), "\(list)")
        let add = complete("authdeck totp add --")
        #expect(add.contains("--secret") && !add.contains("--json"), "\(add)")
    }

    @Test func fishCompletesASubcommandsOwnOptionsAndSessionKeys() throws {
        guard Installed.has("/usr/bin/fish") else { return Installed.skip("fish") }
        expectOwnOptions(fish)
        #expect(Set(fish("authdeck trace ")) == ["show", "diff", "replay"])
        #expect(Set(fish("authdeck sandbox approve --user ")) == ["ada", "bob", "cleo", "dora"])
        #expect(fish("authdeck sandbox panel --p").isEmpty)
        seed(["alpha-session", "beta-session"])
        #expect(fish("authdeck token al") == ["alpha-session"])
        #expect(fish("authdeck env --session be") == ["beta-session"])
    }

    @Test func zshCompletesASubcommandsOwnOptionsAndSessionKeys() throws {
        guard Installed.has("/usr/bin/zsh") else { return Installed.skip("zsh") }
        expectOwnOptions(zsh)
        #expect(Set(zsh("authdeck trace ")).isSuperset(of: ["show", "diff", "replay"]))
        #expect(!zsh("authdeck sandbox panel --").contains("--port"))
        seed(["alpha-session", "beta-session"])
        #expect(zsh("authdeck token al").contains("alpha-session"))
        #expect(!zsh("authdeck token al").contains("beta-session"))
    }

    // MARK: - Hostile keys

    /// Session keys that are shell code, each allowed by SessionKeyRule; `CANARY` is a file that must never appear.
    func hostileKeys(_ canary: String) -> [String] {
        [
            "c$(touch${IFS}\(canary))", "c`touch${IFS}\(canary)`", "c'\u{301};touch${IFS}\(canary);'",
            "c\"$(touch${IFS}\(canary))\"", "c:x\\y", "c*", "c;touch${IFS}\(canary)", "c(touch${IFS}\(canary))",
        ]
    }

    @Test func bashOffersHostileKeysAsWordsThatReadBackAsTheKeyAndRunsNone() {
        let canary = folder.path + "/canary"
        let keys = hostileKeys(canary)
        #expect(bash(["authdeck", "use", ""]).isEmpty, "an empty store offers no key")
        seed(keys + ["other"])
        for words in [["authdeck", "use", "c"], ["authdeck", "token", "--session", "c"], ["authdeck", "env", ""]] {
            let offered = bash(words, evaluated: true)
            #expect(!FileManager.default.fileExists(atPath: canary), "bash ran a key completing \(words)")
            #expect(Set(offered) == Set(keys + (words.last == "" ? ["other"] : [])), "\(words): \(offered)")
        }
        // Typed as bash would show it (printf %q), a prefix still matches.
        #expect(bash(["authdeck", "use", "c\\$\\("], evaluated: true) == [keys[0]])
    }

    /// Seeds the hostile keys and completes a key operand and `--session`'s value; `offered` gives each candidate
    /// as the key it stands for. Every key must come back, and none may run.
    func expectHostileKeysOffered(by shell: String, _ offered: (String) -> [String]) {
        let canary = folder.path + "/canary"
        let keys = hostileKeys(canary)
        seed(keys)
        for line in ["authdeck use c", "authdeck token --session c"] {
            let words = offered(line)
            #expect(!FileManager.default.fileExists(atPath: canary), "\(shell) ran a key completing '\(line)'")
            #expect(Set(words) == Set(keys), "\(shell), \(line): \(words)")
        }
    }

    @Test func zshOffersHostileKeysLiterallyAndRunsNone() {
        guard Installed.has("/usr/bin/zsh") else { return Installed.skip("zsh") }
        expectHostileKeysOffered(by: "zsh") { line in
            // compadd hands back each match quoted as zsh would insert it; zsh's own (Q) flag takes that away.
            let unquoted = runner.run(
                executable: "/usr/bin/zsh",
                ["-f", "-c", #"for w in "$@"; do print -r -- ${(Q)w}; done"#, "zsh"] + zsh(line))
            return unquoted.stdout.split(separator: "\n").map(String.init)
        }
    }

    @Test func fishOffersHostileKeysLiterallyAndRunsNone() {
        guard Installed.has("/usr/bin/fish") else { return Installed.skip("fish") }
        expectHostileKeysOffered(by: "fish", fish)
    }
}
