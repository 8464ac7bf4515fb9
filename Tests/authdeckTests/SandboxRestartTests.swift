import Foundation
import Testing

/// The sandbox keeps its port, signing keys and what it issued in its data folder (`$AUTHDECK_HOME/
/// sandbox`), so a session signed in before a restart still refreshes after it; a second sandbox on a taken port
/// says so in one line.
@Suite struct SandboxRestartTests {
    let folder = TemporaryFolder()
    let runner: CLIRunner

    init() {
        runner = CLIRunner.passphraseStore(
            in: folder, config: nil,
            extra: ["BROWSER": ScriptedBrowser.path, "SCRIPTED_BROWSER_LOG": folder.path + "/browser.log"])
    }

    @Test func aSessionFromBeforeARestartStillRefreshes() throws {
        let first = try SandboxProcess(folder: folder, runner: runner)
        var store = runner
        store.environment["AUTHDECK_CONFIG"] = first.configPath
        let login = store.run(["login", "google"])
        #expect(login.status == 0, "login: \(login.stderr)")
        let key = login.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let configBefore = try String(contentsOfFile: first.configPath, encoding: .utf8)
        first.stop()

        // Yesterday's sandbox is gone: nothing answers at its URL.
        let offline = store.run(["refresh", key])
        #expect(offline.status != 0)

        let second = try SandboxProcess(folder: folder, runner: runner, port: first.port)
        defer { second.stop() }
        #expect(second.baseURL == first.baseURL)
        #expect(try String(contentsOfFile: second.configPath, encoding: .utf8) == configBefore)
        let refreshed = store.run(["refresh", key])
        #expect(refreshed.status == 0, "refresh after the restart: \(refreshed.stderr)")
        // The rotated refresh token was kept as well: a second refresh uses the one the first got.
        let again = store.run(["refresh", key])
        #expect(again.status == 0, "second refresh: \(again.stderr)")
        let token = store.run(["token", key])
        #expect(token.status == 0 && !token.stdout.isEmpty)
        // The keys and tokens are the sandbox's own files, readable by this user only.
        for name in ["keys.json", "oidc-grants.json"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/home/sandbox/" + name)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
        }
    }

    @Test func aSecondSandboxOnATakenPortSaysSoInOneLine() throws {
        let first = try SandboxProcess(folder: folder, runner: runner)
        defer { first.stop() }
        let second = runner.run(["sandbox", "--port", String(first.port), "--config-out", folder.path + "/other.json"])
        #expect(second.status == 1)
        #expect(
            second.stderr == "authdeck sandbox: port \(first.port) is taken (another sandbox is running?): "
                + "stop it, or pass --port N (0 picks a free port)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/other.json"))
    }

    /// Under `make run` (scripts/run-sandbox.sh) the advice names the variable that picks the port, not the flag.
    @Test func aSecondMakeRunNamesSandboxPort() throws {
        let first = try SandboxProcess(folder: folder, runner: runner)
        defer { first.stop() }
        let script = CLIRunner.repositoryRoot + "/scripts/run-sandbox.sh"
        let second = runner.run(
            executable: script, [CLIRunner.binary],
            environment: ["AUTHDECK_HOME": folder.path + "/make-run", "SANDBOX_PORT": String(first.port)])
        #expect(second.status == 1)
        #expect(
            second.stderr == "make run: port \(first.port) is taken (another make run?): stop it, or run "
                + "SANDBOX_PORT=N make run with another port N\n", "\(second.stderr)")
    }

    @Test func withoutPortTheSandboxListensOnItsFixedDefault() throws {
        // 8750 may be held by something else on a shared machine; then this check cannot be made here.
        guard let probe = try? PortHolder(port: 8750) else {
            print("SandboxRestartTests: skipped the default-port check, 127.0.0.1:8750 is in use")
            return
        }
        probe.close()
        let sandbox = try SandboxProcess(folder: folder, runner: runner, port: nil)
        defer { sandbox.stop() }
        #expect(sandbox.baseURL == "http://127.0.0.1:8750")
        let second = runner.run(["sandbox", "--config-out", folder.path + "/other.json"])
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("authdeck sandbox: port 8750 is taken"))
        #expect(second.stderr.split(separator: "\n").count == 1)
    }
}
