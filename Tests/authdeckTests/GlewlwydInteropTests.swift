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

        /// RFC 9207 with glewlwyd's `oauth-as-iss-id`: its redirect carries `iss` (seen by the browser on the way),
        /// which authdeck checks and takes; the same redirect with another issuer's `iss`, as a mix-up brings it,
        /// ends the sign-in (exit 4) before any token request, with nothing stored. glewlwyd's discovery does not
        /// promise `iss` (no `authorization_response_iss_parameter_supported`), so a redirect stripped of it is
        /// still taken: the rule is "checked whenever present, required only when promised".
        @Test func theRedirectsIssuerIsCheckedAndAMixUpIsRefused() throws {
            try configurePublic()
            let tracePath = setup.folder.path + "/trace.jsonl"
            let signedIn = setup.login(["--session-key", "iss", "--trace", tracePath])
            #expect(signedIn.status == 0, "stderr: \(signedIn.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(setup.browserSteps.contains("iss [\"\(info.issuer)\"]"), "browser: \(setup.browserSteps)")
            #expect(server.userinfo(userinfo, token: setup.token("iss")).status == 200)
            let receiver = setup.trace(tracePath).steps.first { $0["kind"] as? String == "receiver" }
            #expect((receiver?["details"] as? [String: Any])?["iss"] as? String == info.issuer)
            #expect(setup.runner.run(["logout", "iss"]).status == 0)

            let mixUpTrace = setup.folder.path + "/mixup.jsonl"
            let mixedUp = setup.login(
                ["--session-key", "mixup", "--trace", mixUpTrace],
                environment: ["INTEROP_REWRITE_ISS": "https://attacker.example/as"])
            #expect(mixedUp.status == 4, "stderr: \(mixedUp.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(mixedUp.stderr.contains("The response came from another issuer"), "stderr: \(mixedUp.stderr)")
            #expect(mixedUp.stderr.contains("https://attacker.example/as"))
            #expect(try setup.listed().isEmpty)
            let steps = setup.trace(mixUpTrace).steps
            #expect(steps.contains { $0["kind"] as? String == "receiver" })
            #expect(!steps.contains { ($0["summary"] as? String)?.hasSuffix("/token") == true })

            let discovery = setup.runner.run(
                executable: "/usr/bin/python3",
                [
                    "-c", "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                    info.issuer + "/.well-known/openid-configuration",
                ]
            ).stdout
            #expect(discovery.contains("\"issuer\""))
            #expect(!discovery.contains("authorization_response_iss_parameter_supported"))
            let stripped = setup.login(["--session-key", "stripped"], environment: ["INTEROP_REWRITE_ISS": "-"])
            #expect(stripped.status == 0, "stderr: \(stripped.stderr)\nbrowser: \(setup.browserSteps)")
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

        /// glewlwyd's DPoP plugin instance demands a nonce in every proof: the sign-in answers its 400
        /// `use_dpop_nonce` with one retry, the token it issues is bound (`cnf.jkt`) to the session's key, its
        /// UserInfo takes a proof printed by `dpop-proof` (after its own 401 nonce demand), and refresh and
        /// revocation go through with proofs too. Python's `cryptography` checks the proof on its own terms.
        @Test func dpopSignInWithMandatoryNonceUserInfoRefreshAndRevoke() throws {
            let issuer = try #require(info.dpopIssuer)
            let dpopUserinfo = issuer + "/userinfo"
            try setup.configure([
                "issuer": issuer, "clientID": info.confidentialClient,
                "clientSecretFile": setup.secretFile(info.clientSecret), "redirectURI": info.redirectURI,
                "scopes": ["openid"], "dpop": true,
            ])
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login(["--session-key", "dp", "--trace", tracePath])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let status = setup.runner.run(["status", "dp"])
            #expect(status.stdout.contains("token type:     DPoP"), "status: \(status.stdout)")

            // The token endpoint asked for a nonce once, and the retry carried it.
            let trace = setup.trace(tracePath)
            let answers = trace.steps.filter { $0["kind"] as? String == "response" }
            let demand = answers.first { ($0["details"] as? [String: Any])?["status"] as? Double == 400 }
            let demandBody = (demand?["details"] as? [String: Any])?["body"] as? [String: Any]
            #expect(demandBody?["error"] as? String == "use_dpop_nonce", "trace: \(trace.text.prefix(3000))")
            let proofs = InteropLogin.proofClaims(in: trace.steps)
            #expect(proofs.count >= 2 && proofs[0]["nonce"] == nil && proofs[1]["nonce"] != nil)
            // The trace shows each proof decoded and never whole (no signature), nor the key's private part.
            #expect(!trace.text.contains("\"d\":"))
            #expect(Self.dpopHeaders(in: trace.steps).isEmpty)

            let token = setup.token("dp")
            func proof(_ arguments: [String] = []) -> String {
                let run = setup.runner.run(["dpop-proof", "dp", "--method", "GET", "--url", dpopUserinfo] + arguments)
                #expect(run.status == 0, "stderr: \(run.stderr)")
                return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let first = proof()
            let check = setup.runner.run(
                executable: "/usr/bin/python3",
                [CLIRunner.repositoryRoot + "/Tests/Interop/dpop-check.py", "GET", dpopUserinfo],
                stdin: token + "\n" + first)
            #expect(check.stdout == "ok\n", "python: \(check.stdout)\(check.stderr)")

            // The proof carries the nonce the token endpoint last sent, which glewlwyd's UserInfo takes too.
            let answered = server.userinfo(dpopUserinfo, token: token, proof: first)
            #expect(answered.status == 200, "challenge: \(answered.challenge)")
            #expect(answered.body["sub"] as? String == (try setup.session("dp"))?["subject"] as? String)
            // A Bearer presentation of the bound token is refused.
            #expect(server.userinfo(dpopUserinfo, token: token).status != 200)

            let refreshed = setup.runner.run(["refresh", "dp"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let newToken = setup.token("dp")
            #expect(newToken != token)
            // A stale nonce: UserInfo answers 401 naming use_dpop_nonce with its own, and `--nonce` takes that one.
            let demanded = server.userinfo(dpopUserinfo, token: newToken, proof: proof(["--nonce", "stale-nonce"]))
            #expect(demanded.status == 401 && demanded.challenge.contains("use_dpop_nonce") && !demanded.nonce.isEmpty)
            let afterRefresh = server.userinfo(
                dpopUserinfo, token: newToken, proof: proof(["--nonce", demanded.nonce]))
            #expect(afterRefresh.status == 200, "challenge: \(afterRefresh.challenge)")

            let lastProof = proof()
            let revoke = setup.runner.run(["logout", "dp", "--revoke"])
            #expect(revoke.status == 0, "stderr: \(revoke.stderr)")
            #expect(try setup.session("dp") == nil)
            // Revoked: refused for the token itself, before any nonce is asked for.
            let revoked = server.userinfo(dpopUserinfo, token: newToken, proof: lastProof)
            #expect(revoked.status == 401 && !revoked.challenge.contains("use_dpop_nonce"))
        }

        /// The `DPoP` header values a trace's requests show as text: none, since each proof is shown decoded.
        static func dpopHeaders(in steps: [[String: Any]]) -> [String] {
            steps.compactMap { (($0["details"] as? [String: Any])?["headers"] as? [String: Any])?["DPoP"] as? String }
        }

        /// A sign-in at one of the other instances, the session stored under `key`: its access token is accepted by
        /// that instance's UserInfo and it refreshes there.
        func signsIn(_ key: String, issuer: String, _ arguments: [String] = [], trace: String? = nil) throws {
            let extra = trace.map { ["--trace", $0] } ?? []
            let result = setup.login(["--session-key", key] + arguments + extra)
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let session = try #require(try setup.session(key))
            #expect(session["issuer"] as? String == issuer)
            let answer = server.userinfo(issuer + "/userinfo", token: setup.token(key))
            #expect(answer.status == 200)
            #expect(answer.body["sub"] as? String == session["subject"] as? String)
            let refreshed = setup.runner.run(["refresh", key])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            #expect(server.userinfo(issuer + "/userinfo", token: setup.token(key)).status == 200)
        }

        @Test func pushedAuthorizationRequestSendsTheBrowserOnlyTheRequestURI() throws {
            let issuer = try #require(info.fapiIssuer)
            try configurePublic(["issuer": issuer])
            let tracePath = setup.folder.path + "/trace.jsonl"
            try signsIn("par", issuer: issuer, ["--par"], trace: tracePath)
            // glewlwyd answered the push with its request_uri, and the browser carried only that and the client id.
            let trace = setup.trace(tracePath)
            let pushed = try #require(pushedBody(trace.steps), "trace: \(trace.text)")
            #expect(pushed["code_challenge"] != nil && pushed["redirect_uri"] != nil)
            let query = try authorizeParameters(trace.steps)
            #expect(Set(query.keys) == ["client_id", "request_uri"], "authorize: \(query)")
            #expect((query["request_uri"] as? String)?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
        }

        /// The form the trace shows POSTed to a PAR endpoint.
        func pushedBody(_ steps: [[String: Any]]) -> [String: Any]? {
            let step = steps.first {
                $0["kind"] as? String == "request" && ($0["summary"] as? String)?.hasSuffix("/par") == true
            }
            return (step?["details"] as? [String: Any])?["body"] as? [String: Any]
        }

        /// The parameters the trace shows the browser was sent to the authorization endpoint with.
        func authorizeParameters(_ steps: [[String: Any]]) throws -> [String: Any] {
            let authorize = try #require(steps.first { $0["kind"] as? String == "authorize" })
            return try #require((authorize["details"] as? [String: Any])?["parameters"] as? [String: Any])
        }

        @Test func discoveryThatRequiresPushedRequestsGetsThemWithoutAFlag() throws {
            let issuer = try #require(info.parRequiredIssuer)
            try configurePublic(["issuer": issuer])
            let tracePath = setup.folder.path + "/trace.jsonl"
            try signsIn("required", issuer: issuer, trace: tracePath)
            let query = try authorizeParameters(setup.trace(tracePath).steps)
            #expect(Set(query.keys) == ["client_id", "request_uri"], "authorize: \(query)")
        }

        @Test func pushedRequestsAskedOfAProviderWithoutThemSendNothing() throws {
            try configurePublic(["pushedAuthorizationRequests": true])
            let result = setup.login([])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("names no pushed_authorization_request_endpoint"))
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
            #expect(setup.browserSteps.isEmpty)
            #expect(try setup.listed().isEmpty)
        }

        func configureSigned(issuer: String, _ extra: [String: Any] = [:]) throws {
            try setup.configure(
                [
                    "issuer": issuer, "clientID": try #require(info.jarClient),
                    "clientSecretFile": setup.secretFile(info.clientSecret), "redirectURI": info.redirectURI,
                    "scopes": ["openid"], "privateKeyFile": try #require(info.jarKeyFile),
                ].merging(extra) { $1 })
        }

        @Test func signedRequestObjectByValueAndThroughPAR() throws {
            let issuer = try #require(info.fapiIssuer)
            try configureSigned(issuer: issuer)
            // By value: glewlwyd checks the object's signature with the client's registered public key. The trace
            // shows the object decoded, without its signature: iss the client, aud the issuer.
            let byValue = setup.folder.path + "/by-value.jsonl"
            try signsIn("jar", issuer: issuer, ["--request-object"], trace: byValue)
            let object = try #require(try authorizeParameters(setup.trace(byValue).steps)["request"] as? [String: Any])
            let claims = try #require(object["claims"] as? [String: Any])
            #expect(claims["iss"] as? String == info.jarClient && claims["aud"] as? String == issuer)
            #expect((claims["code_challenge"] as? String)?.hasSuffix("…") == true)
            #expect((object["header"] as? [String: Any])?["typ"] as? String == "oauth-authz-req+jwt")
            #expect(!setup.trace(byValue).text.contains("signature"))
            // Pushed: the object goes to the PAR endpoint with the client's Basic authentication (named: a key file
            // alone would make it private_key_jwt).
            let pushed = setup.folder.path + "/pushed.jsonl"
            try configureSigned(
                issuer: issuer,
                [
                    "requestObject": "signed", "pushedAuthorizationRequests": true,
                    "tokenEndpointAuthMethod": "client_secret_basic",
                ])
            try signsIn("jar-par", issuer: issuer, trace: pushed)
            let body = try #require(pushedBody(setup.trace(pushed).steps))
            #expect(Set(body.keys) == ["client_id", "request"], "body: \(body)")
        }

        @Test func signedRequestObjectWithAnotherKeyIsRefusedByGlewlwyd() throws {
            let issuer = try #require(info.fapiIssuer)
            let other = setup.folder.path + "/other.key"
            let made = try Program.run(
                "/usr/bin/openssl",
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", other])
            #expect(made.status == 0)
            chmod(other, 0o600)
            try configureSigned(issuer: issuer, ["privateKeyFile": other, "requestObject": "signed"])
            let result = setup.login(["--timeout", "10"])
            #expect(result.status != 0, "stderr: \(result.stderr)")
            #expect(try setup.listed().isEmpty)
        }

        @Test func jwtSecuredResponseSignsIn() throws {
            let issuer = try #require(info.fapiIssuer)
            try configurePublic(["issuer": issuer, "responseMode": "jwt"])
            let tracePath = setup.folder.path + "/trace.jsonl"
            try signsIn("jarm", issuer: issuer, trace: tracePath)
            // The response glewlwyd signed is in the trace decoded, its code redacted and no signature.
            let trace = setup.trace(tracePath)
            let decoded = try #require(trace.steps.first { ($0["summary"] as? String)?.contains("JARM") == true })
            let claims = try #require((decoded["details"] as? [String: Any])?["claims"] as? [String: Any])
            #expect(claims["iss"] as? String == issuer)
            #expect((claims["code"] as? String)?.hasPrefix("[redacted") == true)
        }

        @Test func jwtSecuredResponseWithABadSignatureIsRefusedAndNothingStored() throws {
            let issuer = try #require(info.fapiIssuer)
            try configurePublic(["issuer": issuer, "responseMode": "jwt"])
            let result = setup.login(["--session-key", "bad"], environment: ["INTEROP_CORRUPT_RESPONSE": "1"])
            #expect(setup.browserSteps.contains("corrupted the response signature"), "\(setup.browserSteps)")
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("signed response"), "stderr: \(result.stderr)")
            #expect(try setup.listed().isEmpty)
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

        /// glewlwyd's discovery document for `issuer`, fetched by Python.
        func discovery(_ issuer: String) throws -> [String: Any] {
            let text = setup.runner.run(
                executable: "/usr/bin/python3",
                [
                    "-c", "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                    issuer + "/.well-known/openid-configuration",
                ]
            ).stdout
            return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }

        /// `doctor --json`'s lines for provider oidc.
        func doctorLines() throws -> [[String: Any]] {
            let doctor = setup.runner.run(["doctor", "--json"])
            let lines = try #require(
                try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [[String: Any]])
            return lines.filter { $0["area"] as? String == "provider oidc" }
        }

        /// doctor names, per glewlwyd instance, the protocols its discovery offers that config.json does not use, and
        /// fails each setting the discovery lacks. What is offered is read here from glewlwyd's own document.
        @Test func doctorSaysWhatEachInstanceOffersAndWhatItLacks() throws {
            let instances = [info.issuer, try #require(info.fapiIssuer), try #require(info.dpopIssuer)]
            for issuer in instances {
                let document = try discovery(issuer)
                var offered: [String] = []
                if document["pushed_authorization_request_endpoint"] is String {
                    offered.append("PAR (pushedAuthorizationRequests)")
                }
                if (document["dpop_signing_alg_values_supported"] as? [String])?.contains("ES256") == true {
                    offered.append("DPoP (dpop)")
                }
                if (document["response_modes_supported"] as? [String])?.contains("jwt") == true {
                    offered.append("JARM (responseMode jwt)")
                }
                let algorithms = document["request_object_signing_alg_values_supported"] as? [String] ?? []
                if document["request_parameter_supported"] as? Bool == true || !algorithms.isEmpty {
                    offered.append("signed request objects (requestObject signed)")
                }
                // serve.py turns PAR, JARM and DPoP on at these two instances, so each offers something.
                #expect(issuer == info.issuer || !offered.isEmpty, "discovery: \(document)")
                try configurePublic(["issuer": issuer])
                let line = try #require(
                    try doctorLines().first { ($0["message"] as? String)?.hasPrefix("protocols: ") == true },
                    "no protocols line for \(issuer)")
                let message = line["message"] as? String ?? ""
                #expect(line["level"] as? String == "ok")
                for offer in offered {
                    #expect(message.contains(offer), "\(issuer): \(message)\ndiscovery: \(document)")
                }
                #expect(message.contains("also offers") == !offered.isEmpty, "\(issuer): \(message)")
            }
            // glewlwyd's DPoP-less instances list no DPoP algorithm, and doctor fails a config that asks for DPoP there.
            let plain = try discovery(info.issuer)
            #expect(plain["dpop_signing_alg_values_supported"] == nil)
            try configurePublic(["dpop": true])
            let dpop = try doctorLines().filter { $0["level"] as? String == "fail" }
            #expect(dpop.contains { ($0["message"] as? String)?.contains("dpop is on but") == true }, "doctor: \(dpop)")
            // JARM asked of the plain instance: a fail line exactly when its discovery lists modes without jwt.
            try configurePublic(["responseMode": "jwt"])
            let modes = plain["response_modes_supported"] as? [String]
            let jarm = try doctorLines().contains {
                $0["level"] as? String == "fail"
                    && ($0["message"] as? String)?.contains("responseMode is jwt but") == true
            }
            #expect(jarm == (modes.map { !$0.contains("jwt") } ?? false), "modes: \(String(describing: modes))")
            // The instance that requires PAR gets it without asking, and doctor says so.
            let required = try #require(info.parRequiredIssuer)
            #expect(try discovery(required)["require_pushed_authorization_requests"] as? Bool == true)
            try configurePublic(["issuer": required])
            #expect(try doctorLines().contains { ($0["message"] as? String)?.contains("PAR (required)") == true })
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
