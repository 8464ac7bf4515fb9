import Foundation
import Testing

/// `authdeck aws-credentials` as the real AWS CLI (Debian's awscli) runs it, through `credential_process` in a
/// private AWS_CONFIG_FILE, against moto's server as the local STS. moto does not check the web identity token (it
/// assumes any role for any token), so the test also reads moto's recording of the request and checks its form
/// against AWS's API reference for AssumeRoleWithWebIdentity (Action, Version 2011-06-15, RoleArn, RoleSessionName,
/// WebIdentityToken, DurationSeconds; a POST of application/x-www-form-urlencoded with no AWS signature).
@Suite struct AWSCredentialsTests {
    let folder = TemporaryFolder()
    static let motoPython = CLIRunner.repositoryRoot + "/.build/moto-venv/bin/python3"
    static let role = "arn:aws:iam::123456789012:role/deploy"

    /// A compact JWS whose claims expire at `expires`; STS here (moto) reads no signature, so it carries none
    /// that verifies.
    static func idToken(subject: String, expires: Date) -> String {
        func part(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let claims =
            "{\"iss\":\"https://id.example.com\",\"sub\":\"\(subject)\",\"aud\":\"sts.amazonaws.com\","
            + "\"iat\":\(Int(Date().timeIntervalSince1970) - 60),\"exp\":\(Int(expires.timeIntervalSince1970))}"
        return part("{\"alg\":\"RS256\",\"kid\":\"k1\"}") + "." + part(claims) + "." + part("not-a-signature")
    }

    static func line(_ key: String, idToken: String?) -> String {
        "{\"key\":\"\(key)\",\"backend\":\"direct\",\"provider\":\"oidc\",\"subject\":\"s-\(key)\","
            + "\"issuer\":\"https://id.example.com\",\"createdAt\":\"2024-01-02T03:04:05Z\","
            + "\"expiresAt\":\"2099-01-01T00:00:00Z\",\"accessToken\":\"AT-\(key)\""
            + (idToken.map { ",\"idToken\":\"\($0)\"" } ?? "") + "}\n"
    }

    struct Local {
        let runner: CLIRunner
        let server: ScriptServer
        let recording: String
        let token: String
        var endpoint: String { "http://127.0.0.1:\(server.port)" }
    }

    /// moto's server on a free port, recording what it is asked to `recording`.
    static func moto(_ folder: TemporaryFolder, recording: String) throws -> ScriptServer {
        try ScriptServer(
            fixture: "moto-sts.py", arguments: [recording], folder: folder,
            runner: CLIRunner(home: folder.path + "/home"), interpreter: motoPython, seconds: 60)
    }

    func local() throws -> Local? {
        guard Installed.has("/usr/bin/aws"), Installed.has(Self.motoPython) else {
            try SecurityTestPrecondition.unavailable(
                "awscli or moto (.build/moto-venv) is not installed (make setup installs them)")
            return nil
        }
        let recording = folder.path + "/moto-recording.jsonl"
        let server = try Self.moto(folder, recording: recording)
        let token = Self.idToken(subject: "s-work", expires: Date().addingTimeInterval(3600))
        let config = folder.write(
            "aws-config",
            """
            [profile work]
            region = us-east-1
            credential_process = \(CLIRunner.binary) aws-credentials --role-arn \(Self.role) --role-session-name ci-run --duration 15m work

            [profile stale]
            region = us-east-1
            credential_process = \(CLIRunner.binary) aws-credentials --role-arn \(Self.role) stale

            """)
        let runner = CLIRunner(
            home: folder.path + "/home", passphraseFile: folder.write("passphrase", "correct horse\n"),
            extra: [
                "HOME": folder.path, "AWS_CONFIG_FILE": config,
                "AWS_SHARED_CREDENTIALS_FILE": folder.path + "/no-credentials",
                "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:\(server.port)", "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
            ])
        let stale = Self.idToken(subject: "s-stale", expires: Date().addingTimeInterval(-3600))
        let imported = runner.run(
            ["store", "import", "-"],
            stdin: Self.line("work", idToken: token) + Self.line("stale", idToken: stale)
                + Self.line("plain", idToken: nil))
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return Local(runner: runner, server: server, recording: recording, token: token)
    }

    func assumeRoleRequests(_ local: Local) -> [(form: [String: String], headers: [String: String], method: String)] {
        Self.assumeRoleRequests(recording: local.recording)
    }

    /// The AssumeRoleWithWebIdentity requests moto recorded, each as its form fields (read by Foundation's URL
    /// parser), headers and method.
    static func assumeRoleRequests(recording: String) -> [(
        form: [String: String], headers: [String: String], method: String
    )] {
        let text = (try? String(contentsOfFile: recording, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let body = object["body"] as? String
            else { return nil }
            let raw =
                object["body_encoded"] as? Bool == true
                ? String(decoding: Data(base64Encoded: body) ?? Data(), as: UTF8.self) : body
            var components = URLComponents()
            components.percentEncodedQuery = raw
            var form: [String: String] = [:]
            for item in components.queryItems ?? [] { form[item.name] = item.value ?? "" }
            guard form["Action"] == "AssumeRoleWithWebIdentity" else { return nil }
            let headers = (object["headers"] as? [String: String] ?? [:])
                .reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
            return (form, headers, object["method"] as? String ?? "")
        }
    }

    func callerIdentity(_ local: Local, profile: String) -> CLIRunner.Result {
        local.runner.run(
            executable: "/usr/bin/aws",
            ["--profile", profile, "--endpoint-url", local.endpoint, "sts", "get-caller-identity", "--output", "json"],
            timeout: 120)
    }

    @Test func theAWSCLIGetsTheRoleThroughCredentialProcess() throws {
        guard let local = try local() else { return }
        let identity = callerIdentity(local, profile: "work")
        #expect(identity.status == 0, "aws: \(identity.stderr)")
        #expect(
            identity.stdout.contains("\"arn:aws:sts::123456789012:assumed-role/deploy/ci-run\""), "\(identity.stdout)")

        let requests = assumeRoleRequests(local)
        #expect(requests.count == 1, "STS was asked \(requests.count) times")
        if let request = requests.first {
            #expect(request.method == "POST")
            #expect(request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
            #expect(request.headers["authorization"] == nil, "AssumeRoleWithWebIdentity is not signed")
            #expect(
                request.form == [
                    "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "RoleArn": Self.role,
                    "RoleSessionName": "ci-run", "WebIdentityToken": local.token, "DurationSeconds": "900",
                ])
        }

        // The second run is served from the store's cache: STS is not asked again, and the secret access key it
        // holds is nowhere in the store's files in the clear.
        let again = callerIdentity(local, profile: "work")
        #expect(again.status == 0, "aws again: \(again.stderr)")
        #expect(assumeRoleRequests(local).count == 1, "the cached credentials were used")
        let printed = local.runner.run(
            ["aws-credentials", "--role-arn", Self.role, "--role-session-name", "ci-run", "--duration", "15m", "work"])
        #expect(printed.status == 0, "aws-credentials: \(printed.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(document["Version"] as? Int == 1)
        let secret = document["SecretAccessKey"] as? String ?? ""
        #expect(secret.count >= 20 && (document["SessionToken"] as? String)?.isEmpty == false)
        let stored = FileManager.default.enumerator(atPath: folder.path + "/home")?.compactMap { $0 as? String } ?? []
        for file in stored {
            let bytes = FileManager.default.contents(atPath: folder.path + "/home/" + file) ?? Data()
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds the secret access key in the clear")
        }
    }

