import AuthClient
import AuthCore
import Foundation
import LoopbackHTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The libcurl transport against real listeners on 127.0.0.1 (libmicrohttpd, raw sockets, Python's
/// ssl): every behaviour the URLSession transport had, kept.
@Suite struct CurlTransportTests {
    /// What the server saw of each request.
    typealias Seen = Recorded<HTTPRequest>

    func expectNetworkError(
        _ message: String, _ body: () throws -> IncomingResponse,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        do {
            let response = try body()
            Issue.record("answered \(response.status) instead of failing", sourceLocation: sourceLocation)
            return ""
        } catch {
            guard case .network(let text)? = error as? SignInError else {
                Issue.record("not a network error: \(error)", sourceLocation: sourceLocation)
                return "\(error)"
            }
            #expect(text.contains(message), "\(text)", sourceLocation: sourceLocation)
            return text
        }
    }

    @Test func aRedirectIsReturnedAsItIsAndNotFollowed() throws {
        let seen = Seen()
        let server = try HTTPServer { request in
            seen.append(request)
            if request.path == "/start" {
                return HTTPResponse(
                    status: 302, headers: [("Location", "/elsewhere?code=x")], body: Array("moved".utf8))
            }
            return .json(200, Array("{}".utf8))
        }
        defer { server.stop() }
        let response = try CurlTransport(timeout: 5).send(OutgoingRequest(url: server.baseURL + "/start"))
        #expect(response.status == 302)
        #expect(response.headers["location"] == "/elsewhere?code=x")
        #expect(response.body == Array("moved".utf8))
        #expect(seen.all.map(\.path) == ["/start"])
    }

    @Test func headersAreLowerCasedTheUserAgentIsOursAndNoCookieIsKept() throws {
        let seen = Seen()
        let server = try HTTPServer { request in
            seen.append(request)
            return HTTPResponse(
                status: 200,
                headers: [
                    ("X-Mixed-Case", "Value"), ("Set-Cookie", "sid=s3cret; Path=/"), ("Content-Type", "text/plain"),
                ],
                body: Array("ok".utf8))
        }
        defer { server.stop() }
        let transport = CurlTransport(timeout: 5)
        let first = try transport.send(OutgoingRequest(url: server.baseURL + "/one"))
        #expect(first.headers["x-mixed-case"] == "Value")
        #expect(first.headers["content-type"] == "text/plain")
        #expect(first.headers["set-cookie"] == "sid=s3cret; Path=/")
        #expect(first.headers.keys.allSatisfy { $0 == $0.lowercased() }, "\(first.headers.keys)")
        _ = try transport.send(OutgoingRequest(url: server.baseURL + "/two"))
        let requests = seen.all
        try #require(requests.count == 2)
        #expect(requests[1].headers["cookie"] == nil, "the second request carried \(requests[1].headers)")
        #expect(requests.allSatisfy { $0.headers["user-agent"] == "authdeck/0.1" })
    }

    @Test func bodiesMethodsAndHeadersArriveAsSent() throws {
        let seen = Seen()
        let server = try HTTPServer(maximumRequestBytes: 64 * 1024) { request in
            seen.append(request)
            return .json(200, Array("{}".utf8))
        }
        defer { server.stop() }
        let transport = CurlTransport(timeout: 5)
        // Over 1 KiB: libcurl would ask `Expect: 100-continue` for it unless told not to.
        let body = Array(String(repeating: "a=b&", count: 600).utf8)
        _ = try transport.send(.form(server.baseURL + "/form", [("grant_type", "x"), ("code", "y")]))
        _ = try transport.send(
            OutgoingRequest(
                method: "PUT", url: server.baseURL + "/put", headers: [("Content-Type", "text/plain")], body: body))
        _ = try transport.send(OutgoingRequest(method: "POST", url: server.baseURL + "/empty"))
        _ = try transport.send(
            OutgoingRequest(
                url: server.baseURL + "/get", headers: [("X-Twice", "first"), ("x-twice", "second"), ("X-Empty", "")]))
        let requests = seen.all
        try #require(requests.count == 4)
        #expect(requests[0].method == "POST")
        #expect(requests[0].headers["content-type"] == "application/x-www-form-urlencoded")
        #expect(requests[0].headers["accept"] == "application/json")
        #expect(requests[0].body == Array("grant_type=x&code=y".utf8))
        #expect(requests[1].method == "PUT")
        #expect(requests[1].body == body)
        #expect(requests[1].headers["expect"] == nil)
        #expect(requests[2].method == "POST")
        #expect(requests[2].body.isEmpty)
        #expect(requests[2].headers["content-length"] == "0")
        #expect(requests[2].headers["content-type"] == nil)
        #expect(requests[3].method == "GET")
        #expect(requests[3].headers["x-twice"] == "second")
        #expect(requests[3].headers["x-empty"] == "")
    }

    /// 50 MiB after the header block, the end marked only by closing: the script counts what it got out.
    static func streamingListener(announce: Int?, sent: Counter) throws -> ScriptedListener {
        try ScriptedListener { connection in
            _ = connection.readRequestHead()
            let length = announce.map { "Content-Length: \($0)\r\n" } ?? "Connection: close\r\n"
            connection.write(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(length)\r\n".utf8))
            let chunk = [UInt8](repeating: 0x20, count: 64 * 1024)
            for _ in 0..<(50 * 16) {
                guard connection.write(chunk) else { return }
                sent.increment()
            }
        }
    }

    @Test func anAnswerOverOneMebibyteWithoutContentLengthIsCutOffWhileItArrives() throws {
        let sent = Counter()
        let listener = try Self.streamingListener(announce: nil, sent: sent)
        _ = expectNetworkError("127.0.0.1 sent more than 1 MiB") {
            try CurlTransport(timeout: 20).send(OutgoingRequest(url: listener.baseURL + "/big"))
        }
        listener.stop()
        // The client went away long before the end: 800 chunks of 64 KiB would be 50 MiB.
        #expect(sent.value < 400, "the server got \(sent.value) chunks of 64 KiB out")
    }

    @Test func anAnswerAnnouncingOverOneMebibyteIsRefusedAtOnce() throws {
        // The header block announces 2 MiB and then nothing comes: waiting for the body would end in the timeout.
        let listener = try ScriptedListener { connection in
            _ = connection.readRequestHead()
            connection.write(Array("HTTP/1.1 200 OK\r\nContent-Length: \(2 << 20)\r\n\r\n".utf8))
            _ = connection.waitForClose(seconds: 30)
        }
        defer { listener.stop() }
        _ = expectNetworkError("127.0.0.1 sent more than 1 MiB") {
            try CurlTransport(timeout: 10).send(OutgoingRequest(url: listener.baseURL + "/bigcl"))
        }
    }

    @Test(arguments: [true, false])
    func anAnswerOfExactlyOneMebibyteIsTaken(_ announce: Bool) throws {
        let size = 1 << 20
        let listener = try ScriptedListener { connection in
            _ = connection.readRequestHead()
            let length = announce ? "Content-Length: \(size)\r\n" : "Connection: close\r\n"
            connection.write(Array("HTTP/1.1 200 OK\r\n\(length)\r\n".utf8))
            connection.write([UInt8](repeating: 0x41, count: size))
        }
        defer { listener.stop() }
        let response = try CurlTransport(timeout: 20).send(OutgoingRequest(url: listener.baseURL + "/mib"))
        #expect(response.status == 200)
        #expect(response.body.count == size)
    }

    @Test func aServerThatNeverAnswersTimesOutWithTheSameMessage() throws {
        let listener = try ScriptedListener { connection in
            _ = connection.readRequestHead()
            _ = connection.waitForClose(seconds: 30)
        }
        defer { listener.stop() }
        let message = expectNetworkError("no answer from 127.0.0.1 within 1 s") {
            try CurlTransport(timeout: 1).send(OutgoingRequest(url: listener.baseURL + "/slow"))
        }
        #expect(message == "no answer from 127.0.0.1 within 1 s")
    }

    @Test func anErrorNamesTheHostAndNeverTheQuery() throws {
        // A port nobody listens on: bound, then closed again.
        let holder = try ScriptedListener { _ in }
        let port = holder.port
        holder.stop()
        let message = expectNetworkError("127.0.0.1") {
            try CurlTransport(timeout: 5).send(
                OutgoingRequest(url: "http://127.0.0.1:\(port)/token?code=secret-code-4711&state=s"))
        }
        #expect(!message.contains("secret-code-4711"), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func plainHTTPElsewhereAndOtherSchemesAreRefusedBeforeLibcurl() {
        for url in ["http://example.com/x", "file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"] {
            do {
                _ = try CurlTransport(timeout: 2).send(OutgoingRequest(url: url))
                Issue.record("\(url) was sent")
            } catch {
                guard case .unavailable = error else {
                    Issue.record("\(url): \(error)")
                    continue
                }
            }
        }
    }

    /// A TLS listener on 127.0.0.1 with a self-signed certificate for that address (openssl, Python's ssl):
    /// libcurl must refuse it, which shows both that verification is on and that the CA bundle was loaded (a
    /// missing bundle is another error, "error setting certificate file").
    @Test func aSelfSignedCertificateIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curl-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("cert.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        guard (try? openssl.run()) != nil else {
            return try SecurityTestPrecondition.unavailable("no openssl to make a certificate")
        }
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            return try SecurityTestPrecondition.unavailable("openssl could not make a certificate")
        }
        let script = """
            import http.server, ssl, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"{}")
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, certificate, key]
        let output = Pipe()
        python.standardOutput = output
        guard (try? python.run()) != nil else {
            return try SecurityTestPrecondition.unavailable("no python3 for the TLS listener")
        }
        defer {
            // SIGKILL: the test process's children may inherit SIGTERM ignored.
            kill(python.processIdentifier, SIGKILL)
            python.waitUntilExit()
        }
        var line = [UInt8]()
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        let port = try #require(Int(String(decoding: line, as: UTF8.self)), "the TLS listener printed no port")
        let message = expectNetworkError("certificate problem") {
            try CurlTransport(timeout: 5).send(OutgoingRequest(url: "https://127.0.0.1:\(port)/x?code=tls-secret"))
        }
        #expect(message.hasPrefix("127.0.0.1: "), "\(message)")
        #expect(!message.contains("tls-secret"))
        #expect(!message.contains("setting certificate"), "\(message)")
    }
}
