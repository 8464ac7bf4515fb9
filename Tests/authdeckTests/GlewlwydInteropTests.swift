import Foundation
import Testing

extension InteropTests {
    /// authdeck against glewlwyd 2.7 (Debian's package), started by each test on 127.0.0.1 with its own SQLite
    /// database and configured through its admin API: signed in through its login and grant APIs, as its login page
    /// does.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.glewlwyd.available))
    struct GlewlwydInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }
        var userinfo: String { info.issuer + "/userinfo" }

        init() throws {
            server = try InteropServer(.glewlwyd)
        }

        /// The public client, its redirect URI registered with a fixed port (glewlwyd takes only registered ones).
        func configurePublic(_ extra: [String: Any] = [:]) throws {
            try setup.configure(
                [
                    "issuer": info.issuer, "clientID": info.publicClient, "redirectURI": info.redirectURI,
                    "scopes": ["openid"],
                ].merging(extra) { $1 })
        }

        @Test func browserLoginRefreshAndAGlewlwydThatRefusesPublicRevocation() throws {
            try configurePublic()
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--session-key", "g", "--trace", tracePath])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session("g"))
            #expect(session["issuer"] as? String == info.issuer)
            #expect(session["email"] as? String == info.email)
            let token = setup.token("g")
            let answer = server.userinfo(userinfo, token: token)
            #expect(answer.status == 200)
            // The subject glewlwyd names for the token is the one stored.
            #expect(answer.body["sub"] as? String == session["subject"] as? String)
            #expect((session["subject"] as? String)?.isEmpty == false)

            // The trace names every step but carries no code, token or verifier.
            let trace = setup.trace(tracePath)
            #expect(!trace.text.contains(token))
            #expect(trace.steps.contains { $0["kind"] as? String == "receiver" })
            for name in ["code", "code_verifier", "access_token", "refresh_token", "id_token"] {
                for value in InteropLogin.values(named: name, in: trace.steps) {
                    #expect(value.hasPrefix("[redacted"), "\(name) in the trace: \(value.prefix(12))…")
                }
            }

            let refreshed = setup.runner.run(["refresh", "g"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let newToken = setup.token("g")
            #expect(newToken != token && server.userinfo(userinfo, token: newToken).status == 200)

            // glewlwyd lists only client_secret_basic for revocation and refuses a public client there: authdeck says
            // the provider refused (exit 4) and keeps the session rather than dropping tokens that still work.
            let revoke = setup.runner.run(["logout", "g", "--revoke"])
            #expect(revoke.status == 4, "stderr: \(revoke.stderr)")
            #expect(revoke.stderr.contains("the provider refused: 40"))
            #expect(revoke.stderr.contains("nothing was removed"))
            #expect(try setup.session("g") != nil)
        }

        @Test func confidentialClientWithBasicThenRevokedForGood() throws {
            let secret = setup.secretFile(info.clientSecret)
            try setup.configure([
                "issuer": info.issuer, "clientID": info.confidentialClient,
                "clientSecretFile": secret,
                "redirectURI": info.redirectURI, "scopes": ["openid"],
            ])
            let result = setup.login(["--session-key", "c"])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let token = setup.token("c")
            #expect(server.userinfo(userinfo, token: token).status == 200)
            #expect(setup.runner.run(["refresh", "c"]).status == 0)
            let current = setup.token("c")
            let revoke = setup.runner.run(["logout", "c", "--revoke"])
            #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
            #expect(try setup.session("c") == nil)
            #expect(server.userinfo(userinfo, token: current).status == 401)
        }

        @Test func confidentialClientRegisteredForBasicRefusesTheSecretInTheBody() throws {
            // The client is registered with token_endpoint_auth_method client_secret_basic; config.json asks for the
            // body form: glewlwyd refuses the code exchange (403), authdeck names the refusal (exit 4) and stores
            // nothing.
            let secret = setup.secretFile(info.clientSecret)
            try setup.configure([
                "issuer": info.issuer, "clientID": info.confidentialClient,
                "clientSecretFile": secret,
                "redirectURI": info.redirectURI, "scopes": ["openid"],
                "tokenEndpointAuthMethod": "client_secret_post",
            ])
            let result = setup.login(["--session-key", "p"])
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("the provider refused: 403"))
            #expect(try setup.listed().isEmpty)
        }

        @Test func aSecretThatFormEncodingChangesIsRefusedByGlewlwyd() throws {
            // RFC 6749 2.3.1: Basic carries the form-encoded id and secret. glewlwyd compares them undecoded, so this
            // client's secret (a space, a colon, + / %) never matches there: authdeck fails safely, naming the
            // refusal, and stores nothing. django-oauth-toolkit takes the same secret (its suite).
            let secret = setup.secretFile(try #require(info.oddSecret))
            try setup.configure([
                "issuer": info.issuer, "clientID": try #require(info.oddClient),
                "clientSecretFile": secret, "redirectURI": info.redirectURI, "scopes": ["openid"],
            ])
            let result = setup.login([])
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("the provider refused: 403"))
            #expect(try setup.listed().isEmpty)
        }

        @Test func deviceGrantApprovedAtGlewlwyd() throws {
            try configurePublic()
            let result = setup.login(["--device", "--session-key", "d"])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session("d"))
            let answer = server.userinfo(userinfo, token: setup.token("d"))
            #expect(answer.status == 200)
            #expect(answer.body["sub"] as? String == session["subject"] as? String)
        }

        /// A JWT-authenticated client's whole life at glewlwyd: sign-in (the code exchange carries the assertion),
        /// the token accepted by glewlwyd's UserInfo, a refresh, and a revocation after which UserInfo refuses the
        /// token. glewlwyd checks each assertion's signature with the key it holds, iss = sub = the client, aud = the
        /// endpoint's URL, exp and a jti it has not seen.
        func signInRefreshAndRevoke(
            client: String, extra: [String: Any], arguments: [String] = [], key: String
        ) throws {
            try setup.configure(
                [
                    "issuer": info.issuer, "clientID": client, "redirectURI": info.redirectURI, "scopes": ["openid"],
                ].merging(extra) { $1 })
            let tracePath = setup.folder.path + "/trace-\(key).jsonl"
            let result = setup.login(["--session-key", key, "--trace", tracePath] + arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let token = setup.token(key)
            #expect(server.userinfo(userinfo, token: token).status == 200)
            let trace = setup.trace(tracePath)
            let assertions = trace.steps.filter { $0["kind"] as? String == "client_assertion" }
            #expect(!assertions.isEmpty, "no client_assertion step in the trace")
            for value in InteropLogin.values(named: "client_assertion", in: trace.steps) {
                #expect(value.hasPrefix("[redacted"), "client_assertion in the trace: \(value.prefix(12))…")
            }
            let refreshed = setup.runner.run(["refresh", key])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let current = setup.token(key)
            #expect(current != token && server.userinfo(userinfo, token: current).status == 200)
            let revoke = setup.runner.run(["logout", key, "--revoke"])
            #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
            #expect(try setup.session(key) == nil)
            #expect(server.userinfo(userinfo, token: current).status == 401)
        }

        @Test func privateKeyJWTWithAnRSAKeyAndItsKid() throws {
            try signInRefreshAndRevoke(
                client: try #require(info.rsaJWTClient),
                extra: ["tokenEndpointAuthMethod": "private_key_jwt"],
                arguments: [
                    "--private-key-file", try #require(info.rsaKeyFile), "--key-id", try #require(info.rsaKeyID),
                ], key: "rsa")
        }

        @Test func privateKeyJWTWithAP256KeyFromConfig() throws {
            try signInRefreshAndRevoke(
                client: try #require(info.ecJWTClient),
                extra: ["tokenEndpointAuthMethod": "private_key_jwt", "privateKeyFile": try #require(info.ecKeyFile)],
                key: "ec")
        }

        @Test func clientSecretJWT() throws {
            let secret = setup.secretFile(try #require(info.jwtSecret))
            try signInRefreshAndRevoke(
                client: try #require(info.secretJWTClient),
                extra: ["clientSecretFile": secret], arguments: ["--auth-method", "client_secret_jwt"], key: "hs")
        }

        @Test func aKeyGlewlwydDoesNotHoldIsRefusedAndNothingIsStored() throws {
            // The RSA client's own kid, signed with another key: glewlwyd's signature check fails, the code exchange
            // is refused, authdeck names the refusal (exit 4) and stores nothing.
            try setup.configure([
                "issuer": info.issuer, "clientID": try #require(info.rsaJWTClient), "redirectURI": info.redirectURI,
                "scopes": ["openid"], "tokenEndpointAuthMethod": "private_key_jwt",
                "privateKeyFile": try #require(info.wrongKeyFile), "keyID": try #require(info.rsaKeyID),
            ])
            let result = setup.login(["--session-key", "wrong"])
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("the provider refused: 40"), "stderr: \(result.stderr)")
            #expect(try setup.listed().isEmpty)
        }

        @Test func fixedPortInUseIsNamedBeforeTheBrowserOpensAndDoctorAgrees() throws {
            try configurePublic()
            let doctor = setup.runner.run(["doctor", "--json"])
            #expect(doctor.stdout.contains("redirect URI \(info.redirectURI) accepted"), "doctor: \(doctor.stdout)")

            let holder = try PortHolder(port: UInt16(info.redirectPort))
            let busy = setup.login(["--timeout", "10"])
            #expect(busy.status == 1, "stderr: \(busy.stderr)")
            #expect(busy.stderr.contains("port \(info.redirectPort)") && busy.stderr.contains("in use"))
            #expect(setup.browserSteps.isEmpty)
            let busyDoctor = setup.runner.run(["doctor", "--json"])
            #expect(busyDoctor.stdout.contains("port \(info.redirectPort)"), "doctor: \(busyDoctor.stdout)")
            #expect(busyDoctor.status != 0)
            holder.close()

            // Without the registered redirect URI the login listens on a free port glewlwyd does not know: it refuses
            // the authorize request (HTTP 403), nothing comes back, and doctor said so before.
            try setup.configure(["issuer": info.issuer, "clientID": info.publicClient, "scopes": ["openid"]])
            let unregistered = setup.runner.run(["doctor", "--json"])
            #expect(unregistered.stdout.contains("refused redirect URI"), "doctor: \(unregistered.stdout)")
            let timedOut = setup.login(["--timeout", "5"])
            #expect(timedOut.status == 6, "stderr: \(timedOut.stderr)")
        }
    }
}
