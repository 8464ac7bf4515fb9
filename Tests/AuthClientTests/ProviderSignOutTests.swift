import AuthClient
import AuthCore
import Foundation
import TestSupport
import Testing

/// The relying party's half of RP-Initiated Logout 1.0: the end-session address (section 2's four parameters after
/// the endpoint's own query), the fixed registered return address, and the state check at the receiver.
@Suite struct ProviderSignOutTests {
    func start(_ endpoint: String = "https://id.example/logout?ui_locales=de") throws -> (ProviderSignOut, UInt16) {
        let port = try PortHolder.freePort()
        let signOut = try ProviderSignOut(
            endpoint: endpoint, idToken: "h.p.s", clientID: "my client",
            postLogoutRedirectURI: "http://127.0.0.1:\(port)/logout")
        return (signOut, port)
    }

    /// The failure a wait ended in; nil for the provider's confirmed return.
    func outcome(_ result: Result<Void, ProviderSignOutFailure>) -> ProviderSignOutFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    @Test func theAddressKeepsTheEndpointsQueryAndAddsTheFourParameters() throws {
        let (signOut, port) = try start()
        defer { signOut.stop() }
        let items = try #require(URLComponents(string: signOut.url)?.queryItems)
        #expect(signOut.url.hasPrefix("https://id.example/logout?ui_locales=de&"))
        #expect(items.map(\.name) == ["ui_locales", "id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
        #expect(items[1].value == "h.p.s")
        #expect(items[2].value == "my client")
        #expect(items[3].value == "http://127.0.0.1:\(port)/logout")
        #expect(items[4].value?.count == 22)  // 128 random bits, base64url
    }

    @Test func theRedirectCountsOnlyWithTheSameState() throws {
        let (signOut, port) = try start()
        let state = try #require(URLComponents(string: signOut.url)?.queryItems?.last?.value)
        let forged = try RawHTTP.exchange(port: port, "GET /logout?state=forged HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(RawHTTP.status(of: forged) == 400)
        #expect(outcome(signOut.wait(timeout: 5)) == .stateMismatch)

        let (second, secondPort) = try start()
        let good = try #require(URLComponents(string: second.url)?.queryItems?.last?.value)
        #expect(good != state)
        let answer = try RawHTTP.exchange(port: secondPort, "GET /logout?state=\(good) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(RawHTTP.status(of: answer) == 200)
        #expect(RawHTTP.body(of: answer).contains("authdeck received the sign-out."))
        #expect(outcome(second.wait(timeout: 5)) == nil)
    }

    @Test func aPlainHTTPEndpointElsewhereOrAReturnAddressWithoutAFixedPortIsRefused() throws {
        #expect(throws: ProviderSignOutFailure.self) { try start("http://id.example/logout") }
        for uri in ["https://app.example/logout", "http://127.0.0.1/logout", "http://[::1]:8000/logout"] {
            #expect(throws: ProviderSignOutFailure.self) {
                try ProviderSignOut(
                    endpoint: "https://id.example/logout", idToken: "h.p.s", clientID: "c",
                    postLogoutRedirectURI: uri)
            }
        }
    }
}
