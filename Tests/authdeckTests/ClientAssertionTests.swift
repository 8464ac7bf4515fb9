import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `private_key_jwt` and `client_secret_jwt` from the command line: the assertion authdeck sends, checked by Python's
/// `cryptography` (Fixtures/assertion-verifier.py) with the expected values Python works out itself (its own URL, the
/// test's client id and kid); and the key files it refuses, each with one line naming the fix and nothing stored.
@Suite struct ClientAssertionTests {
    let setup = InteropLogin()

    /// A new private key made by openssl, owner-only, and its public half.
    func key(_ name: String, _ genpkey: [String]) throws -> (file: String, publicFile: String) {
        let file = setup.folder.path + "/" + name
        let made = setup.runner.run(executable: "/usr/bin/openssl", ["genpkey"] + genpkey + ["-out", file])
        #expect(made.status == 0, "openssl: \(made.stderr)")
        chmod(file, 0o600)
        let publicFile = file + ".pub"
        let exported = setup.runner.run(
            executable: "/usr/bin/openssl", ["pkey", "-in", file, "-pubout", "-out", publicFile])
        #expect(exported.status == 0, "openssl: \(exported.stderr)")
        return (file, publicFile)
    }

    static let rsa = ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
    static let p256 = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]

    /// Endpoints on `port`, given in config.json so no discovery is asked for.
    func configure(port: Int, _ extra: [String: Any]) throws {
        let base = "http://127.0.0.1:\(port)"
        try setup.configure(
            [
                "issuer": base + "/issuer", "clientID": "python-checked", "authorizationEndpoint": base + "/authorize",
                "tokenEndpoint": base + "/token", "deviceAuthorizationEndpoint": base + "/device", "scopes": ["openid"],
            ].merging(extra) { $1 })
    }

    /// The device authorization request carries the assertion; the verifier answers invalid_client, so the sign-in
    /// ends there (exit 4) with nothing stored, and its log says what it found.
    func verified(_ key: (file: String, publicFile: String), kid: String, audience: String, _ extra: [String: Any])
        throws -> [[String: Any]]
    {
        let log = setup.folder.path + "/assertions-\(audience).log"
        let server = try ScriptServer(
            fixture: "assertion-verifier.py", arguments: [key.publicFile, "python-checked", kid, audience, log],
            folder: setup.folder, runner: setup.runner)
        try configure(port: server.port, extra)
        let result = setup.login(["--device"])
        #expect(result.status == 4, "stderr: \(result.stderr)")
        #expect(try setup.listed().isEmpty)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func pythonVerifiesAPS256AssertionWithItsKidAddressedToTheEndpoint() throws {
        guard Installed.pythonHasCryptography() else { return Installed.skip("python3-cryptography") }
        let rsa = try key("rsa.pem", Self.rsa)
        let lines = try verified(
            rsa, kid: "kid-ps", audience: "endpoint",
            [
                "tokenEndpointAuthMethod": "private_key_jwt", "privateKeyFile": rsa.file, "keyID": "kid-ps",
                "signingAlg": "PS256",
            ])
        let line = try #require(lines.first, "the verifier got no request")
        #expect(line["path"] as? String == "/device")
        #expect(line["alg"] as? String == "PS256")
        #expect(line["kid"] as? String == "kid-ps")
        #expect((line["problems"] as? [String]) == [], "problems: \(line["problems"] ?? "?")")
    }

    @Test func pythonVerifiesAnES256AssertionAddressedToTheIssuer() throws {
        guard Installed.pythonHasCryptography() else { return Installed.skip("python3-cryptography") }
        let ec = try key("ec.pem", Self.p256)
        let lines = try verified(
            ec, kid: "-", audience: "issuer",
            ["privateKeyFile": ec.file, "assertionAudience": "issuer"])
        let line = try #require(lines.first, "the verifier got no request")
        #expect(line["alg"] as? String == "ES256")
        #expect(line["kid"] == nil || line["kid"] is NSNull)
        #expect((line["problems"] as? [String]) == [], "problems: \(line["problems"] ?? "?")")
    }

    // MARK: - Refused before anything is sent

    /// One line on stderr naming `fix`, a usage/config failure, nothing stored.
    func refused(_ arguments: [String], _ extra: [String: Any], naming fix: String) throws {
        try configure(port: 9, extra)
        let result = setup.login(arguments)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(fix), "stderr: \(result.stderr)")
        #expect(try setup.listed().isEmpty)
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        let rsa = try key("open.pem", Self.rsa)
        chmod(rsa.file, 0o644)
        try refused(["--private-key-file", rsa.file], [:], naming: "is open to other users (mode 644); chmod 600 it")
    }

    @Test func anEncryptedKeyIsRefused() throws {
        let file = setup.folder.path + "/encrypted.pem"
        let made = setup.runner.run(
            executable: "/usr/bin/openssl",
            ["genpkey"] + Self.p256 + ["-aes256", "-pass", "pass:secret-pass", "-out", file])
        #expect(made.status == 0, "openssl: \(made.stderr)")
        chmod(file, 0o600)
        try refused(["--private-key-file", file], [:], naming: "the PEM key is encrypted")
    }

    @Test func garbageAndPublicKeysAndOtherCurvesAreRefused() throws {
        let garbage = setup.folder.write("garbage.pem", "not a key at all\n")
        try refused(["--private-key-file", garbage], [:], naming: "give an unencrypted PEM RSA")
        let rsa = try key("pub.pem", Self.rsa)
        let publicCopy = setup.folder.write("public.pem", try String(contentsOfFile: rsa.publicFile, encoding: .utf8))
        try refused(["--private-key-file", publicCopy], [:], naming: "not the private key")
        let p384 = try key("p384.pem", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        try refused(["--private-key-file", p384.file], [:], naming: "P-256")
        let ec = try key("ec.pem", Self.p256)
        try refused(
            ["--private-key-file", ec.file], ["signingAlg": "PS256"], naming: "signingAlg PS256 does not fit")
    }

    @Test func mutualTLSWithoutBothCertificateFilesIsRefused() throws {
        try refused(
            ["--auth-method", "tls_client_auth"], [:], naming: "needs a client certificate and its key")
        try refused(
            ["--auth-method", "self_signed_tls_client_auth"], [:], naming: "needs a client certificate and its key")
        let certificate = setup.folder.write("client.pem", "-----BEGIN CERTIFICATE-----\n")
        try refused(
            ["--client-certificate", certificate], [:],
            naming: "needs both clientCertificateFile and clientCertificateKeyFile")
    }
}
