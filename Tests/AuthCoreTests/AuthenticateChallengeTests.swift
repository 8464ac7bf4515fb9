import AuthCore
import Testing

/// `WWW-Authenticate` read as RFC 9110 section 11.6.1 defines it, with the RFCs' own examples as vectors: several
/// challenges in one value, quoted strings with escapes, token68; and RFC 9470's step-up challenge found in it.
@Suite struct AuthenticateChallengeTests {
    /// RFC 9110 11.6.1's example: two challenges, the second with a quoted-pair in a quoted string.
    @Test func rfc9110ExampleIsTwoChallenges() throws {
        let header = #"Basic realm="simple", Newauth realm="apps", type=1, title="Login to \"apps\"""#
        let challenges = try #require(AuthenticateChallenge.parse(header))
        #expect(
            challenges == [
                AuthenticateChallenge(scheme: "Basic", parameters: [("realm", "simple")]),
                AuthenticateChallenge(
                    scheme: "Newauth", parameters: [("realm", "apps"), ("type", "1"), ("title", #"Login to "apps""#)]),
            ])
    }

    /// RFC 9470 section 3's two examples, folded as the RFC prints them (the folds are list whitespace).
    @Test func rfc9470ExamplesAskForAcrAndMaxAge() throws {
        let acr = """
            Bearer error="insufficient_user_authentication",
              error_description="A different authentication level is required",
              acr_values="myACR"
            """.replacingOccurrences(of: "\n", with: "")
        let recent = """
            Bearer error="insufficient_user_authentication",
              error_description="More recent authentication is required",
              max_age="5"
            """.replacingOccurrences(of: "\n", with: "")
        #expect(
            StepUpChallenge.find(in: acr)
                == StepUpChallenge(
                    acrValues: ["myACR"], errorDescription: "A different authentication level is required"))
        #expect(
            StepUpChallenge.find(in: recent)
                == StepUpChallenge(maxAge: 5, errorDescription: "More recent authentication is required"))
    }

    /// The Bearer challenge may come after another scheme's, and an RFC 6750 error that is not the step-up one is
    /// no step-up challenge.
    @Test func stepUpIsFoundAmongChallengesAndOnlyForItsError() {
        let header = #"Basic realm="x", Bearer realm="api", error="insufficient_user_authentication", acr_values="a b""#
        #expect(StepUpChallenge.find(in: header)?.acrValues == ["a", "b"])
        #expect(StepUpChallenge.find(in: #"Bearer error="invalid_token", acr_values="a""#) == nil)
        #expect(StepUpChallenge.find(in: #"Basic realm="insufficient_user_authentication""#) == nil)
    }

    /// RFC 9110 11.3's token68 and 11.2's whitespace around `=`, empty list elements, and case-insensitive names.
    @Test func token68WhitespaceAndEmptyElements() throws {
        let challenges = try #require(AuthenticateChallenge.parse(" ,Negotiate abc+/==, , Bearer  REALM = \"r\" ,"))
        #expect(challenges.count == 2)
        #expect(challenges[0].token68 == "abc+/==")
        #expect(challenges[1]["realm"] == "r")
    }

    /// What does not follow the grammar is refused whole rather than read in part.
    @Test func malformedValuesAreRefused() {
        #expect(AuthenticateChallenge.parse(#"Bearer error="unterminated"#) == nil)
        #expect(AuthenticateChallenge.parse(#"Bearer error="x" junk"#) == nil)
        #expect(AuthenticateChallenge.parse(#"Bearer error="x\"#) == nil)
    }

    /// The command offered names the session and what was asked, quoted for a shell.
    @Test func commandQuotesWhatTheResourceAsked() {
        let challenge = StepUpChallenge(acrValues: ["urn:mace:incommon:iap:silver", "mfa"], maxAge: 300)
        #expect(
            challenge.command(key: "work")
                == "authdeck login --step-up work --acr-values 'urn:mace:incommon:iap:silver mfa' --max-age 300")
        #expect(StepUpChallenge(acrValues: ["$(x)"]).command(key: "a b").contains("'a b' --acr-values '$(x)'"))
    }
}
