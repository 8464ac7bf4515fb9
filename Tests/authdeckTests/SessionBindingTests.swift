import AuthCore
import Foundation
import TestSupport
import Testing

@testable import AuthdeckCommands

/// What Details says a session's token is bound to, worked out from what the session keeps: for mutual TLS the
/// certificate it signed in with, named by the SHA-256 thumbprint that openssl computes here (RFC 8705 3.1's
/// `x5t#S256`: base64url of the SHA-256 of the DER certificate).
@Suite struct SessionBindingTests {
    @Test func aCertificateBoundSessionShowsItsCertificatesThumbprint() throws {
        let folder = TemporaryFolder()
        let certificate = folder.path + "/client.pem"
        let key = folder.path + "/client.key"
        let made = try Program.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "2", "-subj", "/CN=authdeck-binding-test",
            ], quiet: true)
        try #require(made.status == 0)
        let shell = "openssl x509 -in '\(certificate)' -outform DER | openssl dgst -sha256 -binary | basenc --base64url"
        let digest = try Program.run("/bin/sh", ["-c", shell], quiet: true)
        let expected = digest.text.trimmingCharacters(in: .whitespacesAndNewlines)
            .trimmingCharacters(in: CharacterSet(charactersIn: "="))
        try #require(expected.count == 43)

        var endpoints = SessionEndpoints(clientID: "cli", token: "https://idp.test/token")
        endpoints.tokenAuthMethod = "tls_client_auth"
        endpoints.clientCertificateFile = certificate
        endpoints.clientCertificateKeyFile = key
        let session = Session(
            record: SessionRecord(
                key: "m", backend: "direct", provider: "oidc", subject: "s", issuer: "https://idp.test",
                createdAt: Date(), expiresAt: nil, refreshable: true),
            secrets: SessionSecrets(accessToken: "AT", endpoints: endpoints))

        let binding = TUISignInWords.binding(session)
        #expect(binding.certificateThumbprint == expected)
        #expect(binding.clientAuthMethod == "tls_client_auth")

        // Without a certificate there is nothing to name.
        endpoints.clientCertificateFile = nil
        let plain = Session(record: session.record, secrets: SessionSecrets(accessToken: "AT", endpoints: endpoints))
        #expect(TUISignInWords.binding(plain).certificateThumbprint == nil)
    }
}
