import Foundation
import Testing

/// A sign-in setup whose sandbox runs with faults: a passphrase store, the scripted browser as `$BROWSER`, and
/// `authdeck sandbox --fault …` as a child process. Every login writes its trace next to the store.
struct FaultedSandbox {
    let folder: TemporaryFolder
    let runner: CLIRunner
    let sandbox: SandboxProcess

    init(_ sandboxArguments: [String]) throws {
        let setup = try SandboxLoginSetup(
            sandboxArguments: sandboxArguments, passphrase: "faulted sandbox passphrase", schemeHandler: false)
        (folder, runner, sandbox) = (setup.folder, setup.runner, setup.sandbox)
    }

    var tracePath: String { folder.path + "/trace.jsonl" }

    func login(_ arguments: [String], environment: [String: String?] = [:], timeout: Int = 5) -> CLIRunner.Result {
        runner.run(
            ["login"] + arguments + ["--timeout", String(timeout), "--trace", tracePath], stdin: "",
            environment: environment, timeout: 60)
    }

    func live(_ arguments: [String], environment: [String: String?] = [:], timeout: Int = 10) throws -> LiveLogin {
        try LiveLogin(
            runner: runner,
            arguments: ["login"] + arguments
                + ["--timeout", String(timeout), "--trace", tracePath], environment: environment)
    }

    /// The trace's steps, one object a line.
    func trace() -> [[String: Any]] {
        TraceFile.steps(tracePath)
    }

    /// `authdeck list --json`, parsed.
    func listed() -> [[String: Any]] {
        let result = runner.run(["list", "--json"])
        return ((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]]) ?? []
    }
}

/// Reading a JSON-lines trace in tests.
enum TraceFile {
    static func steps(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    static func kinds(_ steps: [[String: Any]]) -> [String] {
        steps.compactMap { $0["kind"] as? String }
    }

    static func details(_ step: [String: Any]) -> [String: Any] {
        step["details"] as? [String: Any] ?? [:]
    }

    /// The `response` steps whose URL ends with `suffix`.
    static func responses(_ steps: [[String: Any]], to suffix: String) -> [[String: Any]] {
        steps.filter {
            $0["kind"] as? String == "response" && (details($0)["url"] as? String)?.hasSuffix(suffix) == true
        }
    }

    /// The `error` member of a response step's JSON body.
    static func error(_ step: [String: Any]) -> String? {
        (details(step)["body"] as? [String: Any])?["error"] as? String
    }

    static func result(_ steps: [[String: Any]]) -> String? {
        steps.last { $0["kind"] as? String == "result" }?["summary"] as? String
    }

    /// The claims of the trace's decoded ID token.
    static func idTokenClaims(_ steps: [[String: Any]]) -> [String: Any]? {
        guard let step = steps.last(where: { $0["kind"] as? String == "id_token" }) else { return nil }
        return details(step)["claims"] as? [String: Any]
    }
}
