import AuthClient
import AuthCore
import Foundation
import Testing

/// How endpoint answers become errors a person can act on, what the trace keeps of an error page, and where RFC 8414
/// metadata is found.
@Suite struct ProviderAnswerTests {
    func answer(_ status: Int, _ body: String, type: String = "application/json") -> IncomingResponse {
        IncomingResponse(status: status, headers: ["content-type": type], body: Array(body.utf8), duration: 0)
    }

    @Test func statusesAndOAuthErrorsAreNamed() {
        let endpoint = "https://idp.test/revoke"
        #expect(
            OAuthErrorResponse.error(from: answer(401, "Unauthorized", type: "text/plain"), endpoint: endpoint)
                == .authenticationFailed(
                    providerError: "the provider refused: 401 at https://idp.test/revoke, "
                        + "without an OAuth error"))
        #expect(
            OAuthErrorResponse.error(
                from: answer(502, "<html>Bad gateway</html>", type: "text/html"),
                endpoint: endpoint)
                == .unavailable(
                    reason: "the provider answered HTTP 502 at https://idp.test/revoke, with an HTML page, "
                        + "not JSON"))
        #expect(
            OAuthErrorResponse.error(
                from: answer(401, #"{"error":"invalid_client","error_description":"who?"}"#),
                endpoint: endpoint)
                == .authenticationFailed(providerError: "the provider refused: 401 invalid_client: who?"))
        #expect(
            OAuthErrorResponse.error(from: answer(400, #"{"error":"access_denied"}"#), endpoint: endpoint)
                == .authenticationFailed(providerError: "access denied at the provider"))
        #expect(OAuthErrorResponse.error(from: answer(429, ""), endpoint: endpoint) == .rateLimited)
        // The exit codes follow the kinds: a refusal is 4, the server's failure 1 (authdeckTests check the CLI).
        #expect(SignInError.authenticationFailed(providerError: "x").message.hasPrefix("Authentication failed"))
    }

    @Test func anErrorPageGoesIntoTheTraceRedactedAndCut() throws {
        let token = String(repeating: "tok3nVALUE", count: 4)
        let page = "<html><p>Bad code=abc123 for " + token + "</p>" + String(repeating: "x", count: 600) + "</html>"
        let snippet = FlowTrace.redactedSnippet(Array(page.utf8))
        #expect(snippet.contains("<html><p>Bad code=[redacted 6 chars] for [redacted 40 chars]</p>"))
        #expect(!snippet.contains("abc123") && !snippet.contains("tok3n"))
        #expect(snippet.hasSuffix("…"))
        #expect(snippet.count < 560)

        let trace = FlowTrace()
        let transport = TracingTransport(ScriptedTransport(["https://idp.test/token": (503, page)]), trace: trace)
        _ = try transport.send(.form("https://idp.test/token", [("grant_type", "refresh_token")]))
        let response = try #require(trace.steps.last)
        #expect(response.details["body"] == .string(snippet))
        #expect(response.details["bodyBytes"] == .number(Double(page.utf8.count)))
    }

    @Test func discoveryIsSupplementedFromRFC8414MetadataOnceADay() throws {
        let discovery =
            #"{"issuer":"https://idp.test/o","authorization_endpoint":"https://idp.test/o/a","#
            + #""token_endpoint":"https://idp.test/o/t"}"#
        let metadata = #"{"issuer":"https://idp.test/o","revocation_endpoint":"https://idp.test/o/revoke"}"#
        let transport = ScriptedTransport([
            "https://idp.test/o/.well-known/openid-configuration": (200, discovery),
            "https://idp.test/.well-known/oauth-authorization-server/o": (200, metadata),
        ])
        let cache = ProviderMetadataCache(transport: transport, folder: nil)
        let now = Date()
        for _ in 0..<2 {
            let endpoints = try cache.endpoints(
                issuer: "https://idp.test/o",
                discoveryURL: "https://idp.test/o/.well-known/openid-configuration",
                now: now)
            #expect(endpoints.revocation == "https://idp.test/o/revoke")
            #expect(endpoints.deviceAuthorization == nil)
        }
        #expect(transport.requests.count == 2)

        // A server without the document: asked once, its absence remembered.
        let bare = ScriptedTransport(["https://idp.test/o/.well-known/openid-configuration": (200, discovery)])
        let bareCache = ProviderMetadataCache(transport: bare, folder: nil)
        for _ in 0..<2 {
            let endpoints = try bareCache.endpoints(
                issuer: "https://idp.test/o", discoveryURL: "https://idp.test/o/.well-known/openid-configuration",
                now: now)
            #expect(endpoints.revocation == nil)
        }
        #expect(bare.requests.count == 2)
    }

    @Test func rfc8414MetadataURLsAndSupplements() {
        // RFC 8414 section 3.1's example issuer, and one without a path.
        #expect(
            ProviderEndpoints.authorizationServerMetadataURL(issuer: "https://example.com/issuer1")
                == "https://example.com/.well-known/oauth-authorization-server/issuer1")
        #expect(
            ProviderEndpoints.authorizationServerMetadataURL(issuer: "https://example.com")
                == "https://example.com/.well-known/oauth-authorization-server")
        let discovered = ProviderEndpoints(
            issuer: "https://example.com/o", authorization: "https://example.com/o/a",
            token: "https://example.com/o/t")
        let metadata: JSONValue = .object([
            "issuer": .string("https://example.com/o"), "revocation_endpoint": .string("https://example.com/o/r"),
            "revocation_endpoint_auth_methods_supported": .array([.string("client_secret_basic")]),
        ])
        let supplemented = discovered.supplemented(by: metadata)
        #expect(supplemented.revocation == "https://example.com/o/r")
        #expect(supplemented.revocationAuthMethods == ["client_secret_basic"])
        #expect(supplemented.deviceAuthorization == nil)
        // Another issuer's document adds nothing (RFC 8414 3.3).
        var foreign = metadata
        if case .object(var members) = foreign {
            members["issuer"] = .string("https://evil.test")
            foreign = .object(members)
        }
        #expect(discovered.supplemented(by: foreign).revocation == nil)
    }
}