    @Test func anExpiredSessionMakesTheCLIFailWithAuthdecksMessage() throws {
        guard let local = try local() else { return }
        let identity = callerIdentity(local, profile: "stale")
        #expect(identity.status != 0)
        #expect(
            identity.stderr.contains("the ID token of 'stale' expired at")
                && identity.stderr.contains("cannot be refreshed"), "aws: \(identity.stderr)")
        #expect(assumeRoleRequests(local).isEmpty, "STS never saw the expired token")
    }

    @Test func badInputIsOneLineWithItsExitCode() throws {
        guard let local = try local() else { return }
        let cases: [([String], Int32, String)] = [
            (["aws-credentials", "--role-arn", "arn:aws:iam::1234:role/deploy", "work"], 2, "is not an IAM role ARN"),
            (["aws-credentials", "--role-arn", "arn:aws:iam::123456789012:user/deploy", "work"], 2, "not an IAM role"),
            (["aws-credentials", "work"], 2, "needs --role-arn"),
            (["aws-credentials", "--role-arn", Self.role, "--duration", "5m", "work"], 2, "--duration takes"),
            (["aws-credentials", "--role-arn", Self.role, "nosuch"], 7, "no session 'nosuch'"),
            (["aws-credentials", "--role-arn", Self.role, "plain"], 1, "has no ID token"),
        ]
        for (arguments, status, message) in cases {
            let result = local.runner.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("usage:") && !$0.hasPrefix("  ") }
            #expect(lines.count == 1, "one line: \(result.stderr)")
        }
        #expect(assumeRoleRequests(local).isEmpty, "nothing reached STS")
    }
}
