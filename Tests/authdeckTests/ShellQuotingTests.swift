import Foundation
import Testing

/// `authdeck env`'s lines, evaluated by bash, zsh, dash and fish, give back every hostile token
/// and session key of Tests/Fixtures/shell-words.json byte for byte (the shell writes the variable to a file with
/// printf), and the canary command inside them never runs. The expected bytes are the values themselves; what
/// the shells make of the quoting is theirs.
@Suite struct ShellQuotingTests {
    let folder = TemporaryFolder()
    var canary: String { folder.path + "/canary" }

    /// The hostile values, shared with the TUI's test and the fuzz target's seeds.
    struct Words: Decodable {
        let tokens: [String]
        let keys: [String]

        static let all: Words = {
            let path = CLIRunner.repositoryRoot + "/Tests/Fixtures/shell-words.json"
            let data = FileManager.default.contents(atPath: path) ?? Data()
            return (try? JSONDecoder().decode(Words.self, from: data)) ?? Words(tokens: [], keys: [])
        }()
    }

    /// One session per hostile token (keys `t0`, `t1`…) and one per hostile key (token `AT-<n>`), with the canary
    /// path put in.
    func seeded() -> (CLIRunner, [(key: String, token: String)]) {
        let words = Words.all
        #expect(words.tokens.count >= 20 && words.keys.count >= 10, "Tests/Fixtures/shell-words.json unread")
        let withCanary = { (text: String) in text.replacingOccurrences(of: "CANARY", with: canary) }
        let sessions =
            words.tokens.enumerated().map { ("t\($0.offset)", withCanary($0.element)) }
            + words.keys.enumerated().map { (withCanary($0.element), "AT-\($0.offset)") }
        let runner = CLIRunner.passphraseStore(in: folder)
        let lines = sessions.map { TokenDeliveryTests.line($0.0, token: $0.1) }.joined()
        let imported = runner.run(["store", "import", "-"], stdin: lines)
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return (runner, sessions.map { (key: $0.0, token: $0.1) })
    }

    /// The script that evaluates `env`'s output in `shell` and writes both variables to `$OUT.token` and
    /// `$OUT.key`. The key comes in as `$WANTED` (never through the test's own quoting) and is passed with
    /// --session, so `$AUTHDECK_SESSION` is set by the evaluated line alone.
    static func script(_ shell: String) -> [String] {
        if shell.hasSuffix("fish") {
            return [
                "--no-config", "-c",
                "$AUTHDECK_BIN env --shell fish --session $WANTED | source; "
                    + "printf '%s' $AUTHDECK_TOKEN > $OUT.token; printf '%s' $AUTHDECK_SESSION > $OUT.key",
            ]
        }
        let dialect = shell.hasSuffix("dash") ? "sh" : String(shell.split(separator: "/").last ?? "")
        return [
            "-c",
            "eval \"$(\"$AUTHDECK_BIN\" env --shell \(dialect) --session \"$WANTED\")\" || exit 9; "
                + "printf '%s' \"$AUTHDECK_TOKEN\" > \"$OUT.token\"; printf '%s' \"$AUTHDECK_SESSION\" > \"$OUT.key\"",
        ]
    }

    @Test(arguments: ["/bin/bash", "/usr/bin/zsh", "/usr/bin/dash", "/usr/bin/fish"])
    func envGivesEveryHostileValueBackByteForByte(_ shell: String) {
        guard Installed.has(shell) else { return Installed.skip(shell) }
        let (runner, sessions) = seeded()
        for (index, session) in sessions.enumerated() {
            let out = folder.path + "/out-\(index)"
            let result = runner.run(
                executable: shell, Self.script(shell),
                environment: [
                    "AUTHDECK_BIN": CLIRunner.binary, "WANTED": session.key, "OUT": out,
                    "XDG_CONFIG_HOME": folder.path + "/cfg", "XDG_DATA_HOME": folder.path + "/data",
                ])
            let shown = session.key.debugDescription
            #expect(!FileManager.default.fileExists(atPath: canary), "\(shell) ran the canary for \(shown)")
            try? FileManager.default.removeItem(atPath: canary)
            #expect(result.stderr.isEmpty, "\(shell), \(shown): \(result.stderr)")
            let token = FileManager.default.contents(atPath: out + ".token").map { [UInt8]($0) }
            #expect(token == Array(session.token.utf8), "\(shell) read the token of \(shown) otherwise")
            let key = FileManager.default.contents(atPath: out + ".key").map { [UInt8]($0) }
            #expect(key == Array(session.key.utf8), "\(shell) read the key \(shown) otherwise")
        }
    }

    /// No shell variable can hold U+0000 (a JSON string can, so the store can): `env` and `exec` refuse such a
    /// token in one line rather than hand out a shortened one.
    @Test func aTokenHoldingNULIsRefusedNotShortened() {
        let runner = CLIRunner.passphraseStore(in: folder)
        let imported = runner.run(["store", "import", "-"], stdin: TokenDeliveryTests.line("nul", token: "AT-a\u{0}b"))
        #expect(imported.status == 0, "import: \(imported.stderr)")
        for arguments in [["env", "nul"], ["exec", "--session", "nul", "--", "/bin/true"]] {
            let result = runner.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("NUL") && result.stderr.split(separator: "\n").count == 1)
            #expect(!result.stderr.contains("AT-a"))
        }
    }

    /// What else a token could carry that UTF-8 text cannot: invalid bytes and lone surrogates never reach the store
    /// (jansson checks import lines; a provider's answer is decoded by Foundation's JSON decoder, see
    /// JSONValueTests), so quoting only ever sees valid Unicode scalars.
    @Test func importRefusesInvalidUTF8AndLoneSurrogatesInATokenInOneLine() {
        let runner = CLIRunner.passphraseStore(in: folder)
        let parts = TokenDeliveryTests.line("bytes", token: "AT-PLACE").components(separatedBy: "PLACE")
        // A stray byte, an overlong `'`, an encoded surrogate, and a lone surrogate escape.
        for bad in [[UInt8]([0xFF]), [0xC0, 0xA7], [0xED, 0xA0, 0x80], Array("\\ud800".utf8)] {
            let file = folder.path + "/bad-import"
            FileManager.default.createFile(
                atPath: file, contents: Data(Array(parts[0].utf8) + bad + Array(parts[1].utf8)))
            let result = runner.run(["store", "import", file])
            #expect(result.status != 0, "\(bad) was imported")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("line 1"), "\(result.stderr)")
        }
        #expect(runner.run(["token", "bytes"]).status != 0)
    }
}
