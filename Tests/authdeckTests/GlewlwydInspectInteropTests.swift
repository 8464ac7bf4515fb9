import Foundation
import Testing

extension InteropTests {
    /// `inspect` and `introspect` against glewlwyd 2.7: what authdeck decodes and checks is compared with what Python
    /// decodes and verifies from the same tokens, with glewlwyd's UserInfo, and with glewlwyd's own introspection
    /// answer before and after the session is revoked there.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.glewlwyd.available))
    struct GlewlwydInspectInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.glewlwyd)
        }

        /// Signs in as the client glewlwyd lets introspect its own tokens (Basic, with a secret file).
        func signIn(_ key: String) throws {
            let client = try #require(info.introspectionClient)
            try setup.configure([
                "issuer": info.issuer, "clientID": client, "clientSecretFile": setup.secretFile(info.clientSecret),
                "redirectURI": info.redirectURI, "scopes": ["openid"],
            ])
            let result = setup.login(["--session-key", key])
            try #require(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
        }

        /// The ID token and the access token as `authdeck token` hands them out.
        func tokens(_ key: String) -> (id: String, access: String) {
            let id = setup.runner.run(["token", key, "--id-token"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            return (id, setup.token(key))
        }

        /// What Python decodes from the tokens and whether `cryptography` finds each signature good.
        func pythonDecoded(_ tokens: [String]) throws -> [[String: Any]] {
            let result = setup.runner.run(
                executable: "/usr/bin/python3",
                [CLIRunner.repositoryRoot + "/Tests/Interop/jwt-claims.py", info.issuer],
                stdin: tokens.joined(separator: "\n"))
            try #require(result.status == 0, "jwt-claims.py: \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        }

        func inspected(_ key: String) throws -> (result: CLIRunner.Result, document: [String: Any]) {
            let result = setup.runner.run(["inspect", key, "--json"])
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            return (result, try #require(document, "stdout: \(result.stdout)\nstderr: \(result.stderr)"))
        }

        static func token(_ name: String, in document: [String: Any]) -> [String: Any]? {
            (document["tokens"] as? [[String: Any]])?.first { $0["name"] as? String == name }
        }

        static func checks(_ token: [String: Any]?) -> [String: Bool] {
            var found: [String: Bool] = [:]
            for check in token?["checks"] as? [[String: Any]] ?? [] {
                if let name = check["name"] as? String { found[name] = check["ok"] as? Bool }
            }
            return found
        }

        @Test func inspectShowsWhatPythonDecodesAndGlewlwydsUserInfoAgrees() throws {
            try signIn("i")
            let (idToken, accessToken) = tokens("i")
            let python = try pythonDecoded([idToken, accessToken])
            try #require(python.count == 2)
            // The expected values: Python's decoding and cryptography's verdict on each signature.
            #expect(python[0]["signatureHolds"] as? Bool == true && python[1]["signatureHolds"] as? Bool == true)

            let (result, document) = try inspected("i")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(document["ok"] as? Bool == true)
            let id = Self.token("id_token", in: document)
            let access = Self.token("access_token", in: document)
            #expect(id?["format"] as? String == "jwt" && access?["format"] as? String == "jwt")
            #expect((id?["claims"] as? NSDictionary) == (python[0]["claims"] as? NSDictionary))
            #expect((id?["header"] as? NSDictionary) == (python[0]["header"] as? NSDictionary))
            #expect((access?["claims"] as? NSDictionary) == (python[1]["claims"] as? NSDictionary))
            #expect(
                Self.checks(id) == ["signature": true, "iss": true, "aud": true, "exp": true, "nbf": true, "iat": true])
            #expect(Self.checks(access) == ["signature": true, "iss": true, "exp": true, "nbf": true, "iat": true])

            // glewlwyd's UserInfo names the same user the ID token does.
            let claims = try #require(python[0]["claims"] as? [String: Any])
            let userinfo = server.userinfo(info.issuer + "/userinfo", token: accessToken)
            #expect(userinfo.status == 200)
            #expect(userinfo.body["sub"] as? String == claims["sub"] as? String)
            #expect(userinfo.body["email"] as? String == info.email && claims["email"] as? String == info.email)

            // The text form shows the same claims, times as UTC dates with a distance (an hour or minutes: read within
            // the second it was issued, the token has a whole hour left), and never a token or its signature.
            let text = setup.runner.run(["inspect", "i"])
            #expect(text.status == 0, "stderr: \(text.stderr)")
            #expect(text.stdout.contains("ID token: JWT, RS256"))
            #expect(text.stdout.contains(claims["sub"] as? String ?? "-"))
            let expiry = #"exp +20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+[hm]"#
            #expect(text.stdout.range(of: expiry, options: .regularExpression) != nil)
            #expect(text.stdout.contains("check signature  ok"))
            for secret in [idToken, accessToken]
                + [idToken, accessToken].compactMap({ $0.split(separator: ".").last })
                .map(String.init)
            {
                #expect(!text.stdout.contains(secret) && !result.stdout.contains(secret))
            }
        }

        /// A DPoP-bound session at glewlwyd's DPoP instance: its access token's `cnf.jkt` is shown as glewlwyd wrote
        /// it (Python's decoding), and introspection, sent with the session's proof as every request of it is, says
        /// active.
        @Test func aDPoPBoundTokensConfirmationIsShownAndIntrospectionAgrees() throws {
            let issuer = try #require(info.dpopIssuer)
            try setup.configure([
                "issuer": issuer, "clientID": try #require(info.introspectionClient),
                "clientSecretFile": setup.secretFile(info.clientSecret), "redirectURI": info.redirectURI,
                "scopes": ["openid"], "dpop": true,
            ])
            let login = setup.login(["--session-key", "dp"])
            try #require(login.status == 0, "stderr: \(login.stderr)\nbrowser: \(setup.browserSteps)")
            let accessToken = setup.token("dp")
            let result = setup.runner.run(
                executable: "/usr/bin/python3", [CLIRunner.repositoryRoot + "/Tests/Interop/jwt-claims.py", issuer],
                stdin: accessToken)
            let python = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
            let claims = try #require(python?.first?["claims"] as? [String: Any], "jwt-claims.py: \(result.stderr)")
            let jkt = try #require((claims["cnf"] as? [String: Any])?["jkt"] as? String)

            let (inspected, document) = try inspected("dp")
            #expect(inspected.status == 0, "stderr: \(inspected.stderr)")
            let access = Self.token("access_token", in: document)
            #expect((access?["claims"] as? NSDictionary) == (claims as NSDictionary))
            #expect(Self.checks(access)["signature"] == true)
            let text = setup.runner.run(["inspect", "dp"]).stdout
            #expect(text.range(of: "cnf jkt +" + jkt, options: .regularExpression) != nil, "\(text)")

            let asked = setup.runner.run(["introspect", "dp", "--json"])
            #expect(asked.status == 0, "stderr: \(asked.stderr)")
            #expect(asked.stdout.contains("\"active\":true"), "\(asked.stdout)")
        }

        /// A stored ID token whose claims were changed after glewlwyd signed them (re-imported through `store
        /// import`): every claim is still shown, the signature check names itself, and the command exits 4.
        @Test func aTamperedIDTokenFailsItsSignatureCheck() throws {
            try signIn("t")
            let (idToken, accessToken) = tokens("t")
            var parts = idToken.split(separator: ".").map(String.init)
            let python = try pythonDecoded([idToken])
            var claims = try #require(python.first?["claims"] as? [String: Any])
            claims["name"] = "Mallory Example"
            parts[1] = Self.base64url(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
            let tampered = parts.joined(separator: ".")
            #expect(try pythonDecoded([tampered]).first?["signatureHolds"] as? Bool == false)

            let imported = setup.runner.run(
                ["store", "import", "-", "--replace"],
                stdin: try importLine("t", idToken: tampered, accessToken: accessToken))
            try #require(imported.status == 0, "stderr: \(imported.stderr)")
            let (result, document) = try inspected("t")
            #expect(result.status == 4, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("failed: id_token signature"), "stderr: \(result.stderr)")
            #expect(document["ok"] as? Bool == false)
            let id = Self.token("id_token", in: document)
            #expect(Self.checks(id)["signature"] == false && Self.checks(id)["iss"] == true)
            #expect((id?["claims"] as? [String: Any])?["name"] as? String == "Mallory Example")
            #expect(Self.checks(Self.token("access_token", in: document))["signature"] == true)
            let text = setup.runner.run(["inspect", "t"])
            #expect(text.status == 4 && text.stdout.contains("check signature  FAILED"), "\(text.stdout)")
        }

        /// glewlwyd's introspection (introspection-revocation-allowed, the token's own client by HTTP Basic): active
        /// with its client and user; after `logout --revoke` the same session, imported again, is inactive (exit 4).
        @Test func introspectionIsActiveThenInactiveAfterRevocation() throws {
            try signIn("n")
            let (idToken, accessToken) = tokens("n")
            let line = try importLine("n", idToken: idToken, accessToken: accessToken)
            let asked = setup.runner.run(["introspect", "n", "--json"])
            #expect(asked.status == 0, "stderr: \(asked.stderr)")
            let answer = try #require(
                try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any], "\(asked.stdout)")
            #expect(answer["active"] as? Bool == true)
            #expect(answer["client_id"] as? String == info.introspectionClient)
            #expect(answer["username"] as? String == info.user)
            let userinfo = server.userinfo(info.issuer + "/userinfo", token: accessToken)
            #expect(answer["sub"] as? String == userinfo.body["sub"] as? String)
            let text = setup.runner.run(["introspect", "n"])
            #expect(text.status == 0 && text.stdout.contains("active      true"), "\(text.stdout)\(text.stderr)")
            #expect(text.stdout.range(of: #"exp +20\d\d-"#, options: .regularExpression) != nil)

            let revoked = setup.runner.run(["logout", "n", "--revoke"])
            try #require(revoked.status == 0, "stderr: \(revoked.stderr)")
            #expect(setup.runner.run(["store", "import", "-"], stdin: line).status == 0)
            let after = setup.runner.run(["introspect", "n"])
            #expect(after.status == 4, "stdout: \(after.stdout)\nstderr: \(after.stderr)")
            #expect(after.stderr == "authdeck introspect: the provider says the access token of 'n' is not active\n")
            #expect(!after.stdout.contains(accessToken) && !after.stderr.contains(accessToken))
        }

        /// Under tmux, the real TUI over the same store: `i` on Details shows the same decoded token with its checks
        /// (the claims glewlwyd signed), `I` asks glewlwyd's introspection endpoint and the message line says active;
        /// the status line offers both.
        @Test(TmuxPane.required) func theTUIsInspectorAndIntrospection() throws {
            try signIn("tui")
            let python = try pythonDecoded([tokens("tui").id])
            let subject = try #require((python.first?["claims"] as? [String: Any])?["sub"] as? String)
            let pane = try setup.runner.startTUI(in: setup.folder.path, cols: 120, rows: 40)
            defer { pane.close() }
            try pane.waitFor("1 session")
            try pane.press("Enter", until: "Session tui")
            try pane.waitFor("i inspect")
            try pane.press("i", until: "check signature", timeout: 20)
            let screen = pane.capture()
            #expect(screen.contains("ID token: JWT, RS256"), "\(screen)")
            #expect(screen.contains(subject), "\(screen)")
            #expect(screen.range(of: #"check signature +ok"#, options: .regularExpression) != nil, "\(screen)")
            #expect(!screen.contains("FAILED"), "\(screen)")
            #expect(screen.contains("I introspect"), "\(screen)")
            try pane.press("I", until: "Introspection: tui: active", timeout: 20)
            #expect(pane.capture().contains("client \(info.introspectionClient ?? "-")"))
            try pane.press("Escape", until: "Actions")
            try pane.quit()
        }

        /// The session as a `store import` line (SPEC 4's JSON lines): its listed fields and these tokens, with the
        /// client it signed in as; the secret comes from config.json's client for the issuer.
        func importLine(_ key: String, idToken: String, accessToken: String) throws -> String {
            var object = try #require(try setup.session(key))
            object["idToken"] = idToken
            object["accessToken"] = accessToken
            object["endpoints"] = [
                "clientID": info.introspectionClient ?? "", "token": info.issuer + "/token",
                "tokenAuthMethod": "client_secret_basic",
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self) + "\n"
        }

        static func base64url(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }
}
