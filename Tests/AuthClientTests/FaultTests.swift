import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults around a running sign-in: a flood of bogus requests at the loopback receiver, and a provider that goes
/// away in the middle of the exchange.
@Suite(.serialized) struct FaultTests {
    func controller(
        for provider: TestProvider, presenter: RecordingPresenter, stored: PersistedSessions,
        timeout: TimeInterval = 3
    ) -> (SignInController, DirectSignIn) {
        let backend = provider.directSignIn(transport: CurlTransport(timeout: timeout))
        let controller = SignInController.recording(presenter, persist: stored.persist)
        return (controller, backend)
    }

    @Test func aThousandBogusRequestsDoNotStopTheFlow() throws {
        let provider = try TestProvider()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let (controller, backend) = controller(for: provider, presenter: presenter, stored: stored)
        controller.start(backend, timeout: 120)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let redirect) = attempt.method,
            let port = UInt16(redirect.split(separator: ":")[2].prefix { $0.isNumber })
        else {
            Issue.record("no loopback redirect")
            return
        }
        // Four clients, 250 requests each: forged states, garbage, wrong paths, oversized bodies.
        let group = DispatchGroup()
        let answered = Counter()
        for client in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for index in 0..<250 {
                    let request: String
                    switch (client + index) % 4 {
                    case 0:
                        request =
                            "GET /callback?code=x\(index)&state=forged\(index) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                    case 1: request = "\u{07}\u{00}garbage \(index)\r\n\r\n"
                    case 2: request = "GET /elsewhere HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
                    default:
                        request =
                            "POST /callback HTTP/1.1\r\nHost: a\r\nContent-Length: 999999\r\nConnection: close\r\n\r\n"
                    }
                    if let response = try? RawHTTP.exchange(port: port, request), RawHTTP.status(of: response) != nil {
                        answered.increment()
                    }
                }
            }
        }
        group.wait()
        #expect(answered.value >= 900, "the receiver answered only \(answered.value) of 1000 bogus requests")
        #expect(provider.tokenRequests == 0)
        let code = provider.issueCode(nonce: attempt.nonce, challenge: PKCE.challenge(for: attempt.codeVerifier))
        let response = try RawHTTP.exchange(
            port: port,
            "GET /callback?code=\(code)&state=\(attempt.state) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: response) == 200)
        guard case .success? = presenter.waitForEnd() else {
            Issue.record("the flow did not complete")
            return
        }
        #expect(stored.count == 1)
        #expect(provider.tokenRequests == 1)
    }

    @Test func providerGoneMidExchangeIsAClearErrorAndNothingIsStored() throws {
        var provider: TestProvider? = try TestProvider()
        let presenter = RecordingPresenter()
        let stored = PersistedSessions()
        let (controller, backend) = controller(for: provider!, presenter: presenter, stored: stored)
        controller.start(backend, timeout: 60)
        let attempt = try #require(presenter.waitForBegin())
        guard case .browser(let redirect) = attempt.method else {
            Issue.record("no browser attempt")
            return
        }
        let code = provider!.issueCode(nonce: attempt.nonce, challenge: PKCE.challenge(for: attempt.codeVerifier))
        provider = nil  // the provider's listener stops: the exchange finds nobody at the token endpoint
        #expect(controller.paste("\(redirect)?code=\(code)&state=\(attempt.state)") == .accepted)
        let result = try #require(presenter.waitForEnd())
        guard case .failure(.network(let message)) = result else {
            Issue.record("unexpected: \(result)")
            return
        }
        #expect(!message.isEmpty && !message.contains(code))
        #expect(stored.count == 0)
    }
}

/// A counter shared by worker threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
