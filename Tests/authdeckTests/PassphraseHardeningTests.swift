import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Passphrase stores cost more to attack, old ones still open, weak or exposed passphrases are
/// called out.
@Suite struct PassphraseHardeningTests {
    let folder = TemporaryFolder()
    static let session =
        #"{"key":"k","backend":"direct","provider":"google","subject":"s","#
        + #""issuer":"https://accounts.google.com","accessToken":"token-of-k","expiresAt":"2099-01-01T00:00:00Z"}"#

    func runner(home: String, passphraseFile: String) -> CLIRunner {
        var runner = CLIRunner(home: home, extra: ["AUTHDECK_PASSPHRASE_FILE": passphraseFile])
        runner.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return runner
    }

    @Test func aNewStoreWrapsItsKeyWithScryptTwoToTheSeventeen() throws {
        let home = folder.path + "/home"
        let cli = runner(home: home, passphraseFile: folder.write("pass", "a long enough passphrase\n"))
        let made = cli.run(["store", "import", "-", "--unlock-for", "0"], stdin: Self.session + "\n")
        #expect(made.status == 0, "stderr: \(made.stderr)")
        #expect(!made.stderr.contains("warning"), "stderr: \(made.stderr)")
        let parameters = cli.run(
            executable: "/usr/bin/sqlite3",
            [
                home + "/sessions.db",
                "SELECT CAST(value AS TEXT) FROM meta WHERE name = 'kdf_parameters'",
            ])
        #expect(parameters.stdout == "131072:8:1\n")
        #expect(cli.run(["token", "k", "--unlock-for", "0"]).stdout == "token-of-k\n")
    }

    @Test func aStoreMadeWithTheOldParametersStillOpens() throws {
        // Made by authdeck before this change: N = 2^15, passphrase "fixture passphrase 2026", one session.
        let home = folder.path + "/old"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let fixture = CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/store-scrypt-n15.db"
        try FileManager.default.copyItem(atPath: fixture, toPath: home + "/sessions.db")
        let cli = runner(home: home, passphraseFile: folder.write("old-pass", "fixture passphrase 2026\n"))
        let token = cli.run(["token", "legacy", "--unlock-for", "0"])
        #expect(token.stdout == "token-of-legacy\n", "stderr: \(token.stderr)")
    }

    @Test(arguments: [0o640, 0o604, 0o660])
    func aPassphraseFileOthersCanReadIsRefused(_ mode: Int) throws {
        let file = folder.write("exposed-\(mode)", "a long enough passphrase\n")
        try #require(chmod(file, mode_t(mode)) == 0)
        let result = runner(home: folder.path + "/home-\(mode)", passphraseFile: file)
            .run(["store", "import", "-", "--unlock-for", "0"], stdin: Self.session + "\n")
        #expect(result.status == 5, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("chmod 600"), "stderr: \(result.stderr)")
    }

    @Test func aShortNewPassphraseDrawsAWarning() throws {
        let result = runner(home: folder.path + "/short-home", passphraseFile: folder.write("short", "hunter2\n"))
            .run(["store", "import", "-", "--unlock-for", "0"], stdin: Self.session + "\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("warning: the passphrase has 7 characters"), "stderr: \(result.stderr)")
    }
}
