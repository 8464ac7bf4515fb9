import Foundation
import Testing

extension InteropTests {
    /// `inspect` and `introspect` against django-oauth-toolkit: its access tokens are opaque and its ID token a
    /// JWT, and its IntrospectTokenView (named only by its RFC 8414 metadata) takes the confidential client's
    /// credentials as the token endpoint does.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.djangoOAuthToolkit.available))
    struct DjangoOAuthToolkitInspectInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.djangoOAuthToolkit)
        }

        @Test(arguments: ["client_secret_basic", "client_secret_post"])
        func introspectionWithTheConfidentialClientThenRevoked(_ method: String) throws {
            try setup.configure([
                "issuer": info.issuer, "clientID": info.confidentialClient, "redirectURI": info.redirectURI,
                "scopes": ["openid", "email", "profile"], "clientSecretFile": setup.secretFile(info.clientSecret),
                "tokenEndpointAuthMethod": method,
            ])
            let login = setup.login(["--session-key", "c"])
            try #require(login.status == 0, "stderr: \(login.stderr)\nbrowser: \(setup.browserSteps)")
            let accessToken = setup.token("c")
            let idToken = setup.runner.run(["token", "c", "--id-token"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)

            let asked = setup.runner.run(["introspect", "c", "--json"])
            #expect(asked.status == 0, "stderr: \(asked.stderr)")
            let answer = try #require(
                try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any], "\(asked.stdout)")
            #expect(answer["active"] as? Bool == true)
            #expect(answer["client_id"] as? String == info.confidentialClient)
            #expect(answer["username"] as? String == info.user)
            #expect((answer["scope"] as? String)?.split(separator: " ").contains("openid") == true)

            // The toolkit's access token is opaque; its ID token is what Python decodes, signature and all.
            let inspected = setup.runner.run(["inspect", "c", "--json"])
            #expect(inspected.status == 0, "stderr: \(inspected.stderr)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
            let tokens = document["tokens"] as? [[String: Any]] ?? []
            #expect(tokens.first { $0["name"] as? String == "access_token" }?["format"] as? String == "opaque")
            let python = setup.runner.run(
                executable: "/usr/bin/python3",
                [CLIRunner.repositoryRoot + "/Tests/Interop/jwt-claims.py", info.issuer], stdin: idToken)
            let decoded = try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [[String: Any]]
            #expect(decoded?.first?["signatureHolds"] as? Bool == true, "jwt-claims.py: \(python.stderr)")
            let idClaims = tokens.first { $0["name"] as? String == "id_token" }?["claims"] as? NSDictionary
            #expect(idClaims != nil && idClaims == decoded?.first?["claims"] as? NSDictionary)
            #expect(!inspected.stdout.contains(accessToken) && !inspected.stdout.contains(idToken))

            // Kept as an import line, revoked and removed, then imported again: the toolkit says it is inactive.
            var line = try #require(try setup.session("c"))
            line["accessToken"] = accessToken
            line["endpoints"] = [
                "clientID": info.confidentialClient, "token": info.issuer + "/token/", "tokenAuthMethod": method,
            ]
            let revoked = setup.runner.run(["logout", "c", "--revoke"])
            try #require(revoked.status == 0, "stderr: \(revoked.stderr)")
            let imported = setup.runner.run(
                ["store", "import", "-"],
                stdin: String(decoding: try JSONSerialization.data(withJSONObject: line), as: UTF8.self) + "\n")
            try #require(imported.status == 0, "stderr: \(imported.stderr)")
            let after = setup.runner.run(["introspect", "c"])
            #expect(after.status == 4, "stdout: \(after.stdout)\nstderr: \(after.stderr)")
            #expect(after.stderr == "authdeck introspect: the provider says the access token of 'c' is not active\n")
            #expect(after.stdout == "active  false\n")
        }
    }
}
