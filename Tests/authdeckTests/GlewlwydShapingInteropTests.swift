import Foundation
import Testing

extension InteropTests {
    /// Shaped authorization requests against glewlwyd 2.7: `resource` (RFC 8707) and `authorization_details`
    /// (RFC 9396) end up in the access token glewlwyd issues, a `claims` request brings a claim glewlwyd gives only on
    /// demand, `max_age` is refused because glewlwyd's `auth_time` says 1970, and `prompt=none` without a glewlwyd
    /// login ends in its `interaction_required` with nothing stored. Tokens are decoded by Python, never by authdeck.
    @Suite(.serialized, .enabled(if: InteropServer.Kind.glewlwyd.available))
    struct GlewlwydShapingInteropTests {
        let server: InteropServer
        let setup = InteropLogin()
        var info: InteropServer.Info { server.info }

        init() throws {
            server = try InteropServer(.glewlwyd)
        }

        /// The instance and client that take shaped requests.
        func configureShaped(_ extra: [String: Any] = [:]) throws {
            let issuer = try #require(info.shapeIssuer)
            try setup.configure(
                [
                    "issuer": issuer, "clientID": try #require(info.shapeClient),
                    "redirectURI": info.redirectURI, "scopes": ["openid"],
                ].merging(extra) { $1 })
        }

