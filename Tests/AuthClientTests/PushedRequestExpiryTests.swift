import AuthClient
import AuthCore
import Foundation
import Testing

/// A pushed authorization request's `request_uri` is good for its `expires_in` only (RFC 9126 2.2): when the browser
/// reaches the provider later and the provider answers with an error, the sign-in's error says the link expired.
@Suite struct PushedRequestExpiryTests {
    @Test func anErrorAfterTheRequestURIExpiredSaysSo() throws {
        let sandbox = try TurnkeySandbox()
        var configuration = sandbox.configuration
        var oidc = configuration.provider("oidc", backend: "sandbox")
        // Endpoints from discovery, where the sandbox names its PAR endpoint.
        oidc.authorizationEndpoint = nil
        oidc.tokenEndpoint = nil
        oidc.pushedAuthorizationRequests = true
        configuration.providers?["oidc"] = oidc
        configuration.backends?["sandbox"]?.providers?["oidc"] = nil
        let clock = sandbox.clock
        let backend = try SignInBackendFactory.make(
            request: SignInRequest(provider: .oidc, backendName: "sandbox"), configuration: configuration,
            catalog: TurnkeySandbox.catalog, transport: CurlTransport(timeout: 5),
            metadata: ProviderMetadataCache(transport: CurlTransport(timeout: 5), folder: nil),
            clock: { Date(timeIntervalSince1970: clock.now) })
        let method = SignInMethod.browser(redirectURI: "http://127.0.0.1:5999/callback")
        let attempt = try backend.makeAttempt(id: AttemptID(1), method: method, deadline: Date.distantFuture)
        guard case .browser(let url) = try backend.begin(attempt) else {
            Issue.record("no browser prompt")
            return
        }
        #expect(url.contains("request_uri="))
        clock.advance(by: 91)
        let callback = try CallbackParser.parse(url: try sandbox.browse(url))
        #expect(callback.error == "invalid_request_uri")
        let told = try backend.responseParameters(callback)
        #expect(told.errorDescription?.contains("the pushed authorization request expired after 90 s") == true)
        #expect(told.state == attempt.state)
    }
}
