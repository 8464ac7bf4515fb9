import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real OAuth 2.0 / OpenID Connect server nobody on this project wrote, started for one test on 127.0.0.1 by its
/// script in Tests/Interop (glewlwyd from Debian; django-oauth-toolkit from the venv `make setup` builds), and
/// stopped when the test lets go of it: SIGTERM, and its standard input closing even if this process dies.
final class InteropServer: @unchecked Sendable {
    /// What the server's script printed: where it listens and what it registered.
    struct Info: Decodable {
        let baseURL: String
        let issuer: String
        let redirectURI: String
        let redirectPort: Int
        let user: String
        let email: String
        let name: String
        let subject: String?
        let publicClient: String
        let confidentialClient: String
        let clientSecret: String
        let deviceClient: String
        /// The grants without a browser: a confidential client for client credentials (both servers); glewlwyd's
        /// instance that also allows CIBA in poll mode, and its CIBA client.
        let machineClient: String?
        let grantsIssuer: String?
        let cibaClient: String?
        /// glewlwyd only: a confidential client whose secret form-encoding changes.
        let oddClient: String?
        let oddSecret: String?
        /// glewlwyd only: the issuer of its plugin instance that binds tokens with DPoP and demands nonces.
        let dpopIssuer: String?
        /// glewlwyd only: the instance that allows PAR, JAR and JARM, the one that requires PAR, and the client
        /// whose request objects it checks with the public half of `jarKeyFile`.
        let fapiIssuer: String?
        let parRequiredIssuer: String?
        let jarClient: String?
        let jarKeyFile: String?
        /// glewlwyd only: clients that authenticate with a signed JWT, and the owner-only private key files (PEM,
        /// made by openssl) whose public halves glewlwyd holds; `wrongKeyFile` is a key glewlwyd does not know.
        let rsaJWTClient: String?
        let rsaKeyFile: String?
        let rsaKeyID: String?
        let ecJWTClient: String?
        let ecKeyFile: String?
        let wrongKeyFile: String?
        let secretJWTClient: String?
        let jwtSecret: String?
        /// glewlwyd only: a confidential client (Basic, `clientSecret`) allowed to introspect its own tokens.
        let introspectionClient: String?
        /// glewlwyd over HTTPS (`serve.py --tls`): its private CA, the client registered by its certificate's DNS
        /// name (tls_client_auth) and the one registered by its self-signed certificate, and their certificates and
        /// owner-only keys (openssl's); `other…` is issued by the CA for another name, `unknown…` self-signed and
        /// registered nowhere.
        let caFile: String?
        let mtlsClient: String?
        let selfSignedClient: String?
        let clientCertificate: String?
        let clientKey: String?
        let otherCertificate: String?
        let otherKey: String?
        let selfSignedCertificate: String?
        let selfSignedKey: String?
        let unknownCertificate: String?
        let unknownKey: String?
        /// RP-Initiated Logout: the address the clients registered as a post_logout_redirect_uri; glewlwyd's instance
        /// with session management (its end_session endpoint) and the client registered with that address there.
        let postLogoutRedirectURI: String?
        let endSessionIssuer: String?
        let logoutClient: String?
        /// glewlwyd only: the instance that takes resource indicators, rich authorization requests and claims
        /// requests, its public client, and the one resource its `openid` scope allows.
        let shapeIssuer: String?
        let shapeClient: String?
        let shapeResource: String?
    }

    /// The two servers and how each is started.
    enum Kind: String {
        case glewlwyd
        case djangoOAuthToolkit = "django-oauth-toolkit"
        /// The RFC 8693 token endpoint in Tests/Interop/exchange, written from the RFC; it signs with Python's
        /// `cryptography`, and logs what each exchange request carried.
        case tokenExchange = "token-exchange"
        /// idpyoidc's authorization server (PyPI, in the venv `make setup` builds), configured in
        /// Tests/Interop/idpyoidc: client credentials, token exchange and introspection.
        case idpyoidc

        var script: String {
            let folder: String
            switch self {
            case .glewlwyd: folder = "glewlwyd"
            case .djangoOAuthToolkit: folder = "dot"
            case .tokenExchange: folder = "exchange"
            case .idpyoidc: folder = "idpyoidc"
            }
            return CLIRunner.repositoryRoot + "/Tests/Interop/" + folder + "/serve.py"
        }

        var python: String {
            switch self {
            case .djangoOAuthToolkit: return CLIRunner.repositoryRoot + "/.build/interop-venv/bin/python"
            case .idpyoidc: return CLIRunner.repositoryRoot + "/.build/exchange-venv/bin/python"
            case .glewlwyd, .tokenExchange: return "/usr/bin/python3"
            }
        }

