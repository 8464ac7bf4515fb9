import Foundation
import Testing

extension InteropTests.DjangoOAuthToolkitInteropTests {
    /// Client credentials against the toolkit: a machine session (subject: the client id), its token active at the
    /// toolkit's introspection for that client; `refresh` asks again (no refresh token) and the new token is active.
    @Test func clientCredentialsMakeAMachineSessionTheToolkitIntrospects() throws {
        let machine = try #require(info.machineClient)
        try configure(
            client: machine, ["clientSecretFile": setup.secretFile(info.clientSecret), "scopes": ["profile"]])
        let result = setup.login(["--grant", "client-credentials", "--session-key", "m"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let session = try #require(try setup.session("m"))
        #expect(session["subject"] as? String == machine)
        let introspect = info.baseURL + "/o/introspect/"
        let token = setup.token("m")
        let answer = server.introspect(introspect, token: token, client: machine, secret: info.clientSecret)
        #expect(answer.status == 200 && answer.body["active"] as? Bool == true, "\(answer)")
        #expect(answer.body["client_id"] as? String == machine)
        #expect(answer.body["scope"] as? String == "profile")

        let refreshed = setup.runner.run(["refresh", "m"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let renewed = setup.token("m")
        #expect(renewed != token)
        #expect(
            server.introspect(introspect, token: renewed, client: machine, secret: info.clientSecret)
                .body["active"] as? Bool == true)
    }
}
