import AuthClient
import Testing

/// A redirect URI no receiver of authdeck can get is told as soon as the attempt begins.
@Suite struct RedirectReachTests {
    static let loopback = "http://127.0.0.1:40123/callback"

    @Test(arguments: [
        "http://127.0.0.1:40123/callback",
        "http://localhost:40123/callback",
        "authdeck://callback",
        "https://oauth-origin.example/?scheme=authdeck",
    ])
    func aRedirectAReceiverGetsIsFine(_ uri: String) {
        #expect(RedirectReach.problem(redirectURI: uri, loopback: Self.loopback, schemeReceiver: true) == nil)
    }

    @Test(arguments: [
        (
            "https://wrong.example/callback",
            "reaches none of authdeck's receivers (http://127.0.0.1:40123/callback, "
                + "authdeck://)"
        ),
        ("http://127.0.0.1:40124/callback", "is not where the loopback receiver listens"),
        ("http://127.0.0.1:40123/cb", "is not where the loopback receiver listens"),
        ("com.example.app:/oauth", "reaches none of authdeck's receivers"),
    ])
    func aRedirectNoReceiverGetsIsNamed(_ uri: String, _ expected: String) throws {
        let problem = try #require(
            RedirectReach.problem(
                redirectURI: uri, loopback: Self.loopback,
                schemeReceiver: true))
        #expect(problem.contains(expected), "\(problem)")
        #expect(!problem.contains("\n"))
    }

    @Test func authdeckSchemeWithoutItsReceiverIsNamed() throws {
        let problem = try #require(
            RedirectReach.problem(
                redirectURI: "authdeck://callback", loopback: Self.loopback,
                schemeReceiver: false))
        #expect(problem.contains("whose receiver is not running"))
    }

    @Test func queryParametersNeverReachTheMessage() throws {
        let problem = try #require(
            RedirectReach.problem(
                redirectURI: "https://wrong.example/cb?secret=abc",
                loopback: Self.loopback, schemeReceiver: true))
        #expect(!problem.contains("abc"))
    }
}
