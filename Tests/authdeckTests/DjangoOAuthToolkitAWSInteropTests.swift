import Foundation
import Testing

extension InteropTests {
    /// `aws-credentials` with a session of django-oauth-toolkit whose ID tokens live 30 seconds: the ID token is due,
    /// so authdeck refreshes the session at the toolkit first and hands STS (moto's server) the ID token the refresh
    /// brought, not the one from the sign-in. The toolkit's own database counts the refresh grants.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.djangoOAuthToolkit.available))
    struct DjangoOAuthToolkitAWSInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.djangoOAuthToolkit, environment: ["INTEROP_ID_TOKEN_SECONDS": "30"])
        }

        @Test func aDueIDTokenIsRefreshedBeforeSTSIsAsked() throws {
            guard Installed.has(AWSCredentialsTests.motoPython) else {
                return Installed.skip("moto (.build/moto-venv)")
            }
            try setup.configure([
                "issuer": info.issuer, "clientID": info.publicClient, "redirectURI": info.redirectURI,
                "scopes": ["openid", "email", "profile"],
            ])
            let login = setup.login(["--session-key", "s"])
            #expect(login.status == 0, "stderr: \(login.stderr)\nbrowser: \(setup.browserSteps)")
            let first = setup.runner.run(["token", "--id-token", "s"]).stdout
            #expect(!first.isEmpty)

            let recording = setup.folder.path + "/moto-recording.jsonl"
            let moto = try AWSCredentialsTests.moto(setup.folder, recording: recording)
            let result = setup.runner.run(
                ["aws-credentials", "--role-arn", AWSCredentialsTests.role, "s"],
                environment: ["AWS_ENDPOINT_URL_STS": "http://127.0.0.1:\(moto.port)"])
            #expect(result.status == 0, "aws-credentials: \(result.stderr)")
            #expect(result.stdout.contains("\"AccessKeyId\":"))

            let rows = setup.runner.run(
                executable: "/usr/bin/sqlite3",
                [server.folder.path + "/dot.sqlite3", "SELECT count(*) FROM oauth2_provider_refreshtoken"])
            #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "one refresh grant")
            let second = setup.runner.run(["token", "--id-token", "s"]).stdout
            let refreshed = second != first  // compared as a Bool: no token in a failure message
            #expect(refreshed, "the session's ID token was replaced by the refresh")
            let sent = AWSCredentialsTests.assumeRoleRequests(recording: recording).map { $0.form["WebIdentityToken"] }
            let sentNew = sent == [second.trimmingCharacters(in: .whitespacesAndNewlines)]
            #expect(sentNew, "STS was asked once, with the refreshed ID token")
            let expiry = setup.jwtClaims(second.trimmingCharacters(in: .whitespacesAndNewlines))["exp"] as? Double
            #expect((expiry ?? 0) > Date().timeIntervalSince1970, "the ID token STS got was current")
        }
    }
}
