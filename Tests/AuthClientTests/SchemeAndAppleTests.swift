import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

/// The custom-scheme receiver end to end over its Unix socket, and Apple's ES256 client-secret JWT.
@Suite struct SchemeAndAppleTests {
    /// A sign-in started as soon as the last one reports its end (the TUI's `R` after a cancel) gets the
    /// authdeck:// socket: the ended attempt let go of it before it reported.
    @Test func theNextSignInGetsTheSchemeSocketTheEndedOneHeld() throws {
        let folder = NSTemporaryDirectory() + "authdeck-scheme-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = folder + "/authdeck/callback.sock"
        let provider = try TestProvider()
        for round in 0..<3 {
            let presenter = RecordingPresenter()
            let controller = SignInController(
                report: presenter.report, persist: PersistedSessions().persist,
                receivers: ReceiverOptions(schemeSocketPath: socket), browser: nil)
            controller.start(provider.directSignIn(), timeout: 60)
            _ = try #require(presenter.waitForBegin())
            #expect(
                presenter.receivers.contains { $0.hasPrefix("authdeck:// (") }, "round \(round): \(presenter.receivers)"
            )
            controller.cancel()
            _ = presenter.waitForEnd()
        }
    }

    @Test func anAuthdeckSchemeRedirectHandedOverCompletesTheFlow() throws {
        let folder = NSTemporaryDirectory() + "authdeck-scheme-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = folder + "/authdeck/callback.sock"
        let provider = try TestProvider()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let backend = provider.directSignIn()
        let controller = SignInController(
            report: presenter.report, persist: stored.persist,
            receivers: ReceiverOptions(schemeSocketPath: socket), browser: nil)
        controller.start(backend, timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let code = provider.issueCode(nonce: attempt.nonce, challenge: PKCE.challenge(for: attempt.codeVerifier))
        #expect(
            try SchemeReceiver.handOver("authdeck://callback?code=\(code)&state=forged", socketPath: socket)
                != .accepted)
        #expect(
            try SchemeReceiver.handOver(
                "https://evil.example/?code=\(code)&state=\(attempt.state)",
                socketPath: socket) != .accepted)
        #expect(
            try SchemeReceiver.handOver(
                "authdeck://callback?code=\(code)&state=\(attempt.state)",
                socketPath: socket) == .accepted)
        guard case .success? = presenter.waitForEnd() else {
            Issue.record("the flow did not complete")
            return
        }
        #expect(stored.count == 1)
    }

    @Test func appleClientSecretIsAnES256JWTFromTheOperatorsKey() throws {
        let folder = NSTemporaryDirectory() + "authdeck-apple-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keyFile = folder + "/AuthKey_TEST.p8"
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/bin/sh")
        generate.arguments = [
            "-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt > '\(keyFile)'",
        ]
        try generate.run()
        generate.waitUntilExit()
        let pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let secret = try AppleClientSecret.make(
            teamID: "TEAM123", clientID: "com.example.cli", keyID: "KEY123",
            privateKeyFile: keyFile, now: now)
        let key = try JWK(p256: try P256PrivateKey(pemRepresentation: pem), keyID: "KEY123")
        let verified = try JWS.verify(secret, key: key)
        #expect(verified.algorithm == "ES256")
        #expect(verified.keyID == "KEY123")
        let claims = try JSONValue.parse(verified.payload)
        #expect(claims["iss"]?.string == "TEAM123")
        #expect(claims["sub"]?.string == "com.example.cli")
        #expect(claims["aud"]?.string == "https://appleid.apple.com")
        #expect(claims["iat"]?.number == 1_800_000_000)
        #expect((claims["exp"]?.number ?? 0) > 1_800_000_000)
        // Another key does not verify it.
        #expect(throws: CryptoError.self) { try JWS.verify(secret, key: try JWK.generateES256(keyID: "KEY123")) }
        #expect(throws: SignInError.self) {
            try AppleClientSecret.make(
                teamID: "T", clientID: "c", keyID: "k", privateKeyFile: folder + "/missing.p8",
                now: now)
        }
    }
}