        /// Why this server cannot run here, or nil when it can. Printed by the tests that skip.
        var missing: String? {
            switch self {
            case .glewlwyd:
                for path in [
                    "/usr/bin/glewlwyd", "/usr/bin/sqlite3", "/usr/bin/openssl",
                    "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3",
                ]
                where !FileManager.default.fileExists(atPath: path) {
                    return "\(path) is missing (make setup installs glewlwyd)"
                }
                return nil
            case .djangoOAuthToolkit:
                guard FileManager.default.isExecutableFile(atPath: python) else {
                    return "\(python) is missing (make setup builds the venv with django-oauth-toolkit)"
                }
                let check = CLIRunner(home: "/tmp").run(
                    executable: python, ["-c", "import oauth2_provider"],
                    timeout: 60)
                return check.status == 0 ? nil : "django-oauth-toolkit does not import in \(python)"
            case .idpyoidc:
                guard FileManager.default.isExecutableFile(atPath: python) else {
                    return "\(python) is missing (make setup builds the venv with idpyoidc)"
                }
                let check = CLIRunner(home: "/tmp").run(executable: python, ["-c", "import idpyoidc"], timeout: 60)
                return check.status == 0 ? nil : "idpyoidc does not import in \(python)"
            case .tokenExchange:
                let check = CLIRunner(home: "/tmp").run(executable: python, ["-c", "import cryptography"], timeout: 60)
                return check.status == 0
                    ? nil : "Python's cryptography is missing (make setup installs python3-cryptography)"
            }
        }

        /// Whether the suite runs; when not, says so on stdout once.
        var available: Bool {
            guard let missing else { return true }
            print("interop: skipped \(rawValue): \(missing)")
            return false
        }
    }

    let info: Info
    let folder: TemporaryFolder
    private let process: Process
    private let input: Pipe

    /// - Parameter arguments: after the folder, for the script (glewlwyd's `--tls`).
    /// - Parameter environment: more variables for the script (the exchange server's token lifetime).
    init(_ kind: Kind, arguments: [String] = [], environment extra: [String: String] = [:]) throws {
        folder = TemporaryFolder()
        let outputPath = folder.path + "/server.out"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process = Process()
        process.executableURL = URL(fileURLWithPath: kind.python)
        process.arguments = [kind.script, folder.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["INTEROP_CACHE"] = CLIRunner.repositoryRoot + "/.build/interop-cache"
        try? FileManager.default.createDirectory(
            atPath: environment["INTEROP_CACHE"]!,
            withIntermediateDirectories: true)
        environment.merge(extra) { $1 }
        process.environment = environment
        input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line: String?
        for _ in 0..<1200 where process.isRunning {
            if let text = try? String(contentsOfFile: outputPath, encoding: .utf8), text.contains("\n") {
                line = text.split(separator: "\n").first.map(String.init)
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let line, let decoded = try? JSONDecoder().decode(Info.self, from: Data(line.utf8)) else {
            let said = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            process.terminate()
            throw CLIFailure("\(kind.rawValue) did not start: \(said.suffix(300))")
        }
        info = decoded
    }

    /// Asks the server's UserInfo endpoint about a bearer token (given on standard input, never in arguments):
    /// the HTTP status and the JSON body.
    func userinfo(_ endpoint: String, token: String) -> (status: Int, body: [String: Any]) {
        // Over HTTPS Python trusts the server's private CA through SSL_CERT_FILE (its default context reads it).
        let result = CLIRunner(home: folder.path).run(
            executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/userinfo.py", endpoint],
            stdin: token, environment: ["SSL_CERT_FILE": info.caFile])
        let lines = result.stdout.split(separator: "\n", maxSplits: 1)
        let status = lines.first.flatMap { Int($0) } ?? -1
        let body =
            lines.count > 1
            ? (try? JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]) ?? [:] : [:]
        return (status, body ?? [:])
    }

    /// Asks a UserInfo endpoint about a DPoP-bound token with a proof (both on standard input, never in arguments):
    /// the HTTP status, the JSON body, and the `DPoP-Nonce` and `WWW-Authenticate` the server answered.
    func userinfo(
        _ endpoint: String, token: String, proof: String
    ) -> (status: Int, body: [String: Any], nonce: String, challenge: String) {
        let result = CLIRunner(home: folder.path).run(
            executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/userinfo.py", endpoint],
            stdin: token + "\n" + proof)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func line(_ index: Int) -> String { index < lines.count ? lines[index] : "" }
        let body = (try? JSONSerialization.jsonObject(with: Data(line(1).utf8)) as? [String: Any]) ?? [:]
        return (Int(line(0)) ?? -1, body ?? [:], line(2), line(3))
    }

    /// Asks an introspection endpoint (RFC 7662) about a token as `client` (HTTP Basic with `secret`; token and
    /// secret on standard input, never in arguments): the HTTP status and the JSON body.
    func introspect(_ endpoint: String, token: String, client: String, secret: String) -> (
        status: Int, body: [String: Any]
    ) {
        let result = CLIRunner(home: folder.path).run(
            executable: "/usr/bin/python3",
            [CLIRunner.repositoryRoot + "/Tests/Interop/introspect.py", endpoint, client],
            stdin: token + "\n" + secret)
        let lines = result.stdout.split(separator: "\n", maxSplits: 1)
        let body =
            lines.count > 1 ? try? JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any] : nil
        return (lines.first.flatMap { Int($0) } ?? -1, (body ?? nil) ?? [:])
    }

    /// `introspect` at the server's `/introspect` as its confidential client (the token servers without users).
    func introspectAsClient(_ token: String) -> (status: Int, body: [String: Any]) {
        introspect(
            info.baseURL + "/introspect", token: token, client: info.confidentialClient, secret: info.clientSecret)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
