import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What every interop test starts from: a passphrase store in a temporary home, the interop browser as $BROWSER,
/// and a config.json the test writes for the server at hand.
struct InteropLogin {
    let folder = TemporaryFolder()
    let runner: CLIRunner
    let configPath: String
    let browserLog: String

    init() {
        configPath = folder.path + "/config.json"
        browserLog = folder.path + "/browser.log"
        runner = CLIRunner.passphraseStore(
            in: folder, config: nil,
            extra: [
                "AUTHDECK_CONFIG": configPath, "INTEROP_BROWSER_LOG": browserLog,
                "BROWSER": CLIRunner.repositoryRoot + "/Tests/Interop/interop-browser.py",
            ])
    }

    /// Writes config.json with `oidc` set to these fields.
    func configure(_ oidc: [String: Any], top: [String: Any] = [:]) throws {
        var object = top
        object["providers"] = ["oidc": oidc]
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: configPath))
    }

    /// Writes config.json for `info`'s confidential client at its issuer, its secret in an owner-only file.
    func configureConfidential(_ info: InteropServer.Info, scopes: [String] = []) throws {
        var oidc: [String: Any] = [
            "issuer": info.issuer, "clientID": info.confidentialClient,
            "clientSecretFile": secretFile(info.clientSecret),
        ]
        if !scopes.isEmpty { oidc["scopes"] = scopes }
        try configure(oidc)
    }

    /// A client secret file, readable by the user only.
    func secretFile(_ secret: String) -> String {
        let path = folder.write("client-secret", secret + "\n")
        chmod(path, 0o600)
        return path
    }

    func login(_ arguments: [String], environment: [String: String?] = [:], timeout: TimeInterval = 60)
        -> CLIRunner.Result
    {
        runner.run(["login", "oidc"] + arguments, stdin: "", environment: environment, timeout: timeout)
    }

    /// `authdeck list --json`, parsed.
    func listed() throws -> [[String: Any]] {
        let result = runner.run(["list", "--json"])
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    func session(_ key: String) throws -> [String: Any]? {
        try listed().first { $0["key"] as? String == key }
    }

    func token(_ key: String) -> String {
        runner.run(["token", key]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The payload of a JWT (an ID token, glewlwyd's access tokens), decoded by Python's base64 and json on
    /// standard input, so no code of ours reads it; the signature is not checked.
    func jwtClaims(_ jwt: String) -> [String: Any] {
        let script = """
            import base64, json, sys
            payload = sys.stdin.read().strip().split(".")[1]
            print(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode())
            """
        let decoded = runner.run(executable: "/usr/bin/python3", ["-c", script], stdin: jwt).stdout
        return (try? JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [String: Any]) ?? [:]
    }

    var browserSteps: String { (try? String(contentsOfFile: browserLog, encoding: .utf8)) ?? "" }

    /// A trace written by `login --trace`, as one text, and its steps.
    func trace(_ path: String) -> (text: String, steps: [[String: Any]]) {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let steps = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return (text, steps)
    }

    /// The claims of every DPoP proof the trace's requests carried, in order (shown decoded, by header name).
    static func proofClaims(in steps: [[String: Any]]) -> [[String: Any]] {
        steps.compactMap { step in
            let headers = (step["details"] as? [String: Any])?["headers"] as? [String: Any]
            return (headers?["DPoP"] as? [String: Any])?["claims"] as? [String: Any]
        }
    }

    /// The string values of members called `name` anywhere in the trace steps.
    static func values(named name: String, in steps: [[String: Any]]) -> [String] {
        var found: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, member) in object {
                    if key == name, let text = member as? String { found.append(text) } else { walk(member) }
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        steps.forEach(walk)
        return found
    }
}
