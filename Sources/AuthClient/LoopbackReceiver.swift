import AuthCore
import Foundation
import LoopbackHTTP

/// What a receiver learned from the sign-in about one callback it delivered.
public enum CallbackVerdict: Equatable, Sendable {
    /// Taken: the sign-in goes on in the terminal.
    case accepted
    /// Refused, with a one-line reason for the browser page (never a token).
    case refused(String)
}

/// The loopback redirect receiver (SPEC 3.2): `http://127.0.0.1:PORT/callback` on libmicrohttpd, GET with a query
/// or form POST, 16 KiB cap, 404 for other paths, and pages that say what to do next.
public final class LoopbackReceiver: Sendable {
    public typealias Deliver = @Sendable (Result<Callback, CallbackParser.Failure>, _ source: String) -> CallbackVerdict
    private let server: HTTPServer
    public static let path = "/callback"
    /// The path redirects arrive on: `/callback`, or a registered redirect URI's own.
    public let callbackPath: String

    /// - Parameter port: 0 for an ephemeral port (the default), or the one `--listen` or the redirect URI names.
    /// - Parameter received: what the browser page says when a callback is taken.
    public init(
        port: UInt16 = 0, path: String = LoopbackReceiver.path, pages: CallbackPages,
        received: String = "authdeck received the sign-in.", deliver: @escaping Deliver
    ) throws(SignInError) {
        callbackPath = path
        do {
            server = try HTTPServer(
                host: "127.0.0.1", port: port, maximumRequestBytes: CallbackParser.maximumLength,
                connectionTimeout: 10
            ) { request in
                Self.handle(request, path: path, pages: pages, received: received, deliver: deliver)
            }
        } catch {
            throw .unavailable(reason: "the loopback receiver cannot listen: \(error.description)")
        }
    }

    public var port: UInt16 { server.port }
    public var redirectURI: String { "http://127.0.0.1:\(server.port)\(callbackPath)" }

    public func stop() { server.stop() }

    static func handle(
        _ request: HTTPRequest, path: String, pages: CallbackPages,
        received: String = "authdeck received the sign-in.", deliver: Deliver
    ) -> HTTPResponse {
        // Another local user may know this attempt's state: only this user's own sockets may answer it, and a
        // refusal leaves the attempt as it was.
        guard LoopbackPeer.isCurrentUser(request) else {
            return pages.error(403, "This sign-in belongs to another user of this computer.")
        }
        guard request.path == path else { return .text(404, "Not found.\n") }
        // Any web page open in the browser can send a request here too (an <img>, a fetch): only the browser's
        // own navigation to the redirect counts. Browsers without Fetch Metadata, and curl, send neither header.
        guard isNavigation(request) else {
            return pages.error(403, "Only the browser's own navigation to this address may deliver a sign-in.")
        }
        let parsed: Result<Callback, CallbackParser.Failure>
        switch request.method {
        case "GET":
            parsed = Result { () throws(CallbackParser.Failure) in
                try CallbackParser.parse(url: "http://127.0.0.1" + request.target)
            }
        case "POST":
            guard request.contentType == "application/x-www-form-urlencoded" else {
                return pages.error(415, "The sign-in answer had an unexpected format.")
            }
            parsed = Result { () throws(CallbackParser.Failure) in try CallbackParser.parse(form: request.body) }
        default:
            return HTTPResponse(
                status: 405, headers: [("Allow", "GET, POST")], body: Array("Method not allowed.\n".utf8))
        }
        switch deliver(parsed, "loopback") {
        case .accepted: return pages.success(received)
        case .refused(let reason): return pages.error(400, reason)
        }
    }

    /// Whether the request is a top-level navigation, as far as the browser's Fetch Metadata says: an absent
    /// `Sec-Fetch-Mode` or `Sec-Fetch-Dest` says nothing, a present one must be `navigate` or `document`.
    static func isNavigation(_ request: HTTPRequest) -> Bool {
        let mode = request.headers["sec-fetch-mode"].map { $0.lowercased() }
        let destination = request.headers["sec-fetch-dest"].map { $0.lowercased() }
        return (mode ?? "navigate") == "navigate" && (destination ?? "document") == "document"
    }
}

/// The browser pages from Resources (callback-success.html, callback-error.html), with the message escaped in.
public struct CallbackPages: Sendable {
    let successTemplate: String
    let errorTemplate: String

    public init(resources: URL = ResourceFolder.locate()) {
        func load(_ name: String, fallback: String) -> String {
            (try? String(contentsOf: resources.appendingPathComponent(name), encoding: .utf8)) ?? fallback
        }
        successTemplate = load(
            "callback-success.html", fallback: "<!doctype html><p>{{message}}</p><p>Return to your terminal.</p>")
        errorTemplate = load(
            "callback-error.html", fallback: "<!doctype html><p>{{message}}</p><p>Return to your terminal.</p>")
    }

    func success(_ message: String) -> HTTPResponse {
        .html(200, successTemplate.replacingOccurrences(of: "{{message}}", with: Self.escape(message)))
    }

    func error(_ status: Int, _ message: String) -> HTTPResponse {
        .html(status, errorTemplate.replacingOccurrences(of: "{{message}}", with: Self.escape(message)))
    }

    static func escape(_ text: String) -> String { HTMLText.escape(text) }
}
