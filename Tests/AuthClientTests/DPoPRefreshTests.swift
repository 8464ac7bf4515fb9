import AuthClient
import AuthCore
import Foundation
import Testing

/// A DPoP session's refresh: the request carries a proof of the session's key for the token endpoint, and an answer
/// that names `token_type` Bearer is refused (RFC 9449 section 5: the token would not be bound) with the session
/// kept as it was.
@Suite struct DPoPRefreshTests {
    static let keyHex = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
    static let tokenURL = "https://idp.test/token"

    func session() -> Session {
        let record = SessionRecord(
            key: "d", backend: "direct", provider: "oidc", subject: "s", issuer: "https://idp.test",
            createdAt: Date(), expiresAt: Date(), refreshable: true)
        var secrets = SessionSecrets(
            accessToken: "AT-old", refreshToken: "RT-old",
            endpoints: SessionEndpoints(clientID: "cli", token: Self.tokenURL, tokenAuthMethod: "none"))
        secrets.dpopKeyHex = Self.keyHex
        secrets.tokenType = "DPoP"
        return Session(record: record, secrets: secrets)
    }

    @Test func aBearerAnswerToADPoPRefreshIsRefused() {
        let transport = ScriptedTransport([
            Self.tokenURL: (200, #"{"access_token":"AT-new","token_type":"Bearer","expires_in":60}"#)
        ])
        #expect {
            try SessionRefresher(transport: transport).refresh(session())
        } throws: { error in
            let message = (error as? SignInError)?.message ?? ""
            return message.contains("RFC 9449 section 5") && message.contains("kept as it was")
        }
        let proof = transport.requests.first.flatMap { ScriptedTransport.header($0, "DPoP") }
        #expect(proof?.split(separator: ".").count == 3)
    }

    @Test func aDPoPAnswerIsKept() throws {
        let transport = ScriptedTransport([
            Self.tokenURL: (200, #"{"access_token":"AT-new","token_type":"DPoP","expires_in":60}"#)
        ])
        let refreshed = try SessionRefresher(transport: transport).refresh(session())
        #expect(refreshed.secrets.accessToken == "AT-new" && refreshed.secrets.dpopKeyHex == Self.keyHex)
        #expect(refreshed.secrets.tokenType == "DPoP")
    }
}
