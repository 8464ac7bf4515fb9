import AuthCore
import CMicroHTTPD
import Foundation
import Synchronization

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// A small HTTP/1.1 server on libmicrohttpd, bound to one IPv4 address (127.0.0.1 for every use authdeck has),
/// with a cap on the request size and a timeout for clients that never finish sending. The handler runs on
/// libmicrohttpd's thread (one for the whole server, or with `threadPerConnection` one per connection, so a handler
/// that waits delays only its own request); it must not block on the server itself.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The port actually bound (useful after asking for port 0).
    public let port: UInt16
    public let host: String
    private let context: Unmanaged<ServerContext>
    /// The running daemon; nil once stopped.
    private let daemon: Mutex<OpaquePointer?>

    /// - Parameters:
    ///   - maximumRequestBytes: a request whose body exceeds this is answered 413 and never reaches the handler.
    ///   - connectionTimeout: seconds of silence after which a connection is dropped.
    ///   - threadPerConnection: serve each connection on a thread of its own (handlers then run concurrently).
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, maximumRequestBytes: Int = 16 * 1024,
        connectionTimeout: UInt32 = 10, connectionLimit: UInt32 = 256, threadPerConnection: Bool = false,
        handler: @escaping Handler
    ) throws(HTTPServerError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw HTTPServerError(description: "'\(host)' is not an IPv4 address")
        }
        let context = Unmanaged.passRetained(ServerContext(handler: handler, maximumBody: maximumRequestBytes))
        // The header buffer gets room beyond the body cap so ordinary headers fit; larger requests are refused.
        let memoryLimit = max(32 * 1024, maximumRequestBytes + 16 * 1024)
        var failure: UnsafePointer<CChar>?
        guard
            let started = mhd_shim_start(
                &address, httpServerURILogger, context.toOpaque(),
                httpServerAccess, context.toOpaque(), httpServerCompleted, nil,
                connectionTimeout, memoryLimit, connectionLimit, threadPerConnection ? 1 : 0, &failure)
        else {
            context.release()
            if let failure { throw HTTPServerError(description: String(cString: failure)) }
            throw HTTPServerError(description: "cannot listen on \(host):\(port) (\(String(cString: strerror(errno))))")
        }
        self.host = host
        self.port = mhd_shim_bound_port(started)
        self.context = context
        self.daemon = Mutex(started)
    }

    /// The base URL, e.g. `http://127.0.0.1:4711`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Stops listening and closes every connection; waits for a running handler to return. Safe to call twice,
    /// and from a handler (then the stop completes on another thread, since libmicrohttpd cannot join the thread
    /// it is running on).
    public func stop() {
        shutDown(releasing: nil)
    }

    deinit {
        // The last reference can go away inside a handler (a receiver whose owner finishes there); the context
        // must outlive the daemon's threads, so it is released only after the stop.
        shutDown(releasing: context)
    }

    private func shutDown(releasing context: Unmanaged<ServerContext>?) {
        let running = daemon.withLock { daemon in
            let running = daemon
            daemon = nil
            return running
        }
        guard let running else {
            context?.release()
            return
        }
        let stop = DaemonStop(daemon: running, context: context)
        if ServerThreadMark.isCurrentThreadMarked {
            // The handler that asked is still answering: its response must reach the client (a browser showing
            // "signed in") before the daemon closes every connection, so the stop waits for them, up to a second.
            Thread.detachNewThread { stop.run(waitingForConnections: true) }
        } else {
            stop.run()
        }
    }
}

/// One daemon to stop, and the context to release after it, handed to whichever thread stops it.
// Unchecked: it holds C handles (not Sendable), and exactly one thread, the one that stops the daemon, uses them.
private final class DaemonStop: @unchecked Sendable {
    let daemon: OpaquePointer
    let context: Unmanaged<ServerContext>?

    init(daemon: OpaquePointer, context: Unmanaged<ServerContext>?) {
        self.daemon = daemon
        self.context = context
    }

    func run(waitingForConnections: Bool = false) {
        if waitingForConnections {
            for _ in 0..<50 where mhd_shim_connection_count(daemon) > 0 { usleep(20_000) }
        }
        mhd_shim_stop_daemon(daemon)
        context?.release()
    }
}

