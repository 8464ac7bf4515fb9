import Foundation

/// `authdeck sandbox` running for one test: started on a free port with its config written next to the store,
/// stopped (SIGTERM) when the test lets go of it.
final class SandboxProcess: @unchecked Sendable {
    let process: Process
    let baseURL: String
    let configPath: String
    let outboxPath: String

    /// `port` nil starts it on its default port (no `--port`).
    init(folder: TemporaryFolder, runner: CLIRunner, extraArguments: [String] = [], port: UInt16? = 0) throws {
        configPath = folder.path + "/sandbox-config.json"
        outboxPath = folder.path + "/outbox.jsonl"
        let configPath = configPath
        (process, baseURL) = try runner.startServer(
            executable: CLIRunner.binary,
            ["sandbox"] + (port.map { ["--port", String($0)] } ?? [])
                + ["--config-out", configPath, "--outbox", outboxPath] + extraArguments,
            output: folder.path + "/sandbox.out", what: "sandbox"
        ) { FileManager.default.fileExists(atPath: configPath) }
    }

    /// The one-time codes the sandbox wrote to its outbox, newest last.
    func codes() -> [(contact: String, code: String)] {
        guard let text = try? String(contentsOfFile: outboxPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let contact = object["contact"] as? String, let code = object["code"] as? String
            else { return nil }
            return (contact, code)
        }
    }

    /// The magic links the sandbox wrote to its outbox (what Portal's email would carry), newest last.
    func links(to contact: String) -> [String] {
        guard let text = try? String(contentsOfFile: outboxPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["contact"] as? String == contact
            else { return nil }
            return object["link"] as? String
        }
    }

    /// Sets `fields` on provider `name` in the config.json it wrote; `discovered` leaves that provider's endpoints
    /// to discovery (where the PAR endpoint is named).
    func configure(provider name: String, _ fields: [String: Any], discovered: Bool = false) throws {
        let url = URL(fileURLWithPath: configPath)
        var document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
        var providers = document["providers"] as? [String: Any] ?? [:]
        var provider = (providers[name] as? [String: Any] ?? [:]).merging(fields) { $1 }
        if discovered { provider = provider.filter { !$0.key.hasSuffix("Endpoint") && $0.key != "jwksURI" } }
        providers[name] = provider
        document["providers"] = providers
        try JSONSerialization.data(withJSONObject: document).write(to: url)
    }

    /// The port it listens on.
    var port: UInt16 { UInt16(baseURL.split(separator: ":").last ?? "") ?? 0 }

    /// Stops it (SIGTERM) and waits, as Ctrl-C would.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The scripted browser of Tests/authdeckTests/Fixtures, as `$BROWSER`.
enum ScriptedBrowser {
    static var path: String {
        CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/scripted-browser.py"
    }

    /// The environment of a `$BROWSER` that approves at the sandbox as ada a second after it opens (the screen
    /// shows the wait first), as the TUI suites want it.
    static let approving = ["BROWSER": path, "SCRIPTED_BROWSER_DELAY": "1"]
}

/// What every sign-in test starts from: a passphrase store (no Secret Service: these suites are about sign-in), the
/// scripted browser as `$BROWSER`, and a running sandbox whose config the runner uses.
struct SandboxLoginSetup {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let sandbox: SandboxProcess

    /// `sandboxArguments` go to `authdeck sandbox`; `schemeHandler` false leaves authdeck:// redirects unhandled.
    init(
        sandboxArguments: [String] = [], passphrase: String = "correct horse battery staple", schemeHandler: Bool = true
    ) throws {
        var browser = ["BROWSER": ScriptedBrowser.path, "SCRIPTED_BROWSER_LOG": folder.path + "/browser.log"]
        // An authdeck:// redirect (Portal's allow-listed URL) goes where the desktop's URL handler sends it.
        if schemeHandler { browser["SCRIPTED_BROWSER_AUTHDECK"] = CLIRunner.binary }
        var base = CLIRunner.passphraseStore(in: folder, passphrase: passphrase, config: nil, extra: browser)
        sandbox = try SandboxProcess(folder: folder, runner: base, extraArguments: sandboxArguments)
        base.environment["AUTHDECK_CONFIG"] = sandbox.configPath
        runner = base
    }

    /// The sandbox's config.json with one setting of one provider changed, written as `file` in the folder; its path.
    func config(_ provider: String, _ setting: String, _ value: Any, file: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: sandbox.configPath))
        var config = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var providers = config["providers"] as? [String: Any] ?? [:]
        var entry = providers[provider] as? [String: Any] ?? [:]
        entry[setting] = value
        providers[provider] = entry
        config["providers"] = providers
        let path = folder.path + "/" + file
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `authdeck list --json`, parsed.
    func listed() throws -> [[String: Any]] {
        let result = runner.run(["list", "--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }
}

/// A suite whose every test signs in against a sandbox of its own: `setup`, made in the suite's init, and the
/// store, runner and sandbox read through it.
protocol SandboxLoginSuite {
    var setup: SandboxLoginSetup { get }
}

extension SandboxLoginSuite {
    var folder: TemporaryFolder { setup.folder }
    var runner: CLIRunner { setup.runner }
    var sandbox: SandboxProcess { setup.sandbox }
}
