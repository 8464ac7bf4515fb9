import Foundation
import Testing

extension InteropTests {
    /// Token exchange (RFC 8693) against the token endpoint in Tests/Interop/exchange, written from the RFC and
    /// signing with Python's `cryptography`, for what idpyoidc (below) does not show: the request's fields as they
    /// arrived (its log), `resource` (idpyoidc takes only resources it knows), a parent from another issuer, and a
    /// machine session renewed by every `token` (idpyoidc fails a second client-credentials request for one
    /// client). The parent session comes from the same server by client credentials.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.tokenExchange.available))
    struct TokenExchangeInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.tokenExchange)
            try setup.configureConfidential(server.info, scopes: ["api"])
        }

        /// The requests the server logged, one object each (fields as received, no token).
        var exchanges: [[String: Any]] {
            let text = (try? String(contentsOfFile: server.folder.path + "/exchanges.jsonl", encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func introspected(_ token: String) -> [String: Any] { server.introspectAsClient(token).body }

        /// The JWT's payload, decoded here (base64url, RFC 7515) to name the token the server was given.
        func claims(_ jwt: String) -> [String: Any] {
            let parts = jwt.split(separator: ".")
            guard parts.count == 3 else { return [:] }
            var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            guard let data = Data(base64Encoded: text) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }

        /// The parent's access token goes as the subject token (type access_token) with the audience, resource and
        /// requested type given; the new session is stored under its own key, marked with its parent in `status`,
        /// and its token is active at the server's introspection with that audience; the parent stays as it was.
        @Test func anExchangedSessionIsStoredWithItsParent() throws {
            #expect(setup.login(["--grant", "client-credentials", "--session-key", "parent"]).status == 0)
            let parentToken = setup.token("parent")
            let result = setup.login([
                "--grant", "token-exchange", "--subject-session", "parent", "--audience", "https://api.example",
                "--resource", "https://api.example/v1",
                "--requested-token-type", "urn:ietf:params:oauth:token-type:access_token", "--session-key", "child",
                "--trace", setup.folder.path + "/exchange.jsonl",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let request = try #require(exchanges.last)
            #expect(request["grant_type"] as? String == "urn:ietf:params:oauth:grant-type:token-exchange")
            #expect(request["subject_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
            #expect(request["subject_jti"] as? String == claims(parentToken)["jti"] as? String)
            #expect(request["audience"] as? String == "https://api.example")
            #expect(request["resource"] as? String == "https://api.example/v1")
            #expect(request["requested_token_type"] as? String == "urn:ietf:params:oauth:token-type:access_token")
            #expect(request["scope"] == nil)

            let child = setup.token("child")
            #expect(child != parentToken)
            // The trace shows the request with the subject token redacted by name, and neither token anywhere.
            let trace = setup.trace(setup.folder.path + "/exchange.jsonl")
            #expect(!trace.text.contains(parentToken) && !trace.text.contains(child))
            let subjects = InteropLogin.values(named: "subject_token", in: trace.steps)
            #expect(!subjects.isEmpty && subjects.allSatisfy { $0.hasPrefix("[redacted") }, "\(subjects)")
            let answer = introspected(child)
            #expect(answer["active"] as? Bool == true && answer["aud"] as? String == "https://api.example")
            #expect(answer["parent_jti"] as? String == claims(parentToken)["jti"] as? String)
            let status = setup.runner.run(["status", "child"])
            #expect(status.stdout.contains("parent session: parent"), "stdout: \(status.stdout)")
            let json = setup.runner.run(["status", "child", "--json"])
            #expect(json.stdout.contains("\"parentSession\":\"parent\""), "stdout: \(json.stdout)")
            #expect(setup.token("parent") == parentToken)
            #expect(try setup.listed().count == 2)
        }

        /// What the server refuses (an unknown requested token type) ends the attempt with the server's words and
        /// exit 4; a parent the store does not have, or no parent at all, is a usage error before anything is sent;
        /// a parent from another issuer is refused before its token is sent. Nothing is stored by any of them.
        @Test func refusalsAndBadParentsStoreNothing() throws {
            #expect(setup.login(["--grant", "client-credentials", "--session-key", "parent"]).status == 0)
            let refused = setup.login([
                "--grant", "token-exchange", "--subject-session", "parent", "--requested-token-type",
                "urn:example:nope",
                "--session-key", "x",
            ])
            #expect(refused.status == 4, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("cannot issue urn:example:nope"), "stderr: \(refused.stderr)")

            let sent = exchanges.count
            let unknown = setup.login(["--grant", "token-exchange", "--subject-session", "nope", "--session-key", "x"])
            #expect(unknown.status == 2 && unknown.stderr.contains("no session 'nope'"), "stderr: \(unknown.stderr)")
            let missing = setup.login(["--grant", "token-exchange", "--session-key", "x"])
            #expect(missing.status == 2 && missing.stderr.contains("--subject-session"), "stderr: \(missing.stderr)")

            // The same key at another issuer: the parent's token would leave for a server it did not come from.
            let other = try InteropServer(.tokenExchange)
            try setup.configureConfidential(other.info)
            let elsewhere = setup.login([
                "--grant", "token-exchange", "--subject-session", "parent", "--session-key", "x",
            ])
            #expect(elsewhere.status == 4, "stderr: \(elsewhere.stderr)")
            #expect(elsewhere.stderr.contains("goes to no other issuer"), "stderr: \(elsewhere.stderr)")
            let otherLog = (try? String(contentsOfFile: other.folder.path + "/exchanges.jsonl", encoding: .utf8)) ?? ""
            #expect(otherLog.isEmpty && exchanges.count == sent)
            #expect(try setup.listed().count == 1)
        }

        /// A machine session whose tokens live 10 s (refresh window 5 s) is renewed by `token` once it is due, by
        /// asking again with the client's credentials: no refresh token is involved. The first call's token was
        /// issued before it returned, so 6 s later it has at most 4 s left.
        @Test func tokenRenewsAMachineSessionByAskingAgain() throws {
            let short = try InteropServer(.tokenExchange, environment: ["EXCHANGE_TOKEN_LIFETIME": "10"])
            try setup.configureConfidential(short.info)
            #expect(setup.login(["--grant", "client-credentials", "--session-key", "m"]).status == 0)
            let first = setup.runner.run(["token", "m"])
            Thread.sleep(forTimeInterval: 6)
            let second = setup.runner.run(["token", "m"])
            #expect(first.status == 0 && second.status == 0, "stderr: \(first.stderr) \(second.stderr)")
            #expect(!first.stdout.isEmpty && first.stdout != second.stdout)
        }
    }

    /// `login --grant`'s bad input, refused before anything is opened or sent (exit 2), nothing stored.
    @Suite struct GrantUsageTests {
        @Test func badGrantInputIsAUsageError() throws {
            let setup = InteropLogin()
            for (arguments, words) in [
                (["--grant", "password"], "unknown grant 'password'"),
                (["--grant", "ciba"], "--grant ciba needs --login-hint"),
                (["--grant", "token-exchange"], "--grant token-exchange needs --subject-session"),
                (["--grant", "client-credentials", "--login-hint", "a"], "--login-hint is not for --grant"),
                (["--grant", "ciba", "--device", "--login-hint", "a"], "--device is --grant device"),
                // CIBA takes the login hint and a token exchange one resource; the browser's other shaping is refused.
                (["--grant", "ciba", "--login-hint", "a", "--prompt", "login"], "--prompt is not for --grant ciba"),
                (
                    [
                        "--grant", "token-exchange", "--subject-session", "p", "--resource", "https://a.test/",
                        "--resource", "https://b.test/",
                    ], "--grant token-exchange takes one --resource"
                ),
            ] {
                let result = setup.login(arguments)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                // One line naming the fix, then the command's usage line, as every usage error.
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.first?.contains(words) == true, "\(arguments): \(result.stderr)")
                #expect(lines.count == 2 && lines.last?.hasPrefix("usage:") == true, "\(arguments): \(result.stderr)")
            }
            #expect(try setup.listed().isEmpty)
        }
    }
}

extension InteropTests {
    /// Token exchange against idpyoidc's authorization server (PyPI), configured in Tests/Interop/idpyoidc: the parent
    /// session by its client credentials, the exchange judged by idpyoidc's own RFC 8693 helper, which takes only
    /// subject tokens it issued and still holds active.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.idpyoidc.available))
    struct IdpyoidcTokenExchangeTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.idpyoidc)
            try setup.configureConfidential(server.info, scopes: ["api"])
        }

        /// idpyoidc exchanges the parent's access token for one for the audience asked, which its introspection
        /// says is active for that audience; the new session names its parent; a token type idpyoidc cannot issue
        /// ends the attempt with its words (exit 4) and nothing stored.
        @Test func idpyoidcExchangesTheParentsToken() throws {
            let parent = setup.login(["--grant", "client-credentials", "--session-key", "parent"])
            #expect(parent.status == 0, "stderr: \(parent.stderr)")
            #expect(server.introspectAsClient(setup.token("parent")).body["active"] as? Bool == true)
            let result = setup.login([
                "--grant", "token-exchange", "--subject-session", "parent", "--audience", "https://api.example",
                "--session-key", "child",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let child = setup.token("child")
            #expect(!child.isEmpty && child != setup.token("parent"))
            let answer = server.introspectAsClient(child)
            #expect(answer.status == 200 && answer.body["active"] as? Bool == true, "\(answer)")
            #expect(answer.body["aud"] as? [String] == ["https://api.example"], "\(answer)")
            #expect(setup.runner.run(["status", "child"]).stdout.contains("parent session: parent"))

            let refused = setup.login([
                "--grant", "token-exchange", "--subject-session", "parent", "--requested-token-type",
                "urn:example:nope",
                "--session-key", "x",
            ])
            #expect(refused.status == 4, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("Unsupported requested token type"), "stderr: \(refused.stderr)")
            #expect(try setup.listed().count == 2)
        }
    }
}
