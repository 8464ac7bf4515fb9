import AuthCore
import Foundation
import Testing

@testable import SessionStorage

@Suite struct SecretsCodecTests {
    @Test func roundTripsEveryField() {
        let secrets = SessionSecrets(
            accessToken: "at", refreshToken: "rt", idToken: "id", sessionJwt: "jwt",
            privateKeyHex: String(repeating: "ab", count: 32),
            refreshExpiresAt: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(SecretsCodec.decode(SecretsCodec.encode(secrets)) == secrets)
        #expect(SecretsCodec.decode(SecretsCodec.encode(SessionSecrets())) == SessionSecrets())
        #expect(
            SecretsCodec.decode(SecretsCodec.encode(SessionSecrets(accessToken: "ünïcødé")))
                == SessionSecrets(accessToken: "ünïcødé"))
    }

    /// A passkey is sealed with its session's other secrets and read back whole, its private key included.
    @Test func roundTripsAPasskey() {
        var secrets = SessionSecrets(accessToken: "at")
        secrets.passkey = PasskeyCredential(
            kind: .software, relyingPartyID: "127.0.0.1", credentialID: "Y3JlZA", userHandle: "dXNlcg",
            userName: "cleo@example.com", privateKeyHex: String(repeating: "cd", count: 32), signCount: 7)
        #expect(SecretsCodec.decode(SecretsCodec.encode(secrets)) == secrets)
        secrets.passkey?.kind = .hardware
        secrets.passkey?.privateKeyHex = nil
        #expect(SecretsCodec.decode(SecretsCodec.encode(secrets)) == secrets)
    }

    @Test func skipsFieldsFromALaterVersionAndRejectsJunk() {
        var bytes = SecretsCodec.encode(SessionSecrets(accessToken: "at"))
        bytes += [200, 3, 0, 0, 0, 1, 2, 3]
        #expect(SecretsCodec.decode(bytes) == SessionSecrets(accessToken: "at"))
        #expect(SecretsCodec.decode([]) == nil)
        #expect(SecretsCodec.decode([2]) == nil)
        #expect(SecretsCodec.decode([1, 1, 255, 255, 255, 255]) == nil, "a length past the end")
        #expect(SecretsCodec.decode([1, 1, 0]) == nil)
    }

    /// Endpoints and the Portal client are written by hand now (a JSONEncoder per session was most of an import of
    /// exported sessions); Foundation's JSONDecoder must read back exactly what was stored, and the object must say
    /// what JSONEncoder's said.
    @Test(arguments: [
        SessionEndpoints(clientID: "cli", token: "https://id.example/token"),
        SessionEndpoints(
            clientID: "cli\u{E9}nt \"q\" \\ /", token: "https://id.example/token?a=1&b=2\n",
            revocation: "https://id.example/revoke", user: "https://\u{0438}\u{0434}.example/user\u{1F600}",
            clientSecretFile: "/home/u/\u{2603}\u{0}\u{1}\t", clientSecretFileFromSignIn: true,
            tokenAuthMethod: "client_secret_basic",
            revocationAuthMethod: "none"),
        SessionEndpoints(clientID: "", token: "", revocationAuthMethod: "client_secret_post"),
        // A token exchange's session: its grant and its parent's key.
        {
            var exchanged = SessionEndpoints(clientID: "machine", token: "https://id.example/token")
            exchanged.grant = SessionEndpoints.tokenExchangeGrant
            exchanged.parentSession = "alice-main \u{2603}"
            return exchanged
        }(),
    ])
    func endpointsReadBackAsStored(_ endpoints: SessionEndpoints) throws {
        try Self.expectReadBack(SecretsCodec.endpointsJSON(endpoints), as: endpoints)
        var secrets = SessionSecrets(accessToken: "at")
        secrets.endpoints = endpoints
        #expect(SecretsCodec.decode(SecretsCodec.encode(secrets)) == secrets)
    }

    @Test(arguments: [
        PortalClientInfo(clientID: nil, isAccountAbstracted: nil),
        PortalClientInfo(clientID: "portal-1", isAccountAbstracted: nil),
        PortalClientInfo(clientID: nil, isAccountAbstracted: false),
        PortalClientInfo(clientID: "p\"\u{2603}", isAccountAbstracted: true),
    ])
    func portalClientReadsBackAsStored(_ client: PortalClientInfo) throws {
        try Self.expectReadBack(SecretsCodec.portalClientJSON(client), as: client)
    }

    /// JSONDecoder reads `written` back as `value`, and it is the object JSONEncoder makes of `value`.
    static func expectReadBack<Value: Codable & Equatable>(_ written: [UInt8], as value: Value) throws {
        #expect(try JSONDecoder().decode(Value.self, from: Data(written)) == value)
        let ours = try JSONSerialization.jsonObject(with: Data(written)) as? NSDictionary
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSDictionary
        #expect(ours != nil && ours == foundation)
    }
}
