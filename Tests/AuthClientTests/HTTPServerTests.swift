import AuthClient
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import LoopbackHTTP
#endif

/// The libmicrohttpd server under every receiver and the sandbox, against a real listener on 127.0.0.1.
@Suite struct HTTPServerTests {
    static func echo() throws -> HTTPServer {
        try HTTPServer(maximumRequestBytes: 1024, connectionTimeout: 2) { request in
            let text =
                "\(request.method) \(request.path) q=\(request.query) ct=\(request.contentType) "
                + "body=\(String(decoding: request.body, as: UTF8.self))"
            return .text(200, text)
        }
    }

    @Test func getWithRawQuery() throws {
        let server = try Self.echo()
        defer { server.stop() }
        #expect(server.port != 0)
        let response = try RawHTTP.exchange(
            port: server.port,
            "GET /callback?code=a%2Bb&state=s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: response) == 200)
        #expect(RawHTTP.body(of: response) == "GET /callback q=code=a%2Bb&state=s ct= body=")
        #expect(response.contains("Cache-Control: no-store"))
    }

    @Test func formPost() throws {
        let server = try Self.echo()
        defer { server.stop() }
        let body = "code=c&state=s"
        let response = try RawHTTP.exchange(
            port: server.port,
            "POST /callback HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Content-Type: application/x-www-form-urlencoded; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body)
        #expect(
            RawHTTP.body(of: response) == "POST /callback q= ct=application/x-www-form-urlencoded body=code=c&state=s")
    }

    @Test func oversizedBodyIsRefusedAndTheServerGoesOn() throws {
        let server = try Self.echo()
        defer { server.stop() }
        let body = String(repeating: "a", count: 4000)
        let response = try RawHTTP.exchange(
            port: server.port,
            "POST /callback HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(RawHTTP.status(of: response) == 413)
        let huge = "GET /callback?" + String(repeating: "x", count: 64 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        let hugeResponse = try RawHTTP.exchange(port: server.port, huge)
        #expect(RawHTTP.status(of: hugeResponse) != 200)
        let after = try RawHTTP.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: after) == 200)
    }

    @Test func unfinishedRequestDoesNotBlockOthers() throws {
        let server = try Self.echo()
        defer { server.stop() }
        let stuck = try RawHTTP.connect(host: "127.0.0.1", port: server.port)
        defer { close(stuck) }
        RawHTTP.send(stuck, Array("POST /callback HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc".utf8))
        let response = try RawHTTP.exchange(
            port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: response) == 200)
        // The stuck client is dropped once the connection timeout passes.
        let leftover = RawHTTP.receiveAll(stuck)
        #expect(!leftover.contains("200 OK"))
    }

    @Test func anAnnouncedOversizedBodyIsRefusedBeforeItArrives() throws {
        // The server would wait 30 s for a body; the client reads for 10 s. Only an answer given before the body
        // arrives reaches the client.
        let server = try HTTPServer(maximumRequestBytes: 1024, connectionTimeout: 30) { _ in .text(200, "read") }
        defer { server.stop() }
        let response = try RawHTTP.exchange(
            port: server.port,
            "POST /callback HTTP/1.1\r\nHost: x\r\n"
                + "Content-Length: 100000000\r\n\r\n")
        #expect(RawHTTP.status(of: response) == 413)
    }

    @Test func garbageGetsAnErrorNotACrash() throws {
        let server = try Self.echo()
        defer { server.stop() }
        let response = try RawHTTP.exchange(port: server.port, "\u{01}\u{02}garbage\r\n\r\n")
        #expect(RawHTTP.status(of: response) ?? 400 >= 400)
        let after = try RawHTTP.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: after) == 200)
    }

    @Test func listensOnLoopbackOnly() throws {
        let server = try Self.echo()
        defer { server.stop() }
        #expect(throws: RawHTTP.Failure.self) { _ = try RawHTTP.connect(host: "127.0.0.2", port: server.port) }
        #expect(throws: HTTPServerError.self) { _ = try HTTPServer(host: "localhost") { _ in .text(200, "") } }
    }

    @Test func aHandlerMayStopAndReleaseItsOwnServer() throws {
        // libmicrohttpd aborts the process when a daemon is stopped from its own thread; the server must move
        // such a stop elsewhere. Here the handler drops the last reference, as a finished sign-in's receiver does.
        let holder = ServerHolder()
        holder.server = try HTTPServer { _ in
            holder.server = nil
            return .text(200, "bye")
        }
        let port = try #require(holder.server?.port)
        let response = try RawHTTP.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(RawHTTP.status(of: response) == 200)
        var refused = false
        for _ in 0..<100 where !refused {
            refused =
                (try? RawHTTP.connect(host: "127.0.0.1", port: port)).map {
                    close($0)
                    return false
                } ?? true
            if !refused { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(refused)
    }

    @Test func stoppedServerRefusesConnections() throws {
        let server = try Self.echo()
        let port = server.port
        server.stop()
        server.stop()
        #expect(throws: RawHTTP.Failure.self) { _ = try RawHTTP.connect(host: "127.0.0.1", port: port) }
    }
}

/// Holds a server that its own handler releases.
final class ServerHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var held: HTTPServer?

    var server: HTTPServer? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return held
        }
        set {
            lock.lock()
            let old = held
            held = newValue
            lock.unlock()
            _ = old  // released here, outside the lock: this may run the server's deinit
        }
    }
}
