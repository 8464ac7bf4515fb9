import AuthClient
import AuthCore
import Foundation
import TestSupport
import Testing

/// Client authentication at the token and revocation endpoints: which method discovery and config.json choose, and
/// what `client_secret_basic` puts on the wire (RFC 6749 2.3.1), checked against Python's form encoding.
@Suite struct ClientAuthenticationTests {
    @Test func methodChoice() throws {
        let basic = ClientAuthMethod.clientSecretBasic
        let post = ClientAuthMethod.clientSecretPost
        // A secret and a provider that says nothing: Basic, the RFC's and OIDC Discovery's default.
        #expect(try ClientAuthMethod.choose(configured: nil, supported: nil, hasSecret: true, endpoint: "t") == basic)
        #expect(
            try ClientAuthMethod.choose(
                configured: nil, supported: ["client_secret_post", "client_secret_basic"],
                hasSecret: true, endpoint: "t") == basic)
        #expect(
            try ClientAuthMethod.choose(
                configured: nil, supported: ["client_secret_post"], hasSecret: true,
                endpoint: "t") == post)
        // No secret: a public client, whatever the provider lists.
        #expect(
            try ClientAuthMethod.choose(
                configured: nil, supported: ["client_secret_basic"], hasSecret: false,
                endpoint: "t") == .none)
        // config.json wins over discovery.
        #expect(
            try ClientAuthMethod.choose(
                configured: "client_secret_post", supported: ["client_secret_basic"],
                hasSecret: true, endpoint: "t") == post)
        #expect(
            try ClientAuthMethod.choose(configured: "none", supported: nil, hasSecret: true, endpoint: "t")
                == .none)
        #expect(
            try ClientAuthMethod.choose(configured: "client_secret_jwt", supported: nil, hasSecret: true, endpoint: "t")
                == .clientSecretJWT)
        // A key file given means private_key_jwt; a certificate tls_client_auth, or the self-signed method when that
        // is all discovery lists (RFC 8705 2.1, 2.2); either method asked for without what it needs: refused.
        #expect(
            try ClientAuthMethod.choose(
                configured: nil, supported: nil, hasSecret: false, hasCertificate: true, endpoint: "t")
                == .tlsClientAuth)
        #expect(
            try ClientAuthMethod.choose(
                configured: nil, supported: ["self_signed_tls_client_auth", "client_secret_basic"], hasSecret: false,
                hasCertificate: true, endpoint: "t") == .selfSignedTLSClientAuth)
        #expect(
            try ClientAuthMethod.choose(
                configured: "self_signed_tls_client_auth", supported: nil, hasSecret: false, hasCertificate: true,
                endpoint: "t") == .selfSignedTLSClientAuth)
        #expect(
            try ClientAuthMethod.choose(configured: nil, supported: nil, hasSecret: true, hasKey: true, endpoint: "t")
                == .privateKeyJWT)
        #expect(throws: SignInError.self) {
            try ClientAuthMethod.choose(configured: "private_key_jwt", supported: nil, hasSecret: true, endpoint: "t")
        }
        #expect(throws: SignInError.self) {
            try ClientAuthMethod.choose(configured: "tls_client_auth", supported: nil, hasSecret: true, endpoint: "t")
        }
        #expect(throws: SignInError.self) {
            try ClientAuthMethod.choose(
                configured: "client_secret_basic", supported: nil, hasSecret: false,
                endpoint: "t")
        }
        #expect(throws: SignInError.self) {
            try ClientAuthMethod.choose(
                configured: nil, supported: ["private_key_jwt"], hasSecret: true,
                endpoint: "token endpoint")
        }
    }

    @Test func anAssertionAlgorithmTheProviderDoesNotListIsRefusedBeforeAnythingIsSent() throws {
        let folder = TemporaryFolder()
        let secret = folder.write("secret", "a-shared-secret-of-some-length\n")
        do {
            _ = try ClientAuthentication.configured(
                .clientSecretJWT, secretFile: secret, keyFile: nil, keyID: nil, signingAlg: nil, audience: .endpoint,
                signingAlgorithms: ["RS256", "ES256"])
            Issue.record("HS256 was accepted though the provider lists only RS256 and ES256")
        } catch {
            #expect(error.message.contains("signed with RS256, ES256, not HS256"), "\(error.message)")
        }
        let allowed = try ClientAuthentication.configured(
            .clientSecretJWT, secretFile: secret, keyFile: nil, keyID: nil, signingAlg: nil, audience: .endpoint,
            signingAlgorithms: ["HS256"])
        #expect(allowed.method == .clientSecretJWT)
    }

    @Test(arguments: [("authdeck", "plain-secret-1"), ("my client:1", "p@ss word+/=%~é")])
    func basicCarriesTheFormEncodedPair(_ pair: (String, String)) throws {
        let transport = ScriptedTransport(["https://idp.test/token": (200, #"{"access_token":"at"}"#)])
        let client = OAuthClient(transport: transport, clientID: pair.0, authentication: .basic(pair.1))
        _ = try client.refresh("rt", endpoint: "https://idp.test/token")
        let request = try #require(transport.requests.first)
        let expected = "Basic " + (try Self.pythonBasic(pair.0, pair.1))
        #expect(ScriptedTransport.header(request, "Authorization") == expected)
        let form = ScriptedTransport.form(request)
        #expect(form["client_secret"] == nil && form["client_id"] == nil)
        #expect(form["grant_type"] == "refresh_token")
    }

    @Test func postCarriesTheSecretInTheBodyAndNoneOnlyTheID() throws {
        let transport = ScriptedTransport(["https://idp.test/revoke": (200, "")])
        try OAuthClient(transport: transport, clientID: "c", authentication: .secret("s"))
            .revoke("t", hint: "access_token", endpoint: "https://idp.test/revoke")
        try OAuthClient(transport: transport, clientID: "c", authentication: .none)
            .revoke("t", hint: "access_token", endpoint: "https://idp.test/revoke")
        let (post, none) = (transport.requests[0], transport.requests[1])
        #expect(ScriptedTransport.form(post)["client_secret"] == "s")
        #expect(ScriptedTransport.header(post, "Authorization") == nil)
        #expect(ScriptedTransport.form(none)["client_id"] == "c")
        #expect(ScriptedTransport.form(none)["client_secret"] == nil)
    }

    /// What Python's standard library makes of the pair: `quote_plus` (application/x-www-form-urlencoded, RFC 6749
    /// Appendix B) on each part, then base64 of `id:secret`.
    static func pythonBasic(_ id: String, _ secret: String) throws -> String {
        let script = """
            import base64, sys, urllib.parse
            id, secret = sys.stdin.read().split("\\n")[:2]
            pair = urllib.parse.quote_plus(id, safe="~") + ":" + urllib.parse.quote_plus(secret, safe="~")
            print(base64.b64encode(pair.encode()).decode(), end="")
            """
        return try Program.python(script, stdin: id + "\n" + secret + "\n").text
    }
}
