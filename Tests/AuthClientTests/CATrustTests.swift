import AuthCore
import Foundation
import TestSupport
import Testing

@testable import AuthClient

/// Which certificate authorities a command trusts comes from that command's own configuration and variables, every
/// time: nothing is kept process-wide, so two commands run in one process with different variables trust what each
/// was given, and a command without a config.json still takes its SSL_CERT_FILE.
@Suite struct CATrustTests {
    let folder = TemporaryFolder()

    @Test func withoutAConfigFileTheCommandsOwnCertificateFileIsTrusted() {
        let environment = ["HOME": folder.path, "SSL_CERT_FILE": folder.path + "/bundle.pem"]
        let trust = CATrust.loaded(explicit: nil, environment: environment)
        let anchors = trust.anchors(for: "https://idp.example:8443/token")
        #expect(anchors.file == folder.path + "/bundle.pem")
        #expect(anchors.source == "SSL_CERT_FILE / SSL_CERT_DIR")
        // Another command in the same process, without the variable, trusts the system's bundle.
        let other = CATrust.loaded(explicit: nil, environment: ["HOME": folder.path])
        #expect(other.anchors(for: "https://idp.example:8443/token").file == nil)
        #expect(other.anchors(for: "https://idp.example:8443/token").source == "the system's CA bundle")
    }

    @Test func aProvidersCAFileAppliesToItsOwnOriginOnly() throws {
        let config = folder.path + "/config.json"
        try Data(
            #"{"providers": {"oidc": {"issuer": "https://idp.example:8443", "clientID": "c", "caFile": "/ca/idp.pem"}}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: config))
        let environment = ["HOME": folder.path, "SSL_CERT_DIR": "/certs"]
        let trust = CATrust.loaded(explicit: config, environment: environment)
        #expect(trust.anchors(for: "https://IDP.example:8443/authorize?x=1").file == "/ca/idp.pem")
        #expect(trust.anchors(for: "https://idp.example:8443/").source == "caFile in config.json")
        let elsewhere = trust.anchors(for: "https://idp.example/token")
        #expect(elsewhere.file == nil)
        #expect(elsewhere.directory == "/certs")
        // Reading this configuration changed nothing for a command that reads none.
        #expect(CATrust.loaded(explicit: nil, environment: ["HOME": folder.path]).byOrigin.isEmpty)
    }

    @Test func anUnreadableConfigurationAddsNoCAFile() throws {
        let config = folder.path + "/broken.json"
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: config))
        let trust = CATrust.loaded(explicit: config, environment: ["HOME": folder.path, "SSL_CERT_FILE": "/b.pem"])
        #expect(trust.byOrigin.isEmpty)
        #expect(trust.file == "/b.pem")
    }
}
