import AuthClient
import AuthCore
import Foundation
import LoopbackHTTP
import Testing

/// Where the loopback receiver listens: a registered loopback redirect URI's port and path, `--listen`, or any port;
/// a port that is taken is an error naming it.
@Suite struct LoopbackBindingTests {
    @Test func theRegisteredRedirectDecidesPortAndPath() throws {
        let fixed = try LoopbackBinding.resolve(registered: "http://127.0.0.1:8765/oauth/done", listenPort: 0)
        #expect(
            fixed
                == LoopbackBinding(
                    port: 8765, path: "/oauth/done",
                    registeredURI: "http://127.0.0.1:8765/oauth/done"))
        #expect(
            try LoopbackBinding.resolve(registered: "http://localhost:9000/callback", listenPort: 9000).port
                == 9000)
        #expect(try LoopbackBinding.resolve(registered: nil, listenPort: 7000) == LoopbackBinding(port: 7000))
        #expect(try LoopbackBinding.resolve(registered: nil, listenPort: 0) == LoopbackBinding())
        // Apple's https relay is not the receiver's business.
        #expect(
            try LoopbackBinding.resolve(registered: "https://relay.example/cb", listenPort: 0)
                == LoopbackBinding())
        #expect(throws: SignInError.self) {
            try LoopbackBinding.resolve(registered: "http://127.0.0.1:8765/callback", listenPort: 9000)
        }
        for unusable in ["http://[::1]:8765/cb", "http://127.0.0.1/cb"] {
            #expect(throws: SignInError.self) { try LoopbackBinding.resolve(registered: unusable, listenPort: 0) }
        }
        #expect(LoopbackBinding.listenPort("127.0.0.1:8765") == 8765)
        #expect(LoopbackBinding.listenPort("0.0.0.0:8765") == nil && LoopbackBinding.listenPort("8765") == nil)
    }

    @Test func theReceiverServesExactlyTheRegisteredPath() throws {
        let receiver = try LoopbackBinding(port: 0, path: "/oauth/done").open(pages: CallbackPages()) { _, _ in
            .refused("test")
        }
        defer { receiver.stop() }
        #expect(receiver.redirectURI == "http://127.0.0.1:\(receiver.port)/oauth/done")
        #expect(try get(receiver.port, "/callback?code=x&state=y") == 404)
        #expect(try get(receiver.port, "/oauth/done?code=x&state=y") == 400)
    }

    func get(_ port: UInt16, _ target: String) throws -> Int? {
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        return RawHTTP.status(of: try RawHTTP.exchange(port: port, request))
    }

    @Test func aTakenPortIsNamed() throws {
        let holder = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .text(200, "mine\n") }
        defer { holder.stop() }
        let binding = try LoopbackBinding.resolve(
            registered: "http://127.0.0.1:\(holder.port)/callback",
            listenPort: 0)
        do {
            let receiver = try binding.open(pages: CallbackPages()) { _, _ in .accepted }
            receiver.stop()
            Issue.record("listened on a taken port")
        } catch {
            #expect(error.message.contains("port \(holder.port) on 127.0.0.1 is in use"))
            #expect(error.message.contains("http://127.0.0.1:\(holder.port)/callback"))
        }
        #expect(binding.unavailableReason()?.contains("port \(holder.port)") == true)
    }
}
