import AuthClient
import AuthCore
import Foundation
import Testing

/// Refresh and revocation of stored sessions: the client authentication the sign-in chose, and endpoints a session
/// lacks taken from today's configuration only for the issuer it came from.
@Suite struct SessionRefresherTests {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("refresher-\(UUID().uuidString)")

    func session(issuer: String = "https://idp.test", endpoints: SessionEndpoints) -> Session {
        let record = SessionRecord(
            key: "k", backend: "direct", provider: "oidc", subject: "u", issuer: issuer,
            createdAt: Date(), expiresAt: nil, refreshable: true, scopes: ["openid"])
        return Session(
            record: record,
            secrets: SessionSecrets(
                accessToken: "at", refreshToken: "rt",
                endpoints: endpoints))
    }

    func secretFile() throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("secret").path
        try Data("sec\n".utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    @Test func aRevocationEndpointAddedLaterWorksForTheSameIssuerOnly() throws {
        let transport = ScriptedTransport(["https://idp.test/revoke": (200, "")])
        let stored = session(endpoints: SessionEndpoints(clientID: "cli", token: "https://idp.test/token"))
        let today = ProviderEndpoints(
            issuer: "https://idp.test", authorization: "https://idp.test/a",
            token: "https://idp.test/token", revocation: "https://idp.test/revoke")
        let current = CurrentProvider(endpoints: today)
        try SessionRefresher(transport: transport, currentProvider: { _ in current }).revoke(stored)
        #expect(transport.requests.map { ScriptedTransport.form($0)["token"] } == ["rt", "at"])

        var elsewhere = today
        elsewhere.issuer = "https://other.test"
        let moved = CurrentProvider(endpoints: elsewhere)
        let untouched = ScriptedTransport([:])
        #expect(throws: SignInError.self) {
            try SessionRefresher(transport: untouched, currentProvider: { _ in moved }).revoke(stored)
        }
        #expect(untouched.requests.isEmpty)
    }

    @Test func refreshUsesTheMethodTheSignInChose() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try secretFile()
        let answer = #"{"access_token":"at-2"}"#
        let basic = ScriptedTransport(["https://idp.test/token": (200, answer)])
        _ = try SessionRefresher(transport: basic).refresh(
            session(
                endpoints: SessionEndpoints(
                    clientID: "cli", token: "https://idp.test/token", clientSecretFile: file,
                    clientSecretFileFromSignIn: true, tokenAuthMethod: "client_secret_basic")))
        #expect(ScriptedTransport.header(basic.requests[0], "Authorization") != nil)
        #expect(ScriptedTransport.form(basic.requests[0])["client_secret"] == nil)

        // A sign-in that read its file but recorded no method sent the secret in the body, and keeps doing so.
        let old = ScriptedTransport(["https://idp.test/token": (200, answer)])
        _ = try SessionRefresher(transport: old).refresh(
            session(
                endpoints: SessionEndpoints(
                    clientID: "cli", token: "https://idp.test/token", clientSecretFile: file,
                    clientSecretFileFromSignIn: true)))
        #expect(ScriptedTransport.form(old.requests[0])["client_secret"] == "sec")
        #expect(ScriptedTransport.header(old.requests[0], "Authorization") == nil)
    }

    /// A session stored before sign-ins marked their secret files may have come from an import that named any
    /// readable file and its own token endpoint: that file is never read. The configured client for the session's
    /// issuer refreshes it, at the configured endpoint; with none, it refreshes as a public client.
    @Test func aSecretFileNotMarkedAsTheSignInsOwnIsNeverRead() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let canary = try secretFile()
        let planted = session(
            endpoints: SessionEndpoints(
                clientID: "cli", token: "https://evil.test/token", clientSecretFile: canary,
                tokenAuthMethod: "client_secret_post"))
        let answer = #"{"access_token":"at-2"}"#
        let bare = ScriptedTransport(["https://evil.test/token": (200, answer)])
        _ = try SessionRefresher(transport: bare).refresh(planted)
        #expect(bare.requests.count == 1)
        #expect(ScriptedTransport.form(bare.requests[0])["client_secret"] == nil)
        #expect(ScriptedTransport.header(bare.requests[0], "Authorization") == nil)
        #expect(!String(decoding: bare.requests[0].body, as: UTF8.self).contains("sec"))

        let configured = CurrentProvider(
            endpoints: ProviderEndpoints(
                issuer: "https://idp.test", authorization: "https://idp.test/a", token: "https://idp.test/token"),
            clientID: "cli", authentication: .secret("configured-secret"))
        let transport = ScriptedTransport(["https://idp.test/token": (200, answer)])
        _ = try SessionRefresher(transport: transport, currentProvider: { _ in configured }).refresh(planted)
        #expect(transport.requests.map(\.url) == ["https://idp.test/token"])
        #expect(ScriptedTransport.form(transport.requests[0])["client_secret"] == "configured-secret")
    }

    @Test func aSessionWithoutItsOwnSecretTakesTheConfiguredOneOnlyToTheConfiguredEndpoints() throws {
        // As an import leaves it: the line's own endpoints, no secret file.
        let imported = session(
            endpoints: SessionEndpoints(
                clientID: "cli", token: "https://evil.test/token", revocation: "https://evil.test/revoke",
                tokenAuthMethod: "client_secret_post"))
        let configured = CurrentProvider(
            endpoints: ProviderEndpoints(
                issuer: "https://idp.test", authorization: "https://idp.test/a", token: "https://idp.test/token",
                revocation: "https://idp.test/revoke"),
            clientID: "cli", authentication: .secret("sec"))
        let transport = ScriptedTransport([
            "https://idp.test/token": (200, #"{"access_token":"at-2"}"#), "https://idp.test/revoke": (200, ""),
        ])
        let refresher = SessionRefresher(transport: transport, currentProvider: { _ in configured })
        _ = try refresher.refresh(imported)
        try refresher.revoke(imported)
        #expect(
            transport.requests.map(\.url) == [
                "https://idp.test/token", "https://idp.test/revoke", "https://idp.test/revoke",
            ])
        #expect(transport.requests.allSatisfy { ScriptedTransport.form($0)["client_secret"] == "sec" })

        // Configured for another issuer: the session's own endpoints, without a secret.
        var elsewhere = configured
        elsewhere.endpoints.issuer = "https://other.test"
        let moved = elsewhere
        let bare = ScriptedTransport(["https://evil.test/token": (200, #"{"access_token":"at-2"}"#)])
        _ = try SessionRefresher(transport: bare, currentProvider: { _ in moved }).refresh(imported)
        #expect(bare.requests.map(\.url) == ["https://evil.test/token"])
        #expect(ScriptedTransport.form(bare.requests[0])["client_secret"] == nil)
        #expect(ScriptedTransport.header(bare.requests[0], "Authorization") == nil)
    }
}
