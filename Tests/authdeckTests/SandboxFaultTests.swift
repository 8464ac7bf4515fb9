import AuthCrypto
import Foundation
import Testing

/// The sandbox's fault profiles through the real binary: `authdeck sandbox --fault NAME` as a child process, a login
/// against it with `--trace`, and for each fault the message, the exit code (SPEC section 5),
/// the trace steps that show the failure, and an empty store afterwards.
@Suite(.serialized) struct SandboxFaultTests {
    /// Every fault `--fault list` must name, written out here rather than taken from the code.
    static let expectedFaults = [
        "token-5xx-html", "slow-provider", "code-expired", "code-reused", "access-denied", "access-denied-no-state",
        "authorization-response-mixup", "authorization-response-no-iss", "discovery-wrong-issuer",
        "id-token-future-iat", "id-token-wrong-aud", "id-token-wrong-iss", "id-token-wrong-nonce",
        "id-token-bad-signature", "id-token-alg-none", "id-token-no-iat", "id-token-no-sub",
        "id-token-kid-absent-single-jwks", "id-token-kid-absent-multiple-jwks", "rotated-signing-key",
        "signing-key-rotation", "no-email-claim", "userinfo-wrong-sub", "device-slow-down", "device-expired",
        "otp-rate-limit", "otp-expired", "totp-lockout", "redirect-unreachable", "dpop-nonce",
    ]

