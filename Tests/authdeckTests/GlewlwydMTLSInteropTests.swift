import Foundation
import Testing

extension InteropTests {
    /// authdeck against glewlwyd 2.7 over HTTPS (`serve.py --tls`): a private CA made by openssl for this test issued
    /// glewlwyd's server certificate and the client certificates, and glewlwyd's OpenID Connect instance takes the
    /// certificate presented in the TLS handshake as the client's authentication (RFC 8705), at the `mtls/` aliases
    /// its discovery names. authdeck trusts the private CA only through config.json's `caFile` (or, in one
    /// scenario, SSL_CERT_FILE); the scripted browser trusts it on its own (INTEROP_CA_FILE).
    @Suite(.serialized, .enabled(if: InteropServer.Kind.glewlwyd.available))
    struct GlewlwydMTLSInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }
        var userinfo: String { info.issuer + "/userinfo" }
        var browser: [String: String?] { ["INTEROP_CA_FILE": info.caFile] }

        init() throws {
            server = try InteropServer(.glewlwyd, arguments: ["--tls"])
        }

        /// config.json for a client that presents `certificate`, trusting glewlwyd's CA through caFile unless told.
        func configure(
            client: String?, method: String, certificate: String?, key: String?, caFile: Bool = true
        ) throws {
            var oidc: [String: Any] = [
                "issuer": info.issuer, "clientID": client ?? "", "redirectURI": info.redirectURI,
                "scopes": ["openid"], "tokenEndpointAuthMethod": method,
                "clientCertificateFile": certificate ?? "", "clientCertificateKeyFile": key ?? "",
            ]
            if caFile { oidc["caFile"] = info.caFile ?? "" }
            try setup.configure(oidc)
        }

        /// `x5t#S256` of a PEM certificate as Python's ssl and hashlib compute it (RFC 8705 3.1): base64url of the
        /// SHA-256 of the DER certificate.
        func thumbprint(_ certificate: String) -> String {
            let script = """
                import base64, hashlib, ssl, sys
                der = ssl.PEM_cert_to_DER_cert(open(sys.argv[1]).read())
                print(base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode())
                """
            return setup.runner.run(executable: "/usr/bin/python3", ["-c", script, certificate]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The claims of a JWT access token (glewlwyd issues them as JWTs), read without checking, as a test may.
        static func claims(_ token: String) -> [String: Any] {
            let parts = token.split(separator: ".")
            guard parts.count == 3 else { return [:] }
            var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            guard let data = Data(base64Encoded: text) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }

        /// Sign-in, the token accepted by UserInfo and bound to the certificate, refresh, revocation at the alias.
        /// Between sign-in and refresh config.json names `later` instead: the session keeps presenting the files its
        /// sign-in read (the token is bound to that certificate).
        func signInRefreshAndRevoke(
            client: String, method: String, certificate: String, key: String, later: (String?, String?)
        ) throws {
            try configure(client: client, method: method, certificate: certificate, key: key)
            let expected = thumbprint(certificate)
            #expect(expected.count == 43)
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--session-key", "m", "--trace", tracePath], environment: browser)
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session("m"))
            let token = setup.token("m")
            let answer = server.userinfo(userinfo, token: token)
            #expect(answer.status == 200)
            #expect(answer.body["sub"] as? String == session["subject"] as? String)
            // glewlwyd bound the token to the certificate it saw in the handshake (RFC 8705 3.1).
            let bound = (Self.claims(token)["cnf"] as? [String: Any])?["x5t#S256"] as? String
            #expect(bound == expected, "cnf: \(Self.claims(token)["cnf"] ?? "none")")

            // The code went to the mTLS alias with the certificate, which the trace names by its thumbprint only.
            let trace = setup.trace(tracePath)
            let tokenRequest = trace.steps.first {
                $0["kind"] as? String == "request" && ($0["summary"] as? String)?.hasSuffix("/mtls/token") == true
            }
            let presented = (tokenRequest?["details"] as? [String: Any])?["clientCertificate"] as? [String: Any]
            #expect(presented?["x5t#S256"] as? String == expected, "trace: \(trace.text.prefix(2000))")
            let keyText = try String(contentsOfFile: key, encoding: .utf8)
            let keyLine = keyText.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
            #expect(!trace.text.contains(keyLine))
            #expect(!trace.text.contains(token))

            try configure(client: client, method: method, certificate: later.0, key: later.1)
            let refreshed = setup.runner.run(["refresh", "m"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let newToken = setup.token("m")
            let rotated = newToken != token
            #expect(rotated)
            #expect(server.userinfo(userinfo, token: newToken).status == 200)
            #expect((Self.claims(newToken)["cnf"] as? [String: Any])?["x5t#S256"] as? String == expected)
            let status = setup.runner.run(["status", "m"])
            #expect(status.stdout.contains("against the server: valid"), "status: \(status.stdout)\(status.stderr)")

            let revoke = setup.runner.run(["logout", "m", "--revoke"])
            #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
            #expect(try setup.session("m") == nil)
            #expect(server.userinfo(userinfo, token: newToken).status == 401)
        }

        @Test func tlsClientAuthWithACertificateTheCAIssued() throws {
            try signInRefreshAndRevoke(
                client: try #require(info.mtlsClient), method: "tls_client_auth",
                certificate: try #require(info.clientCertificate), key: try #require(info.clientKey),
                later: (info.otherCertificate, info.otherKey))
        }

        @Test func selfSignedTLSClientAuth() throws {
            try signInRefreshAndRevoke(
                client: try #require(info.selfSignedClient), method: "self_signed_tls_client_auth",
                certificate: try #require(info.selfSignedCertificate), key: try #require(info.selfSignedKey),
                later: (info.unknownCertificate, info.unknownKey))
        }

        /// The pushed authorization request and the device grant authenticate with the certificate too, at the
        /// aliases glewlwyd's discovery names for them (`mtls/par`, `mtls/device_authorization`, `mtls/token`).
        @Test func pushedRequestsAndTheDeviceGrantGoToTheAliases() throws {
            try configure(
                client: info.mtlsClient, method: "tls_client_auth", certificate: info.clientCertificate,
                key: info.clientKey)
            for (key, arguments) in [("par", ["--par"]), ("device", ["--device"])] {
                let tracePath = setup.folder.path + "/\(key).jsonl"
                let result = setup.login(
                    ["--session-key", key, "--trace", tracePath] + arguments, environment: browser)
                #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
                #expect(server.userinfo(userinfo, token: setup.token(key)).status == 200)
                let sent = setup.trace(tracePath).steps.filter { $0["kind"] as? String == "request" }
                    .compactMap { $0["summary"] as? String }
                let alias = key == "par" ? "/mtls/par" : "/mtls/device_authorization"
                #expect(sent.contains { $0.hasSuffix(alias) }, "requests: \(sent)")
                #expect(sent.contains { $0.hasSuffix("/mtls/token") }, "requests: \(sent)")
            }
        }

        /// A certificate glewlwyd does not know for the client (the CA issued it for another name; a self-signed one
        /// registered nowhere): the code exchange is refused (exit 4), nothing is stored.
        @Test func aWrongCertificateIsRefusedAndNothingStored() throws {
            try configure(
                client: info.mtlsClient, method: "tls_client_auth", certificate: info.otherCertificate,
                key: info.otherKey)
            let other = setup.login([], environment: browser)
            #expect(other.status == 4, "stderr: \(other.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(other.stderr.contains("the provider refused"), "stderr: \(other.stderr)")
            #expect(try setup.listed().isEmpty)

            try configure(
                client: info.selfSignedClient, method: "self_signed_tls_client_auth",
                certificate: info.unknownCertificate, key: info.unknownKey)
            let unknown = setup.login([], environment: browser)
            #expect(unknown.status == 4, "stderr: \(unknown.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(unknown.stderr.contains("the provider refused"), "stderr: \(unknown.stderr)")
            #expect(try setup.listed().isEmpty)
        }

        /// glewlwyd's certificate comes from a CA only caFile names: without it the sign-in stops at discovery with
        /// one line naming the fix; SSL_CERT_FILE instead of caFile works, and `doctor` names the CA file in use.
        @Test func thePrivateCAIsTrustedOnlyThroughCAFileOrSSLCertFile() throws {
            let caFile = try #require(info.caFile)
            let origin = try #require(URLComponents(string: info.baseURL)).port.map { "https://127.0.0.1:\($0)" }
            try configure(
                client: info.mtlsClient, method: "tls_client_auth", certificate: info.clientCertificate,
                key: info.clientKey, caFile: false)
            let untrusted = setup.login([], environment: browser)
            #expect(untrusted.status != 0)
            let lines = untrusted.stderr.split(separator: "\n").filter { $0.contains("certificate") }
            #expect(lines.count == 1, "stderr: \(untrusted.stderr)")
            #expect(untrusted.stderr.contains("caFile"), "stderr: \(untrusted.stderr)")
            #expect(try setup.listed().isEmpty)

            let viaEnvironment = setup.login(
                ["--session-key", "env"], environment: browser.merging(["SSL_CERT_FILE": caFile]) { $1 })
            #expect(viaEnvironment.status == 0, "stderr: \(viaEnvironment.stderr)\nbrowser: \(setup.browserSteps)")
            let doctorEnvironment = setup.runner.run(["doctor"], environment: ["SSL_CERT_FILE": caFile])
            #expect(doctorEnvironment.stdout.contains("HTTPS trusts CA file \(caFile) (SSL_CERT_FILE)"))

            try configure(
                client: info.mtlsClient, method: "tls_client_auth", certificate: info.clientCertificate,
                key: info.clientKey)
            let doctor = setup.runner.run(["doctor"])
            #expect(doctor.stdout.contains("CA file \(caFile) (caFile) for \(origin ?? "?")"), "\(doctor.stdout)")
            // The configured certificate is checked there too: read, its key its own, valid, a method listed.
            let expected = thumbprint(try #require(info.clientCertificate))
            #expect(doctor.stdout.contains("client authentication tls_client_auth (certificate"), "\(doctor.stdout)")
            #expect(doctor.stdout.contains("x5t#S256 \(expected)"), "\(doctor.stdout)")
        }

        /// What is wrong with the certificate or its key is one line naming the fix, before anything is sent
        /// (glewlwyd's log stays without a token request), and nothing is stored: a key other users may read, a
        /// key of another certificate, a missing file, an expired certificate (made by Python's `cryptography`).
        @Test func badCertificatesAndKeysAreOneLineAndNothingIsStored() throws {
            let certificate = try #require(info.clientCertificate)
            let key = try #require(info.clientKey)
            let openKey = setup.folder.path + "/open.key"
            try FileManager.default.copyItem(atPath: key, toPath: openKey)
            chmod(openKey, 0o644)
            let expired = try expiredCertificate(key: key)
            let cases: [(certificate: String, key: String, says: String)] = [
                (certificate, openKey, "is open to other users (mode 644); chmod 600 it"),
                (certificate, try #require(info.otherKey), "is not the key of the certificate in \(certificate)"),
                (setup.folder.path + "/missing.pem", key, "cannot read the client certificate file"),
                (expired, key, "expired on 2001-01-02"),
            ]
            for (file, keyFile, says) in cases {
                try configure(client: info.mtlsClient, method: "tls_client_auth", certificate: file, key: keyFile)
                let result = setup.login([], environment: browser)
                #expect(result.status != 0)
                #expect(result.stderr.contains(says), "stderr: \(result.stderr)")
                let said = result.stderr.split(separator: "\n").filter { !$0.isEmpty }
                #expect(said.count == 1, "stderr: \(result.stderr)")
                #expect(!setup.browserSteps.contains("mtls/token"))
                #expect(try setup.listed().isEmpty)
            }
        }

        /// A certificate for the client's key that ran out on 2001-01-02, signed with that key (Python's
        /// `cryptography`, not authdeck's code).
        func expiredCertificate(key: String) throws -> String {
            let path = setup.folder.path + "/expired.pem"
            let script = """
                import datetime, sys
                from cryptography import x509
                from cryptography.hazmat.primitives import hashes, serialization
                from cryptography.x509.oid import NameOID
                key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
                name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "authdeck-expired")])
                certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                    .public_key(key.public_key()).serial_number(x509.random_serial_number())
                    .not_valid_before(datetime.datetime(2001, 1, 1)).not_valid_after(datetime.datetime(2001, 1, 2))
                    .sign(key, hashes.SHA256()))
                open(sys.argv[2], "wb").write(certificate.public_bytes(serialization.Encoding.PEM))
                """
            let made = setup.runner.run(executable: "/usr/bin/python3", ["-c", script, key, path])
            #expect(made.status == 0, "python: \(made.stderr)")
            return path
        }
    }
}
