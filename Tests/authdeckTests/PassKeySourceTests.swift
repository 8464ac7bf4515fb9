import Foundation
import Testing

/// The master key kept in `pass`, the standard Unix password manager, driven by Debian's real `pass` and `gnupg`:
/// a batch-generated key in a private GNUPGHOME, a private password store, a real gpg-agent whose pinentry always
/// refuses (so only a key without a passphrase, or one the test primed the agent with, decrypts). Every unlock here
/// runs with `--unlock-for 0` after `store lock`, so the key must come from pass each time.
@Suite struct PassKeySourceTests {
    let folder = TemporaryFolder()

    /// A private GnuPG home with one key and a password store initialised for it; its agent is stopped at the end.
    final class Keyring {
        let folder: TemporaryFolder
        let environment: [String: String]
        let runner: CLIRunner
        var store: String { environment["PASSWORD_STORE_DIR"]! }

        init(_ folder: TemporaryFolder, passphrase: String?) throws {
            self.folder = folder
            let home = folder.path + "/gnupg"
            try FileManager.default.createDirectory(
                atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // The pinentry refuses every request: an agent that does not hold the passphrase cannot decrypt.
            folder.write("gnupg/gpg-agent.conf", "pinentry-program /usr/bin/false\n")
            environment = ["GNUPGHOME": home, "PASSWORD_STORE_DIR": folder.path + "/password-store"]
            runner = CLIRunner(
                home: folder.path + "/home", passphraseFile: folder.write("passphrase", "correct horse\n"),
                extra: environment)
            let made =
                passphrase.map {
                    runner.run(
                        executable: "/usr/bin/gpg",
                        [
                            "--batch", "--pinentry-mode", "loopback", "--passphrase-fd", "0", "--quick-gen-key",
                            "authdeck test <test@example.com>", "future-default", "default", "never",
                        ], stdin: $0 + "\n", timeout: 120)
                }
                ?? runner.run(
                    executable: "/usr/bin/gpg",
                    [
                        "--batch", "--passphrase", "", "--quick-gen-key", "authdeck test <test@example.com>",
                        "future-default", "default", "never",
                    ], timeout: 120)
            guard made.status == 0 else { throw CLIFailure("gpg --quick-gen-key: \(made.stderr)") }
            let initialised = runner.run(executable: "/usr/bin/pass", ["init", "test@example.com"])
            guard initialised.status == 0 else { throw CLIFailure("pass init: \(initialised.stderr)") }
        }

        deinit {
            _ = runner.run(executable: "/usr/bin/gpgconf", ["--kill", "gpg-agent"])
        }

        func pass(_ arguments: [String], stdin: String? = nil) -> CLIRunner.Result {
            runner.run(executable: "/usr/bin/pass", arguments, stdin: stdin)
        }

        /// Decrypts an entry of its own once with the passphrase (loopback, on standard input), which leaves the
        /// passphrase in the agent's cache as a person typing it into pinentry would.
        func prime(passphrase: String) -> CLIRunner.Result {
            _ = runner.run(executable: "/usr/bin/pass", ["insert", "--multiline", "--force", "probe"], stdin: "x\n")
            return runner.run(
                executable: "/usr/bin/gpg",
                [
                    "--batch", "--pinentry-mode", "loopback", "--passphrase-fd", "0", "--decrypt", "--output",
                    "/dev/null", "\(store)/probe.gpg",
                ], stdin: passphrase + "\n")
        }

        /// Forgets every cached passphrase (what a timeout or a lock of the agent does).
        func forget() {
            _ = runner.run(executable: "/usr/bin/gpgconf", ["--reload", "gpg-agent"])
        }
    }

    func keyring(passphrase: String? = nil) throws -> Keyring? {
        guard Installed.has("/usr/bin/pass"), Installed.has("/usr/bin/gpg"), Installed.has("/usr/bin/gpgconf") else {
            try SecurityTestPrecondition.unavailable("pass or gnupg is not installed (make setup installs them)")
            return nil
        }
        let keyring = try Keyring(folder, passphrase: passphrase)
        let imported = keyring.runner.run(
            ["store", "import", "-"], stdin: TokenDeliveryTests.line("work", token: "AT-work-1"))
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return keyring
    }

    /// `token` with the cache dropped first and nothing cached after; no passphrase file, so only pass can unlock.
    func tokenFromPass(_ keyring: Keyring) -> CLIRunner.Result {
        _ = keyring.runner.run(["store", "lock"])
        return keyring.runner.run(
            ["token", "work", "--unlock-for", "0"], environment: ["AUTHDECK_PASSPHRASE_FILE": nil])
    }

    @Test func theKeyMovesToPassIsUsedFromThereAndMovesBack() throws {
        guard let keyring = try keyring() else { return }
        let runner = keyring.runner
        let moved = runner.run(["store", "migrate", "--to", "pass"])
        #expect(moved.status == 0, "migrate: \(moved.stderr)")
        #expect(moved.stderr.contains("pass (entry authdeck/master-key)"), "\(moved.stderr)")

        // pass itself decrypts the entry: 32 bytes in base64 on the first line.
        let shown = keyring.pass(["show", "authdeck/master-key"])
        #expect(shown.status == 0, "pass show: \(shown.stderr)")
        let first = shown.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(Data(base64Encoded: first)?.count == 32, "entry: \(first.count) characters")

        let token = tokenFromPass(keyring)
        #expect(token.status == 0, "token: \(token.stderr)")
        #expect(token.stdout == "AT-work-1\n")
        let doctor = runner.run(["doctor"], environment: ["AUTHDECK_PASSPHRASE_FILE": nil])
        #expect(doctor.stdout.contains("wrapped by pass (entry authdeck/master-key)"), "doctor: \(doctor.stdout)")

        // Back under a passphrase: the entry leaves the password store, and the passphrase alone unlocks.
        let back = runner.run(["store", "migrate", "--to", "passphrase"])
        #expect(back.status == 0, "migrate back: \(back.stderr)")
        #expect(keyring.pass(["show", "authdeck/master-key"]).status != 0, "the pass entry was removed")
        _ = runner.run(["store", "lock"])
        let again = runner.run(
            ["token", "work", "--unlock-for", "0"], environment: ["PASSWORD_STORE_DIR": folder.path + "/nowhere"])
        #expect(again.status == 0 && again.stdout == "AT-work-1\n", "token after moving back: \(again.stderr)")
    }