    /// The failure as the user saw it: exit code, the words on stderr, the trace's result step saying the same as
    /// the last stderr line, and nothing stored.
    func expectFailed(
        _ setup: FaultedSandbox, _ result: CLIRunner.Result, exit: Int32, saying words: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == exit, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        for word in words {
            #expect(
                result.stderr.contains(word), "stderr lacks '\(word)': \(result.stderr)",
                sourceLocation: sourceLocation)
        }
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)", sourceLocation: sourceLocation)
        let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        let traced = TraceFile.result(setup.trace()) ?? "(no result step)"
        #expect(last == "authdeck login: " + traced, "trace result: \(traced)", sourceLocation: sourceLocation)
        #expect(setup.listed().isEmpty, "a session was stored", sourceLocation: sourceLocation)
    }

    // MARK: - Choosing faults

    @Test func faultListNamesEveryFaultAndABadNameIsAUsageError() throws {
        let setup = try FaultedSandbox([])
        let listed = setup.runner.run(["sandbox", "--fault", "list"])
        #expect(listed.status == 0)
        let names = listed.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names == Self.expectedFaults)
        #expect(listed.stdout.split(separator: "\n").allSatisfy { $0.split(separator: " ").count > 3 })
        let bad = setup.runner.run(["sandbox", "--fault", "token-5xx-html,nope"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("unknown fault 'nope'"))
        let file = setup.folder.write("faults.json", #"{"faults": ["code-reused"], "delay": 5}"#)
        let badFile = setup.runner.run(["sandbox", "--fault", file])
        #expect(badFile.status == 2)
        #expect(badFile.stderr.contains("unknown field 'delay'"))
    }

    @Test func bashCompletesFaultNamesAndTraceCommands() throws {
        let folder = TemporaryFolder()
        let runner = CLIRunner(home: folder.path + "/home")
        let script = CLIRunner.repositoryRoot + "/Resources/completions/authdeck.bash"
        func complete(_ words: [String]) -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            return runner.run(
                executable: "/bin/bash",
                [
                    "-c",
                    """
                    source '\(script)'
                    COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _authdeck; printf '%s\\n' "${COMPREPLY[@]}"
                    """,
                ]
            ).stdout.split(separator: "\n").map(String.init)
        }
        #expect(complete(["authdeck", "sandbox", "--fault", "token-"]) == ["token-5xx-html"])
        #expect(complete(["authdeck", "sandbox", "faults", "id-token-wrong-a"]) == ["id-token-wrong-aud"])
        #expect(Set(complete(["authdeck", "sandbox", ""])) == ["faults", "panel", "approve"])
        #expect(Set(complete(["authdeck", "trace", ""])) == ["show", "diff", "replay"])
        #expect(complete(["authdeck", "tr"]) == ["trace"])
    }

    @Test func aJSONFileChoosesTheFaults() throws {
        let folder = TemporaryFolder()
        let file = folder.write("faults.json", #"{"faults": ["id-token-wrong-aud"], "delayMs": 100}"#)
        let setup = try FaultedSandbox(["--fault", file])
        let result = setup.login(["google"])
        expectFailed(setup, result, exit: 4, saying: ["Refused the ID token", "audience"])
    }

    @Test func faultsSwitchWhileTheSandboxRuns() throws {
        let setup = try FaultedSandbox([])
        let runner = setup.runner
        #expect(runner.run(["sandbox", "faults"]).stdout == "none\n")
        let on = runner.run(["sandbox", "faults", "code-reused,slow-provider", "--delay-ms", "50"])
        #expect(on.status == 0, "stderr: \(on.stderr)")
        #expect(on.stdout == "slow-provider,code-reused (delay 50 ms)\n")
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["invalid_grant", "already used"])
        let json = runner.run(["sandbox", "faults", "--json", "--url", setup.sandbox.baseURL])
        let state = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(state?["faults"] as? [String] == ["slow-provider", "code-reused"])
        #expect(state?["delayMs"] as? Int == 50)

        #expect(runner.run(["sandbox", "faults", "none"]).stdout == "none\n")
        let good = setup.login(["google"])
        #expect(good.status == 0, "stderr: \(good.stderr)")
        #expect(setup.listed().count == 1)
        #expect(runner.run(["sandbox", "faults", "nope"]).status == 2)
        #expect(runner.run(["sandbox", "faults", "none", "--url", "http://example.com:1"]).status == 2)
    }

    /// A request to switch on `code-reused`, sent by Python with the given `Host` and admin header ("-": none);
    /// prints the HTTP status.
    static let adminRequest = """
        import urllib.request, urllib.error, sys
        url, host, admin = sys.argv[1:4]
        headers = {"Content-Type": "application/json"}
        if host != "-": headers["Host"] = host
        if admin != "-": headers["X-Authdeck-Sandbox"] = admin
        request = urllib.request.Request(url + "/sandbox/faults", data=b'{"faults":["code-reused"]}',
                                         method="PUT", headers=headers)
        try:
            print(urllib.request.urlopen(request).status)
        except urllib.error.HTTPError as error:
            print(error.code)
        """

    @Test func theAdminRouteRefusesAChangeWithoutItsHeader() throws {
        let setup = try FaultedSandbox([])
        // What a web page could send: a simple cross-origin request, no custom header.
        let result = setup.runner.run(
            executable: "/usr/bin/python3", ["-c", Self.adminRequest, setup.sandbox.baseURL, "-", "-"])
        #expect(result.stdout == "403\n", "stderr: \(result.stderr)")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
    }

    /// A page that rebinds its own name to 127.0.0.1 sends that name as `Host`, and another local
    /// user can reach 127.0.0.1 too; neither may switch faults (a 60 s stall for everyone). The sandbox's own
    /// address and `localhost`, from this user, still can.
    @Test func theAdminRouteAnswersOnlyItsOwnHostAndUser() throws {
        let setup = try FaultedSandbox([])
        let url = setup.sandbox.baseURL
        let port = try #require(url.split(separator: ":").last.map(String.init))
        func change(_ host: String, as command: [String] = []) -> String {
            let python = ["/usr/bin/python3", "-c", Self.adminRequest, url, host, "admin"]
            let result = setup.runner.run(executable: (command + python)[0], Array((command + python).dropFirst()))
            return result.stdout + result.stderr
        }
        #expect(change("evil.example:\(port)") == "403\n")
        #expect(change("127.0.0.1.evil.example:\(port)") == "403\n")
        #expect(change("127.0.0.1:1\(port)") == "403\n")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
        if try OtherUser.available("the other-user half") {
            #expect(change("127.0.0.1:\(port)", as: [OtherUser.setpriv] + OtherUser.wrap([])) == "403\n")
            #expect(setup.runner.run(["sandbox", "faults"]).stdout == "none\n")
        }
        #expect(change("localhost:\(port)") == "200\n")
        #expect(setup.runner.run(["sandbox", "faults"]).stdout == "code-reused\n")
        #expect(setup.runner.run(["sandbox", "faults", "none"]).stdout == "none\n")
        #expect(change("127.0.0.1:\(port)") == "200\n")
        #expect(setup.runner.run(["sandbox", "faults", "--url", "http://localhost:\(port)"]).stdout == "code-reused\n")
    }

    // MARK: - Provider endpoints

    @Test func tokenEndpoint5xxWithAnHTMLPage() throws {
        let setup = try FaultedSandbox(["--fault", "token-5xx-html"])
        expectFailed(
            setup, setup.login(["google"]), exit: 1,
            saying: ["502", "/oidc/google/token", "an HTML page, not JSON"])
        let response = try #require(TraceFile.responses(setup.trace(), to: "/oidc/google/token").last)
        let details = TraceFile.details(response)
        #expect(details["status"] as? Int == 502)
        #expect((details["contentType"] as? String)?.hasPrefix("text/html") == true)
        // The start of a non-JSON error page goes into the trace (redacted), so support staff see what
        // the gateway said; the sandbox's page is a nginx-style "502 Bad Gateway" from "sandbox-gateway".
        let body = try #require(details["body"] as? String)
        #expect(body.contains("<title>502 Bad Gateway</title>"), "body: \(body)")
        #expect(body.contains("sandbox-gateway"), "body: \(body)")
        #expect(!body.contains("\n"))
        // The whole page (166 bytes, counted by hand) fits in the 512 kept; its line breaks became spaces.
        #expect(details["bodyBytes"] as? Int == 166)
        #expect(body.utf8.count == 166)
    }

    @Test func aSlowProviderRunsPastTheDeadline() throws {
        let setup = try FaultedSandbox(["--fault", "slow-provider", "--delay-ms", "8000"])
        expectFailed(setup, setup.login(["google"], timeout: 5), exit: 6, saying: ["timed out"])
        let steps = setup.trace()
        // The code came back and was sent to the token endpoint, which had not answered by the deadline.
        #expect(TraceFile.kinds(steps).contains("receiver"))
        let requests = steps.filter { $0["kind"] as? String == "request" }
        #expect((requests.last?["summary"] as? String)?.hasSuffix("/oidc/google/token") == true)
        #expect(TraceFile.responses(steps, to: "/oidc/google/token").isEmpty)
    }

    @Test(arguments: [("code-expired", "has expired"), ("code-reused", "already used")])
    func theTokenEndpointRefusesTheCode(_ fault: String, _ words: String) throws {
        let setup = try FaultedSandbox(["--fault", fault])
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["invalid_grant", words])
        let response = try #require(TraceFile.responses(setup.trace(), to: "/oidc/google/token").last)
        #expect(TraceFile.details(response)["status"] as? Int == 400)
        #expect(TraceFile.error(response) == "invalid_grant")
    }

    // MARK: - Authorization response

    @Test func accessDeniedIsARefusalWithTheProvidersWords() throws {
        let setup = try FaultedSandbox(["--fault", "access-denied"])
        // SPEC section 2, rule 2: access_denied from the provider is a refusal, exit 4, with the provider's words.
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["the user denied the request"])
        #expect(!TraceFile.kinds(setup.trace()).contains("request"))
    }

    @Test func accessDeniedWithoutStateEndsTheAttemptAsRefused() throws {
        let setup = try FaultedSandbox(["--fault", "access-denied-no-state"])
        // A stateless error redirect from the user's own processes (the loopback peer check) ends the
        // attempt at once as a refusal in the provider's words, exit 4, instead of waiting out the deadline.
        let result = setup.login(["google"])
        expectFailed(
            setup, result, exit: 4,
            saying: [
                "access denied at the provider: the user denied the request", "(the redirect came without state)",
            ])
        #expect(!result.stderr.contains("timed out"))
        #expect(!result.stderr.contains("state does not match"))
        // Told once, by the result: no "refused a loopback redirect" notice besides it.
        #expect(
            result.stderr.components(separatedBy: "the user denied the request").count == 2,
            "stderr: \(result.stderr)")
        let steps = setup.trace()
        let receiver = try #require(steps.first { $0["kind"] as? String == "receiver" })
        let details = TraceFile.details(receiver)
        #expect((receiver["summary"] as? String)?.contains("refused") == true)
        #expect(details["error"] as? String == "access_denied")
        #expect(details["error_description"] as? String == "the user denied the request")
        #expect(details["state"] is NSNull)
        #expect(details["accepted"] as? Bool == false)
        #expect(!TraceFile.kinds(steps).contains("request"))
    }

    @Test func aRedirectToAPortNobodyListensOnNeverComesBack() throws {
        let setup = try FaultedSandbox(["--fault", "redirect-unreachable"])
        expectFailed(setup, setup.login(["google"]), exit: 6, saying: ["timed out"])
        let kinds = TraceFile.kinds(setup.trace())
        #expect(kinds.contains("authorize"))
        #expect(!kinds.contains("receiver"))
        // The browser did get a redirect, to a loopback port other than authdeck's receiver, and could not follow.
        let log = (try? String(contentsOfFile: setup.folder.path + "/browser.log", encoding: .utf8)) ?? ""
        #expect(log.contains("open "))
        #expect(!log.contains("done 200"))
    }

    // MARK: - The authorization response's issuer (RFC 9207)

    /// The sandbox sends `iss` in every authorization response and promises it in discovery; google answers with a
    /// redirect, apple with a form_post page, and both are checked the same way.
    @Test(arguments: ["google", "apple"])
    func aResponseFromAnotherIssuerEndsTheSignIn(_ provider: String) throws {
        let setup = try FaultedSandbox(["--fault", "authorization-response-mixup"])
        let result = setup.login([provider])
        // The mix-up names the sandbox's generic profile, another issuer of the same sandbox.
        let other = setup.sandbox.baseURL + "/oidc/generic"
        expectFailed(setup, result, exit: 4, saying: ["The response came from another issuer", other])
        let steps = setup.trace()
        let receiver = try #require(steps.first { $0["kind"] as? String == "receiver" })
        #expect(TraceFile.details(receiver)["iss"] as? String == other)
        #expect(TraceFile.responses(steps, to: "/oidc/\(provider)/token").isEmpty)
    }

    @Test func anErrorResponseFromAnotherIssuerIsTheMixUpNotTheError() throws {
        let setup = try FaultedSandbox(["--fault", "access-denied,authorization-response-mixup"])
        let result = setup.login(["google"])
        expectFailed(setup, result, exit: 4, saying: ["The response came from another issuer"])
        #expect(!result.stderr.contains("denied"))
    }

    @Test func aResponseWithoutTheIssuerItsDiscoveryPromisesIsRefused() throws {
        // Discovery is what promises `iss`: the sign-in names the issuer, so its endpoints come from discovery (the
        // sandbox's config.json names them, and says nothing of `iss`).
        let setup = try FaultedSandbox(["--fault", "authorization-response-no-iss"])
        expectFailed(
            setup, setup.login(Self.discovered(setup)), exit: 4,
            saying: ["The response came from another issuer", "carried no iss"])
    }

    /// A sign-in at the sandbox's generic profile named by its issuer, so every endpoint comes from its discovery.
    static func discovered(_ setup: FaultedSandbox) -> [String] {
        ["oidc", "--issuer", setup.sandbox.baseURL + "/oidc/generic", "--client-id", "sandbox-oidc"]
    }

    @Test func theSandboxsOwnIssuerIsTaken() throws {
        let setup = try FaultedSandbox([])
        let result = setup.login(Self.discovered(setup))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let steps = setup.trace()
        #expect(!TraceFile.responses(steps, to: "/oidc/generic/.well-known/openid-configuration").isEmpty)
        let receiver = try #require(steps.first { $0["kind"] as? String == "receiver" })
        #expect(TraceFile.details(receiver)["iss"] as? String == setup.sandbox.baseURL + "/oidc/generic")
    }

    // MARK: - OpenID relying-party certification cases

    /// Each fault is one case of the OpenID Foundation's relying-party tests (Basic and Config RP), with the verdict
    /// its published description gives: the ID token (or the provider configuration, or the UserInfo answer)
    /// refused, exit 4 (exit 1 for a provider configuration refused before any sign-in starts), nothing stored.
    @Test(arguments: [
        ("id-token-bad-signature", "google", ["Refused the ID token", "signature"]),  // rp-id_token-bad-sig-rs256
        ("id-token-bad-signature", "apple", ["Refused the ID token", "signature"]),  // rp-id_token-bad-sig-es256
        ("id-token-alg-none", "google", ["Refused the ID token", "none"]),  // rp-id_token-sig-none, see README
        ("id-token-no-iat", "google", ["Refused the ID token", "issue time"]),  // rp-id_token-iat
        ("id-token-no-sub", "google", ["Refused the ID token", "subject"]),  // rp-id_token-sub
        ("id-token-kid-absent-multiple-jwks", "google", ["Refused the ID token", "kid"]),
        ("userinfo-wrong-sub", "google", ["Refused the ID token", "another subject"]),  // rp-userinfo-bad-sub-claim
    ])
    func aCertificationCaseIsRefused(_ fault: String, _ provider: String, _ words: [String]) throws {
        let setup = try FaultedSandbox(["--fault", fault])
        expectFailed(setup, setup.login([provider]), exit: 4, saying: words)
    }

    @Test func aDiscoveryDocumentNamingAnotherIssuerIsRefused() throws {
        // rp-discovery-issuer-not-matching-config: the configuration is refused before a browser opens.
        let setup = try FaultedSandbox(["--fault", "discovery-wrong-issuer"])
        let result = setup.login(Self.discovered(setup))
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("the discovery document names another issuer"), "stderr: \(result.stderr)")
        #expect(!TraceFile.kinds(setup.trace()).contains("authorize"))
        #expect(setup.listed().isEmpty)
    }

    @Test func anIDTokenWithoutKidIsVerifiedByTheOnlyKeyInTheJWKS() throws {
        // rp-id_token-kid-absent-single-jwks: accepted, with the single key published.
        let setup = try FaultedSandbox(["--fault", "id-token-kid-absent-single-jwks"])
        let result = setup.login(["google"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let step = try #require(setup.trace().last { $0["kind"] as? String == "id_token" })
        #expect((TraceFile.details(step)["header"] as? [String: Any])?["kid"] == nil)
        #expect(setup.listed().count == 1)
    }

    @Test func aRotatedSigningKeyIsFetchedOnceAndTaken() throws {
        // rp-key-rotation-op-sign-key: the first sign-in caches the JWKS; the provider then rotates its key, and the
        // next sign-in fetches the JWKS again (once) for the new kid instead of refusing until the cache expires.
        let setup = try FaultedSandbox([])
        let first = setup.login(["google", "--session-key", "before"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(TraceFile.responses(setup.trace(), to: "/oidc/google/jwks").count == 1)
        #expect(setup.runner.run(["sandbox", "faults", "signing-key-rotation"]).status == 0)
        try? FileManager.default.removeItem(atPath: setup.tracePath)
        let second = setup.login(["google", "--session-key", "after"])
        #expect(second.status == 0, "stderr: \(second.stderr) trace: \(setup.trace().map { $0["summary"] ?? "" })")
        let steps = setup.trace()
        #expect(TraceFile.responses(steps, to: "/oidc/google/jwks").count == 1)
        let step = try #require(steps.last { $0["kind"] as? String == "id_token" })
        let kid = (TraceFile.details(step)["header"] as? [String: Any])?["kid"] as? String
        #expect(kid?.hasPrefix("rotation-rs256-") == true, "kid: \(kid ?? "none")")
        #expect(setup.listed().count == 2)
    }

    /// A refresh verifies its new ID token the same way: a rotated key is fetched and taken; a key the JWKS never
    /// lists, even after that one fetch, ends the refresh refused with the session kept as it was.
    @Test func aRefreshFollowsARotatedKeyAndRefusesAnUnknownOne() throws {
        let setup = try FaultedSandbox([])
        #expect(setup.login(["google", "--session-key", "r"]).status == 0)
        #expect(setup.runner.run(["sandbox", "faults", "signing-key-rotation"]).status == 0)
        let rotated = setup.runner.run(["refresh", "r"])
        #expect(rotated.status == 0, "stderr: \(rotated.stderr)")
        #expect(setup.runner.run(["sandbox", "faults", "rotated-signing-key"]).status == 0)
        let unknown = setup.runner.run(["refresh", "r"])
        #expect(unknown.status == 4, "stderr: \(unknown.stderr)")
        #expect(unknown.stderr.contains("kid"), "stderr: \(unknown.stderr)")
        #expect(setup.listed().count == 1)
    }

    // MARK: - ID tokens

    @Test func anIDTokenFromTheFutureIsRefused() throws {
        let setup = try FaultedSandbox(["--fault", "id-token-future-iat"])
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["Refused the ID token", "future"])
        let claims = try #require(TraceFile.idTokenClaims(setup.trace()))
        let iat = try #require(claims["iat"] as? Double)
        #expect(iat > Date().timeIntervalSince1970 + 1800)
    }

    @Test func anIDTokenForAnotherAudienceIsRefused() throws {
        let setup = try FaultedSandbox(["--fault", "id-token-wrong-aud"])
        let result = setup.login(["google"])
        let authorize = try #require(setup.trace().first { $0["kind"] as? String == "authorize" })
        let clientID = try #require(
            (TraceFile.details(authorize)["parameters"] as? [String: Any])?["client_id"] as? String)
        // What came and what was expected, the latter as the request sent it.
        expectFailed(
            setup, result, exit: 4,
            saying: [
                "Refused the ID token", "aud is another-client, azp is another-client, this client is \(clientID)",
            ])
        #expect(TraceFile.idTokenClaims(setup.trace())?["aud"] as? String == "another-client")
    }

    @Test func anIDTokenFromAnotherIssuerIsRefused() throws {
        let setup = try FaultedSandbox(["--fault", "id-token-wrong-iss"])
        let issued = setup.sandbox.baseURL + "/oidc/google/"
        expectFailed(
            setup, setup.login(["google"]), exit: 4,
            saying: [
                "Refused the ID token", "iss is \(issued), this client expects \(setup.sandbox.baseURL)/oidc/google",
            ])
        #expect(TraceFile.idTokenClaims(setup.trace())?["iss"] as? String == issued)
    }

    @Test func anIDTokenWithAnotherNonceIsRefused() throws {
        let setup = try FaultedSandbox(["--fault", "id-token-wrong-nonce"])
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["Refused the ID token", "nonce"])
        let steps = setup.trace()
        let authorize = try #require(steps.first { $0["kind"] as? String == "authorize" })
        let sent = (TraceFile.details(authorize)["parameters"] as? [String: Any])?["nonce"] as? String
        let received = TraceFile.idTokenClaims(steps)?["nonce"] as? String
        #expect(sent != nil && received != nil && sent != received)
    }

    @Test func anIDTokenSignedByARotatedKeyIsRefusedAfterOneRefetch() throws {
        let setup = try FaultedSandbox(["--fault", "rotated-signing-key"])
        expectFailed(setup, setup.login(["google"]), exit: 4, saying: ["Refused the ID token", "kid"])
        let steps = setup.trace()
        // SPEC 3.1: the JWKS is fetched again once on an unknown kid, then the token is refused.
        #expect(TraceFile.responses(steps, to: "/oidc/google/jwks").count == 2)
        let step = try #require(steps.last { $0["kind"] as? String == "id_token" })
        let kid = try #require((TraceFile.details(step)["header"] as? [String: Any])?["kid"] as? String)
        let jwks = setup.runner.run(
            executable: "/usr/bin/python3",
            [
                "-c",
                "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                setup.sandbox.baseURL + "/oidc/google/jwks",
            ]
        ).stdout
        #expect(jwks.contains("\"kid\""))
        #expect(!jwks.contains(kid))
    }

    @Test func anIDTokenWithoutEmailLeavesTheAddressToUserInfo() throws {
        let setup = try FaultedSandbox(["--fault", "no-email-claim"])
        let result = setup.login(["google"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let steps = setup.trace()
        let claims = try #require(TraceFile.idTokenClaims(steps))
        #expect(claims["email"] == nil)
        #expect(claims["sub"] != nil)
        let session = try #require(setup.listed().first)
        // With a UserInfo call the address is there; without one (the customer's failure) the session has none and
        // its key is made from the name, not the address.
        if steps.contains(where: { ($0["summary"] as? String)?.hasSuffix("/oidc/google/userinfo") == true }) {
            #expect(session["email"] as? String == "ada@example.com")
        } else {
            #expect(session["email"] is NSNull)
            #expect(!(session["key"] as? String ?? "").contains("@"))
        }
    }

    // MARK: - Device grant

    @Test(arguments: [("device-slow-down", "slow_down"), ("device-expired", "expired_token")])
    func deviceGrantPollsAreRefused(_ fault: String, _ error: String) throws {
        let setup = try FaultedSandbox(["--fault", fault, "--device-interval", "1"])
        // Polled past its life, the code expired at the provider: said as such, as the backchannel's is (exit 1),
        // not as the attempt's own timeout.
        let expired = error == "expired_token"
        expectFailed(
            setup, setup.login(["google", "--device"]), exit: expired ? 1 : 6,
            saying: [expired ? "the device code expired before it was approved" : "timed out"])
        let polls = TraceFile.responses(setup.trace(), to: "/oidc/google/token")
        #expect(!polls.isEmpty)
        #expect(polls.allSatisfy { TraceFile.error($0) == error && TraceFile.details($0)["status"] as? Int == 400 })
    }

    // MARK: - One-time codes and TOTP

    @Test func aRateLimitedCodeIsRefusedBeforeAnyCodeIsSent() throws {
        let setup = try FaultedSandbox(["--fault", "otp-rate-limit"])
        expectFailed(
            setup, setup.login(["email", "--contact", "ada@example.com"]), exit: 4,
            saying: ["too many codes sent to this contact"])
        let response = try #require(TraceFile.responses(setup.trace(), to: "/turnkey/v1/otp_init_v2").last)
        #expect(TraceFile.details(response)["status"] as? Int == 429)
        #expect(setup.sandbox.codes().isEmpty)
    }

    @Test func anExpiredCodeIsRefusedAndTheCodeStepStays() throws {
        let setup = try FaultedSandbox(["--fault", "otp-expired"])
        let run = try setup.live(["email", "--contact", "ada@example.com"])
        #expect(run.wait { run.stderr.contains("A code was sent to") })
        let code = try #require(setup.sandbox.codes().last?.code)
        run.send(code)
        #expect(run.wait { run.stderr.contains("The code was refused: the one-time code has expired") })
        run.interrupt()
        let result = run.finish()
        expectFailed(setup, result, exit: 3, saying: ["expired"])
        let response = try #require(TraceFile.responses(setup.trace(), to: "/turnkey/v1/otp_verify_v2").last)
        #expect(TraceFile.details(response)["status"] as? Int == 400)
        let trace = try String(contentsOfFile: setup.tracePath, encoding: .utf8)
        #expect(!trace.contains(code))
        // The sealed code is not kept either: otp_verify_v2's encryptedOtpBundle is redacted like otpCode.
        #expect(trace.contains("encryptedOtpBundle") && !trace.contains("encappedPublic"))
    }

    @Test func aLockedTOTPAccountRefusesEvenTheRightCode() throws {
        let setup = try FaultedSandbox(["--fault", "totp-lockout"])
        let run = try setup.live(["google", "--backend", "sandbox-turnkey"], environment: ["SANDBOX_USER": "dora"])
        #expect(run.wait { run.stderr.contains("Two-factor code required") })
        let code = TOTP.code(secret: Base32.decode("JBSWY3DPEHPK3PXP") ?? [], time: Int64(Date().timeIntervalSince1970))
        run.send(code)
        expectFailed(setup, run.finish(), exit: 4, saying: ["Too many attempts"])
        let response = try #require(TraceFile.responses(setup.trace(), to: "/turnkey/v1/totp_verify").last)
        #expect(TraceFile.details(response)["status"] as? Int == 429)
    }
}
