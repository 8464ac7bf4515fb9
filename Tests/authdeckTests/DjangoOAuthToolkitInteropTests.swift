import Foundation
import Testing

extension InteropTests {
    /// authdeck against django-oauth-toolkit 3.4 (PyPI, in the venv `make setup` builds), a small Django project in
    /// Tests/Interop/dot started by each test on 127.0.0.1: signed in through the toolkit's own login and consent
    /// forms.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.djangoOAuthToolkit.available))
    struct DjangoOAuthToolkitInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }
        var userinfo: String { info.baseURL + "/o/userinfo/" }

        init() throws {
            server = try InteropServer(.djangoOAuthToolkit)
        }

        func configure(client: String, _ extra: [String: Any] = [:]) throws {
            try setup.configure(
                [
                    "issuer": info.issuer, "clientID": client, "redirectURI": info.redirectURI,
                    "scopes": ["openid", "email", "profile"],
                ].merging(extra) { $1 })
        }

        @Test func browserLoginWithIdentityFromUserInfoRotationAndRevocation() throws {
            try configure(client: info.publicClient)
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--session-key", "d", "--trace", tracePath])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session("d"))
            // The toolkit's ID token names only `sub`; email and name come from its UserInfo (OIDC Core 5.4).
            #expect(session["subject"] as? String == info.subject)
            #expect(session["email"] as? String == info.email)
            #expect(session["issuer"] as? String == info.issuer)
            let token = setup.token("d")
            #expect(server.userinfo(userinfo, token: token).status == 200)
            // No code, token or verifier in the trace: each such field is redacted, the token nowhere.
            let trace = setup.trace(tracePath)
            #expect(!trace.text.contains(token))
            for name in ["code", "code_verifier", "access_token", "refresh_token", "id_token"] {
                for value in InteropLogin.values(named: name, in: trace.steps) {
                    #expect(value.hasPrefix("[redacted"), "\(name) in the trace: \(value.prefix(12))…")
                }
            }

            // The toolkit rotates refresh tokens and revokes the old one at once: a second refresh works only when the
            // rotated one was kept.
            for _ in 0..<2 {
                let refreshed = setup.runner.run(["refresh", "d"])
                #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            }
            let current = setup.token("d")
            #expect(current != token && server.userinfo(userinfo, token: current).status == 200)

            // The toolkit's OIDC discovery names no revocation endpoint; its RFC 8414 metadata (mounted at the origin
            // as its docs ask) does, and authdeck reads it.
            let revoke = setup.runner.run(["logout", "d", "--revoke"])
            #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
            #expect(server.userinfo(userinfo, token: current).status == 401)
            #expect(try setup.listed().isEmpty)
        }

        @Test(arguments: ["client_secret_basic", "client_secret_post"])
        func confidentialClient(_ method: String) throws {
            // The secret has a space, a colon, + / and %: Basic sends it form-encoded (RFC 6749 2.3.1), which the
            // toolkit decodes; a client that skipped the encoding would be refused here.
            let secret = setup.secretFile(info.clientSecret)
            try configure(
                client: info.confidentialClient,
                ["clientSecretFile": secret, "tokenEndpointAuthMethod": method])
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--session-key", "c", "--trace", tracePath])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(server.userinfo(userinfo, token: setup.token("c")).status == 200)
            let trace = setup.trace(tracePath).text
            #expect(!trace.contains("s3cret"))
            #expect(trace.contains("Basic [redacted]") == (method == "client_secret_basic"))
            #expect(setup.runner.run(["refresh", "c"]).status == 0)
        }

        @Test func deviceGrantWithoutAnIDToken() throws {
            // The toolkit's discovery names no device endpoint: config.json names it. Its device grant brings no ID
            // token (RFC 8628 promises none), so the identity comes from UserInfo.
            try configure(
                client: info.deviceClient,
                ["deviceAuthorizationEndpoint": info.baseURL + "/o/device-authorization/"])
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--device", "--session-key", "dev", "--trace", tracePath])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session("dev"))
            #expect(session["subject"] as? String == info.subject)
            #expect(session["email"] as? String == info.email)
            let kinds = setup.trace(tracePath).steps.compactMap { $0["kind"] as? String }
            #expect(!kinds.contains("id_token"), "the toolkit sent an ID token after all")
        }

        @Test func deniedConsentIsTheProvidersRefusal() throws {
            try configure(client: info.publicClient)
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--trace", tracePath], environment: ["INTEROP_DECISION": "deny"])
            #expect(result.status == 4, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(result.stderr.contains("access denied at the provider"))
            #expect(try setup.listed().isEmpty)
            let receiver = setup.trace(tracePath).steps.first { $0["kind"] as? String == "receiver" }
            let details = receiver?["details"] as? [String: Any]
            #expect(details?["error"] as? String == "access_denied")
        }

        @Test func doctorAgreesWithTheLoginOnTheRegisteredPort() throws {
            try configure(client: info.publicClient)
            let doctor = setup.runner.run(["doctor", "--json"])
            #expect(doctor.stdout.contains("redirect URI \(info.redirectURI) accepted"), "doctor: \(doctor.stdout)")
            #expect(setup.login([]).status == 0)
        }
    }
}