    @Test func aNamedEntryIsUsedAndABadNameIsRefused() throws {
        guard let keyring = try keyring() else { return }
        let refused = keyring.runner.run(["store", "migrate", "--to", "pass", "--pass-entry", "../outside"])
        #expect(refused.status == 2, "bad name: \(refused.stderr)")
        let said = refused.stderr.split(separator: "\n").filter { !$0.hasPrefix("usage:") }
        #expect(
            said == [
                "authdeck store migrate: --pass-entry must be a relative name such as authdeck/master-key (no leading /, no ..)"
            ], "one line and the usage: \(refused.stderr)")
        // Someone else's entry is never replaced.
        #expect(keyring.pass(["insert", "--multiline", "team/other"], stdin: "not ours\n").status == 0)
        let taken = keyring.runner.run(["store", "migrate", "--to", "pass", "--pass-entry", "team/other"])
        #expect(taken.status == 1, "taken: \(taken.status) \(taken.stderr)")
        #expect(taken.stderr.contains("pass already has an entry 'team/other'"), "\(taken.stderr)")
        #expect(keyring.pass(["show", "team/other"]).stdout == "not ours\n")
        let moved = keyring.runner.run(["store", "migrate", "--to", "pass", "--pass-entry", "team/authdeck"])
        #expect(moved.status == 0, "migrate: \(moved.stderr)")
        #expect(keyring.pass(["show", "team/authdeck"]).status == 0)
        #expect(keyring.pass(["show", "authdeck/master-key"]).status != 0, "only the named entry is written")
        #expect(tokenFromPass(keyring).stdout == "AT-work-1\n")
    }

    @Test func aMissingEntryIsOneLineExitFiveAndLosesNothing() throws {
        guard let keyring = try keyring() else { return }
        #expect(keyring.runner.run(["store", "migrate", "--to", "pass"]).status == 0)
        #expect(keyring.pass(["mv", "authdeck/master-key", "elsewhere/key"]).status == 0)
        let missing = tokenFromPass(keyring)
        #expect(missing.status == 5, "token: \(missing.status) \(missing.stderr)")
        #expect(missing.stderr.contains("pass has no entry 'authdeck/master-key'"), "\(missing.stderr)")
        #expect(missing.stderr.filter { $0 == "\n" }.count == 1, "one line: \(missing.stderr)")
        #expect(missing.stdout.isEmpty)
        // Put back, the entry unlocks the same store: nothing was lost or rewritten meanwhile.
        #expect(keyring.pass(["mv", "elsewhere/key", "authdeck/master-key"]).status == 0)
        let restored = tokenFromPass(keyring)
        #expect(restored.status == 0 && restored.stdout == "AT-work-1\n", "token: \(restored.stderr)")
    }

    @Test func aLockedAgentIsOneLineExitFiveAndLosesNothing() throws {
        let passphrase = "gpg key passphrase"
        guard let keyring = try keyring(passphrase: passphrase) else { return }
        let runner = keyring.runner
        // Moving to pass reads the entry back: with the agent locked that fails, and the store keeps its passphrase.
        let refused = runner.run(["store", "migrate", "--to", "pass"])
        #expect(refused.status == 5, "migrate with a locked agent: \(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("pass could not decrypt 'authdeck/master-key'"), "\(refused.stderr)")
        #expect(refused.stderr.filter { $0 == "\n" }.count == 1, "one line: \(refused.stderr)")
        #expect(keyring.pass(["show", "authdeck/master-key"]).stderr.contains("is not in the password store"))
        _ = runner.run(["store", "lock"])
        let stillPassphrase = runner.run(["token", "work", "--unlock-for", "0"])
        #expect(stillPassphrase.stdout == "AT-work-1\n", "the passphrase still unlocks: \(stillPassphrase.stderr)")

        // With the agent primed the move succeeds; once the agent forgets, unlocking fails the same way.
        #expect(keyring.prime(passphrase: passphrase).status == 0)
        let moved = runner.run(["store", "migrate", "--to", "pass"])
        #expect(moved.status == 0, "migrate with a primed agent: \(moved.stderr)")
        keyring.forget()
        let locked = tokenFromPass(keyring)
        #expect(locked.status == 5, "token with a locked agent: \(locked.status) \(locked.stderr)")
        #expect(locked.stderr.contains("pass could not decrypt 'authdeck/master-key'"), "\(locked.stderr)")
        #expect(locked.stderr.contains("gpg-agent"), "\(locked.stderr)")
        #expect(locked.stderr.filter { $0 == "\n" }.count == 1, "one line: \(locked.stderr)")
        #expect(locked.stdout.isEmpty)
        #expect(keyring.prime(passphrase: passphrase).status == 0)
        let unlocked = tokenFromPass(keyring)
        #expect(unlocked.status == 0 && unlocked.stdout == "AT-work-1\n", "token once primed: \(unlocked.stderr)")
    }
}