        @Test func resourceAuthorizationDetailsAndClaimsReachWhatGlewlwydIssues() throws {
            try configureShaped()
            let resource = try #require(info.shapeResource)
            // glewlwyd keeps at the token request only the details whose locations name the resource (RFC 9396 6).
            let details = #"[{"type":"payment_initiation","locations":["\#(resource)"],"actions":["initiate"]}]"#
            let detailsFile = setup.folder.write("details.json", details)
            let tracePath = setup.folder.path + "/trace.jsonl"
            let result = setup.login([
                "--session-key", "shaped", "--resource", resource, "--authorization-details", "@" + detailsFile,
                "--claims", #"{"id_token":{"name":null}}"#, "--trace", tracePath,
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            let token = setup.token("shaped")
            #expect(server.userinfo(info.shapeIssuer! + "/userinfo", token: token).status == 200)
            let access = setup.jwtClaims(token)
            // glewlwyd names the resource as the token's audience only when the authorize request carried it.
            let audience = (access["aud"] as? [String]) ?? [(access["aud"] as? String) ?? ""]
            #expect(audience.contains(resource), "access token: \(access)")
            let granted = access["authorization_details"] as? [[String: Any]]
            #expect(granted?.first?["type"] as? String == "payment_initiation", "access token: \(access)")
            #expect((granted?.first?["actions"] as? [String]) == ["initiate"])

            let idToken = setup.jwtClaims(setup.runner.run(["token", "shaped", "--id-token"]).stdout)
            // `name` is on demand at this instance: there because the claims request asked for it.
            #expect(idToken["name"] as? String == info.name, "ID token: \(idToken)")
            // The token request named the resource again (RFC 8707 2.2), as the trace of what was sent shows.
            let tokenSteps = setup.trace(tracePath).steps.filter {
                ($0["summary"] as? String)?.hasSuffix("/token") == true
            }
            #expect(InteropLogin.values(named: "resource", in: tokenSteps) == [resource], "steps: \(tokenSteps)")

            // Without the claims request the on-demand claim stays out: the claim above came from the request.
            let plain = setup.login(["--session-key", "plain"])
            #expect(plain.status == 0, "stderr: \(plain.stderr)")
            let plainID = setup.jwtClaims(setup.runner.run(["token", "plain", "--id-token"]).stdout)
            #expect(plainID["sub"] != nil && plainID["name"] == nil, "ID token: \(plainID)")
        }

        /// Pushed (PAR, RFC 9126): the shaping travels in the pushed parameters, so glewlwyd's access token names the
        /// resource although the browser carried only `client_id` and `request_uri`. (glewlwyd 2.7 does not read a
        /// pushed `claims`, and pushed details would need the user's consent on its page, which the interop browser
        /// gives only for details it sees.)
        @Test func shapingTravelsInAPushedRequest() throws {
            try configureShaped()
            let resource = try #require(info.shapeResource)
            let result = setup.login(["--session-key", "pushed", "--par", "--resource", resource])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(result.stderr.contains("request_uri=") && !result.stderr.contains("resource="), "\(result.stderr)")
            let access = setup.jwtClaims(setup.token("pushed"))
            #expect(access["aud"] as? String == resource, "access token: \(access)")
        }

        /// A signed request object (RFC 9101) carries the shaping as claims: `claims` as a JSON object, which glewlwyd
        /// reads from the object (its name claim appears), and `resource`, which names the access token's audience.
        @Test func shapingTravelsInASignedRequestObject() throws {
            let issuer = try #require(info.shapeIssuer)
            try setup.configure([
                "issuer": issuer, "clientID": try #require(info.jarClient),
                "clientSecretFile": setup.secretFile(info.clientSecret), "redirectURI": info.redirectURI,
                "scopes": ["openid"], "privateKeyFile": try #require(info.jarKeyFile),
            ])
            let resource = try #require(info.shapeResource)
            let result = setup.login([
                "--session-key", "signed", "--request-object", "--resource", resource,
                "--claims", #"{"id_token":{"name":null}}"#,
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(result.stderr.contains("request=") && !result.stderr.contains("claims="), "\(result.stderr)")
            #expect(setup.jwtClaims(setup.token("signed"))["aud"] as? String == resource)
            let idToken = setup.jwtClaims(setup.runner.run(["token", "signed", "--id-token"]).stdout)
            #expect(idToken["name"] as? String == info.name, "ID token: \(idToken)")
        }

        @Test func promptNoneWithoutAGlewlwydLoginEndsInItsRefusalWithNothingStored() throws {
            try configureShaped()
            let result = setup.login(["--session-key", "silent", "--prompt", "none"])
            #expect(result.status == 4, "stderr: \(result.stderr)\nbrowser: \(setup.browserSteps)")
            // glewlwyd answers `interaction_required` (OIDC Core 3.1.2.6) where others say login_required.
            #expect(result.stderr.contains("interaction_required"), "stderr: \(result.stderr)")
            #expect(!setup.browserSteps.contains("login.html"), "browser: \(setup.browserSteps)")
            #expect(try setup.listed().isEmpty)
        }

        /// glewlwyd 2.7 takes an ID token's `auth_time` from the session of the token request, which (sent by the
        /// client, not the browser) has none: it says 0, 1970. Without `max_age` the session is stored (Python reads
        /// that `auth_time`); with `--max-age` glewlwyd is asked for a login no older than that and authdeck refuses
        /// the ID token that says otherwise: exit 4, the age named, nothing stored.
        @Test func maxAgeRefusesGlewlwydsAuthTimeOf1970() throws {
            try configureShaped()
            let plain = setup.login(["--session-key", "plain"])
            #expect(plain.status == 0, "stderr: \(plain.stderr)\nbrowser: \(setup.browserSteps)")
            let claims = setup.jwtClaims(setup.runner.run(["token", "plain", "--id-token"]).stdout)
            #expect(claims["auth_time"] as? Double == 0, "ID token: \(claims)")

            let aged = setup.login(["--session-key", "aged", "--max-age", "600"])
            #expect(aged.status == 4, "stderr: \(aged.stderr)\nbrowser: \(setup.browserSteps)")
            #expect(aged.stderr.contains("max_age=600"), "stderr: \(aged.stderr)")
            #expect(aged.stderr.contains("more than max_age 600"), "stderr: \(aged.stderr)")
            #expect(try setup.listed().map { $0["key"] as? String } == ["plain"])
        }
    }
}
