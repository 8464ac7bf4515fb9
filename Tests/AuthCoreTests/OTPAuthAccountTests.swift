import AuthCore
import Testing

/// The account of an otpauth key URI (Google Authenticator's Key Uri Format: `otpauth://TYPE/LABEL?PARAMETERS`,
/// LABEL `issuer:account`, percent-encoded), read to name a person the backend knows only by an id.
@Suite struct OTPAuthAccountTests {
    @Test func theAccountAfterTheIssuerPrefix() {
        // The key URI format's own example.
        #expect(
            OTPAuthAccount.account(
                in: "otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP"
                    + "&issuer=Example") == "alice@google.com")
        // The sandbox's shape: issuer and account percent-encoded.
        #expect(
            OTPAuthAccount.account(
                in: "otpauth://totp/authdeck%20sandbox:dora%40example.com?secret=JBSW"
                    + "&issuer=authdeck%20sandbox") == "dora@example.com")
        // A label without an issuer prefix is all account; spaces around it are dropped.
        #expect(OTPAuthAccount.account(in: "otpauth://totp/%20dora%20?secret=X") == "dora")
    }

    @Test func nothingReadableIsNobody() {
        #expect(OTPAuthAccount.account(in: nil) == nil)
        #expect(OTPAuthAccount.account(in: "https://example.com/totp/a:b") == nil)
        #expect(OTPAuthAccount.account(in: "otpauth://totp/Issuer:?secret=X") == nil)
        #expect(OTPAuthAccount.account(in: "otpauth://totp") == nil)
        #expect(OTPAuthAccount.account(in: "otpauth://totp/Issuer:ada%1B%5B2J?secret=X") == nil)
        #expect(OTPAuthAccount.account(in: "otpauth://totp/Issuer:%ZZ?secret=X") == nil)
        // The secret is never taken for a name.
        #expect(OTPAuthAccount.account(in: "otpauth://totp/?secret=JBSWY3DPEHPK3PXP") == nil)
    }

    /// The TOTP prompt of `login` and of the TUI names the person the same way: the link's account, else the id.
    @Test func aChallengeIsShownByItsLinksAccountElseByTheBackendsName() {
        let id = "3e479fbd-0f7c-4a8e-9d51-2b6f1c0e7a93"
        let linked = TOTPChallenge(
            userJwt: "jwt", enrolmentLink: "otpauth://totp/Portal:dora%40example.com?secret=X",
            user: id)
        #expect(linked.shownUser == "dora@example.com")
        #expect(TOTPChallenge(userJwt: "jwt", enrolmentLink: nil, user: id).shownUser == id)
        #expect(TOTPChallenge(userJwt: "jwt").shownUser == nil)
    }
}
