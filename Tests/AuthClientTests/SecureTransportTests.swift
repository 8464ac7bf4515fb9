import AuthClient
import AuthCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import LoopbackHTTP
#endif

/// Https is required of every issuer, endpoint and proxy; plain http only to this machine.
@Suite struct SecureTransportTests {
    /// This machine's first IPv4 address that is not loopback, if it has one.
    static func nonLoopbackAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var raw = inet.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            let value = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !value.hasPrefix("127.") { return value }
        }
        return nil
    }

    @Test func plainHTTPToAnotherHostIsRefusedWithoutAConnection() throws {
        let transport = CurlTransport(timeout: 5)
        guard let address = Self.nonLoopbackAddress() else {
            print("skipped the reachable-host half: no non-loopback IPv4 address")
            #expect(throws: SignInError.self) { _ = try transport.send(OutgoingRequest(url: "http://192.0.2.1/x")) }
            return
        }
        // A server this machine can reach over plain http on a non-loopback address: the request must not arrive.
        let hits = Hits()
        let server = try HTTPServer(host: address, port: 0) { _ in
            hits.add()
            return .json(200, Array("{}".utf8))
        }
        defer { server.stop() }
        do {
            _ = try transport.send(OutgoingRequest(url: "http://\(address):\(server.port)/.well-known/openid"))
            Issue.record("plain http to \(address) was sent")
        } catch {
            #expect(error.message.contains("https is required"), "\(error.message)")
        }
        #expect(hits.count == 0)
    }

    @Test func loopbackHTTPStillWorks() throws {
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in .json(200, Array("{}".utf8)) }
        defer { server.stop() }
        let response = try CurlTransport(timeout: 5).send(OutgoingRequest(url: server.baseURL + "/x"))
        #expect(response.status == 200)
    }

    @Test func thePolicyKnowsLoopbackHosts() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(URLPolicy.isLoopbackHost(host)) }
        for host in ["127.0.0.1.example.com", "128.0.0.1", "localhost.example", "10.0.0.1", "0.0.0.0", "127.0.0.256"] {
            #expect(!URLPolicy.isLoopbackHost(host), "\(host)")
        }
    }

    final class Hits: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }
}
