import AuthCore
import Foundation
import TestSupport
import Testing

@testable import AuthClient

/// Mutual TLS's certificate and key as authdeck reads, checks and presents them, against peers it did not write:
/// certificates made by openssl, thumbprints and handshakes by Python's `ssl` and `hashlib`, and discovery text
/// shaped as RFC 8705 section 5 shows it.
@Suite struct ClientCertificateTests {
    let folder = TemporaryFolder()

    /// A self-signed certificate and its owner-only key from openssl; returns (certificate, key).
    func certificate(_ name: String, subject: String, san: String? = nil) throws -> (String, String) {
        let pem = folder.path + "/\(name).pem"
        let key = folder.path + "/\(name).key"
        var arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", pem, "-subj", subject, "-days", "2",
        ]
        if let san { arguments += ["-addext", "subjectAltName=\(san)"] }
        let made = try Program.run("/usr/bin/openssl", arguments, quiet: true)
        #expect(made.status == 0)
        chmod(key, 0o600)
        return (pem, key)
    }

    /// `x5t#S256` as Python computes it: base64url of the SHA-256 of the DER certificate (RFC 8705 3.1).
    func pythonThumbprint(_ pem: String) throws -> String {
        let script = """
            import base64, hashlib, ssl, sys
            der = ssl.PEM_cert_to_DER_cert(open(sys.argv[1]).read())
            print(base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode())
            """
        return try Program.run("/usr/bin/python3", ["-c", script, pem]).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theThumbprintIsPythonsAndTheDescriptionNamesNoKey() throws {
        let (pem, key) = try certificate("client", subject: "/CN=authdeck-unit")
        let loaded = try ClientCertificate.load(method: .tlsClientAuth, certificateFile: pem, keyFile: key)
        #expect(loaded.thumbprint == (try pythonThumbprint(pem)))
        #expect(loaded.certificate.subject.contains("authdeck-unit"))
        #expect(loaded.certificate.isSelfSigned)
        let keyBody = try String(contentsOfFile: key, encoding: .utf8).split(separator: "\n")[1]
        #expect(!"\(loaded)".contains(keyBody))
        #expect(!"\(ClientAuthentication.certificate(loaded))".contains(keyBody))
    }

    /// RFC 8705 section 5's `mtls_endpoint_aliases`: the aliases replace the plain endpoints for a client that
    /// presents a certificate, except those the operator named; a document without them changes nothing.
    @Test func mtlsAliasesReplaceTheEndpointsTheyName() throws {
        let document = try JSONValue.parse(
            Array(
                """
                {"issuer": "https://server.example.com",
                 "authorization_endpoint": "https://server.example.com/authz",
                 "token_endpoint": "https://server.example.com/token",
                 "revocation_endpoint": "https://server.example.com/revo",
                 "userinfo_endpoint": "https://server.example.com/userinfo",
                 "mtls_endpoint_aliases": {
                   "token_endpoint": "https://mtls.example.com/token",
                   "revocation_endpoint": "https://mtls.example.com/revo",
                   "introspection_endpoint": "https://mtls.example.com/introspect"}}
                """.utf8))
        let endpoints = try ProviderEndpoints.fromDiscovery(document, expectedIssuer: "https://server.example.com")
        let aliased = endpoints.usingMTLSAliases()
        #expect(aliased.token == "https://mtls.example.com/token")
        #expect(aliased.revocation == "https://mtls.example.com/revo")
        #expect(aliased.userinfo == "https://server.example.com/userinfo")
        #expect(aliased.authorization == "https://server.example.com/authz")
        let kept = endpoints.usingMTLSAliases(keep: ["token_endpoint"])
        #expect(kept.token == "https://server.example.com/token")
        #expect(kept.revocation == "https://mtls.example.com/revo")
        var plain = endpoints
        plain.mtlsAliases = nil
        #expect(plain.usingMTLSAliases() == plain)
    }

    /// A TLS server in Python that requires a client certificate (CERT_REQUIRED, trusting the client's self-signed
    /// one) and answers the SHA-256 thumbprint of the certificate it received: UserInfo requests of a certificate
    /// client present it, and a request without it never completes the handshake.
    @Test func userInfoPresentsTheCertificateTheTokenIsBoundTo() throws {
        let server = try certificate("server", subject: "/CN=127.0.0.1", san: "IP:127.0.0.1")
        let client = try certificate("client", subject: "/CN=authdeck-unit")
        let portFile = folder.path + "/port"
        let script = """
            import base64, hashlib, http.server, json, ssl, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    der = self.connection.getpeercert(binary_form=True)
                    x5t = base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b"=").decode()
                    # HTTP/1.0: the answer ends with the connection, no length needed.
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"sub": "bound", "x5t": x5t}).encode())
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(sys.argv[3])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            open(sys.argv[4], "w").write(str(server.server_address[1]))
            server.serve_forever()
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, server.0, server.1, client.0, portFile]
        python.standardError = FileHandle.nullDevice
        try python.run()
        defer {
            // SIGKILL: the test runner's threads may block SIGTERM, and the child inherits that mask.
            kill(python.processIdentifier, SIGKILL)
            python.waitUntilExit()
        }
        var port: String?
        for _ in 0..<200 where port == nil {
            port = try? String(contentsOfFile: portFile, encoding: .utf8)
            if port?.isEmpty == true { port = nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let origin = "https://127.0.0.1:\(try #require(port))"
        let transport = CurlTransport(timeout: 5, trust: CATrust(byOrigin: [origin: server.0]))
        let loaded = try ClientCertificate.load(
            method: .selfSignedTLSClientAuth, certificateFile: client.0, keyFile: client.1)
        let identity = try UserEndpoint.identity(
            provider: "oidc", accessToken: "unit-token", endpoint: origin + "/userinfo", transport: transport,
            certificate: loaded)
        #expect(identity.subject == "bound")
        var request = OutgoingRequest(url: origin + "/userinfo")
        request.clientCertificate = loaded
        let answer = try JSONValue.parse(transport.send(request).body)
        #expect(answer["x5t"]?.string == (try pythonThumbprint(client.0)))
        // Without the certificate the server ends the handshake: no answer, an error naming the host.
        #expect(throws: SignInError.self) {
            try UserEndpoint.identity(
                provider: "oidc", accessToken: "unit-token", endpoint: origin + "/userinfo", transport: transport)
        }
    }
}
