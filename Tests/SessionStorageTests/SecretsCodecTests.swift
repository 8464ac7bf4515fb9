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

    @Test func skipsFieldsFromALaterVersionAndRejectsJunk() {
        var bytes = SecretsCodec.encode(SessionSecrets(accessToken: "at"))
        bytes += [200, 3, 0, 0, 0, 1, 2, 3]
        #expect(SecretsCodec.decode(bytes) == SessionSecrets(accessToken: "at"))
        #expect(SecretsCodec.decode([]) == nil)
        #expect(SecretsCodec.decode([2]) == nil)
        #expect(SecretsCodec.decode([1, 1, 255, 255, 255, 255]) == nil, "a length past the end")
        #expect(SecretsCodec.decode([1, 1, 0]) == nil)
    }
}
