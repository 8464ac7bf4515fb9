import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// TOTP seeds of test accounts: sealed like session secrets, listed without the key, removed cleanly.
@Suite struct TestAccountSeedTests {
    @Test func seedsAreSealedListedAndRemoved() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        let secret = try #require(Base32.decode("JBSWY3DPEHPK3PXP"))
        try store.storeTOTPSeed(TestAccountSeed(user: "dora", secret: secret), replace: false)
        try store.storeTOTPSeed(
            TestAccountSeed(user: "bob", secret: [1, 2, 3, 4, 5], digits: 8, period: 60),
            replace: false)
        #expect(throws: StoreError.keyTaken("dora")) {
            try store.storeTOTPSeed(TestAccountSeed(user: "dora", secret: [9]), replace: false)
        }
        let listed = try store.totpSeedList()
        #expect(listed.map(\.user) == ["bob", "dora"])
        #expect(listed.allSatisfy { $0.secret.isEmpty })
        #expect(listed.first?.digits == 8)
        let dora = try #require(try store.totpSeed(user: "dora"))
        #expect(dora.secret == secret)
        let now = Date(timeIntervalSince1970: 59)
        #expect(dora.code(at: now) == TOTP.code(secret: secret, time: 59))
        #expect(try store.totpSeed(user: "nobody") == nil)
        #expect(try store.removeTOTPSeed(user: "bob"))
        #expect(try !store.removeTOTPSeed(user: "bob"))
        #expect(try store.totpSeedList().map(\.user) == ["dora"])

        // The seed is never in the database file in clear.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: fixture.databasePath + "-wal"))) ?? Data()
        for data in [bytes, wal] {
            #expect(data.range(of: Data(secret)) == nil)
            #expect(data.range(of: Data("JBSWY3DPEHPK3PXP".utf8)) == nil)
        }
    }

    @Test func aSeedCannotBeReadAsAnotherUsersOrAsASession() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        try store.storeTOTPSeed(TestAccountSeed(user: "dora", secret: [7, 7, 7]), replace: false)
        // Swap the sealed secret onto another user's row: the associated data no longer matches.
        try store.storeTOTPSeed(TestAccountSeed(user: "eve", secret: [1]), replace: false)
        try store.database.execute(
            """
            UPDATE totp_seeds SET secret = (SELECT secret FROM totp_seeds WHERE user = 'dora') WHERE user = 'eve'
            """)
        #expect(throws: StoreError.self) { try store.totpSeed(user: "eve") }
        #expect(try store.totpSeed(user: "dora")?.secret == [7, 7, 7])
    }

    @Test func otpauthLinksAreRead() throws {
        let uri = try OTPAuthURI(
            "otpauth://totp/Sandbox:dora%40example.com?secret=JBSWY3DPEHPK3PXP"
                + "&issuer=Sandbox&digits=8&period=60&algorithm=sha256")
        #expect(uri.account == "dora@example.com")
        #expect(uri.issuer == "Sandbox")
        #expect(uri.digits == 8 && uri.period == 60 && uri.algorithm == "SHA256")
        #expect(throws: OTPAuthURI.Failure.notOTPAuth) { try OTPAuthURI("otpauth://hotp/x?secret=A") }
        #expect(throws: OTPAuthURI.Failure.missingSecret) { try OTPAuthURI("otpauth://totp/x?issuer=A") }
        #expect(throws: OTPAuthURI.Failure.unsupported("digit count")) {
            try OTPAuthURI("otpauth://totp/x?secret=A&digits=12")
        }
    }
}