/// Marks libmicrohttpd's threads, so a stop requested on one of them is moved to another thread.
enum ServerThreadMark {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static func markCurrentThread() {
        if pthread_getspecific(key) == nil { pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1)) }
    }

    static var isCurrentThreadMarked: Bool { pthread_getspecific(key) != nil }
}

/// What the C callbacks need: the handler and the body cap.
final class ServerContext: Sendable {
    let handler: HTTPServer.Handler
    let maximumBody: Int

    init(handler: @escaping HTTPServer.Handler, maximumBody: Int) {
        self.handler = handler
        self.maximumBody = maximumBody
    }
}

/// One request in flight, created by the URI logger and released when libmicrohttpd completes the request.
final class RequestInFlight {
    let target: String
    var body: [UInt8] = []
    var tooLarge = false
    /// libmicrohttpd calls the handler once when the headers are in, before any body; only later calls carry
    /// the body and, with no data left, mean the request is complete.
    var started = false

    init(target: String) { self.target = target }
}

// The callbacks are file-scope functions: they run on libmicrohttpd's thread, outside any actor.

private func httpServerURILogger(
    _ context: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?,
    _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    ServerThreadMark.markCurrentThread()
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(RequestInFlight(target: target)).toOpaque()
}

private func httpServerCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ reason: MHD_RequestTerminationCode
) {
    guard let requestContext, let pointer = requestContext.pointee else { return }
    Unmanaged<RequestInFlight>.fromOpaque(pointer).release()
    requestContext.pointee = nil
}

private func collectHeader(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let headers = context.assumingMemoryBound(to: [String: String].self)
    headers.pointee[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private func httpServerAccess(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let requestContext, let uploadDataSize else { return .NO }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()
    guard let pointer = requestContext.pointee else { return .NO }
    let request = Unmanaged<RequestInFlight>.fromOpaque(pointer).takeUnretainedValue()

    if !request.started {
        request.started = true
        // A body announced larger than the cap is refused at once, rather than read (or waited for) first.
        if let announced = mhd_shim_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let length = Int(String(cString: announced)), length > server.maximumBody
        {
            request.tooLarge = true
            return queue(.text(413, "Request too large.\n"), on: connection)
        }
        return .YES
    }
    if uploadDataSize.pointee > 0 && request.tooLarge {
        uploadDataSize.pointee = 0
        return .YES
    }
    if uploadDataSize.pointee > 0 {
        // Keep reading (and dropping) what exceeds the cap, so the client gets a 413 rather than a reset.
        if !request.tooLarge, let uploadData {
            if request.body.count + uploadDataSize.pointee > server.maximumBody {
                request.tooLarge = true
                request.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadDataSize.pointee) {
                    request.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadDataSize.pointee))
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    let response: HTTPResponse
    if request.tooLarge {
        response = .text(413, "Request too large.\n")
    } else {
        var headers: [String: String] = [:]
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = mhd_shim_get_connection_values(connection, .HEADER_KIND, collectHeader, pointer)
        }
        let methodName = method.map { String(cString: $0) } ?? "GET"
        var incoming = HTTPRequest(method: methodName, target: request.target, headers: headers, body: request.body)
        var peer = mhd_shim_endpoint()
        var local = mhd_shim_endpoint()
        mhd_shim_connection_endpoints(connection, &peer, &local)
        incoming.peer = TCPEndpoint(peer)
        incoming.local = TCPEndpoint(local)
        response = server.handler(incoming)
    }
    return queue(response, on: connection)
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let body = response.body
    let created = body.withUnsafeBytes { bytes in
        mhd_shim_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
            .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { mhd_shim_destroy_response(created) }
    for (name, value) in response.headers {
        _ = mhd_shim_add_response_header(created, name, value)
    }
    _ = mhd_shim_add_response_header(created, "Cache-Control", "no-store")
    return mhd_shim_queue_response(connection, UInt32(response.status), created)
}

extension TCPEndpoint {
    /// The shim's endpoint, or nil when it is unknown (its length is 0).
    init?(_ endpoint: mhd_shim_endpoint) {
        let bytes = withUnsafeBytes(of: endpoint.address) { Array($0.prefix(Int(endpoint.length))) }
        self.init(address: bytes, port: endpoint.port)
    }
}
