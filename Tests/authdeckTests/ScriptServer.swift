import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Python server of Tests/authdeckTests/Fixtures started by one test on 127.0.0.1: it writes its port to a file
/// when it listens; stopped (SIGTERM to its pid, then waited for) when the test lets go of it.
final class ScriptServer: @unchecked Sendable {
    let process: Process
    let port: Int

    /// Starts `fixture` with `interpreter` (a venv's python for a server from PyPI) and waits `seconds` at most
    /// for its port.
    init(
        fixture: String, arguments: [String], folder: TemporaryFolder, runner: CLIRunner,
        interpreter: String = "/usr/bin/python3", seconds: Int = 10
    ) throws {
        let portFile = folder.path + "/\(fixture).port"
        process = try runner.start(
            executable: interpreter,
            [CLIRunner.repositoryRoot + "/Tests/authdeckTests/Fixtures/" + fixture]
                + arguments + [portFile])
        var found: Int?
        for _ in 0..<(seconds * 20) {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let number = Int(text) {
                found = number
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let found else {
            process.terminate()
            process.waitUntilExit()
            throw CLIFailure("\(fixture) wrote no port")
        }
        port = found
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// Whether a program the test needs is installed; the test prints that it was skipped when not.
enum Installed {
    static func has(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    static func pythonHasCryptography() -> Bool {
        let result = CLIRunner(home: "/nonexistent").run(
            executable: "/usr/bin/python3",
            ["-c", "import cryptography"])
        return result.status == 0
    }

    static func skip(_ what: String) {
        print("skipped: \(what) is not installed")
    }
}
