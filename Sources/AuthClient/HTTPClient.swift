import AuthCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request authdeck sends to a provider, proxy or the sandbox.
public struct OutgoingRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A form POST (`application/x-www-form-urlencoded`), as token endpoints take.
    public static func form(_ url: String, _ pairs: [(String, String)], headers: [(String, String)] = []) -> OutgoingRequest {
        OutgoingRequest(method: "POST", url: url,
                        headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
                            + headers,
                        body: Array(FormEncoding.encode(pairs).utf8))
    }

    /// A JSON POST, as the auth proxies take.
    public static func json(_ url: String, _ body: [UInt8], headers: [(String, String)] = []) -> OutgoingRequest {
        OutgoingRequest(method: "POST", url: url,
                        headers: [("Content-Type", "application/json"), ("Accept", "application/json")] + headers,
                        body: body)
    }
}

/// What came back.
public struct IncomingResponse: Sendable {
    public let status: Int
    /// Header names lower-cased.
    public let headers: [String: String]
    public let body: [UInt8]
    /// Wall time of the exchange, for traces.
    public let duration: TimeInterval

    public init(status: Int, headers: [String: String], body: [UInt8], duration: TimeInterval) {
        self.status = status
        self.headers = headers
        self.body = body
        self.duration = duration
    }

    /// The body as a JSON value; `network` error naming the status when it is not JSON (an HTML error page,
    /// a proxy's banner).
    public func json() throws(SignInError) -> JSONValue {
        do {
            return try JSONValue.parse(body)
        } catch {
            let type = headers["content-type"].map { " (\($0.split(separator: ";")[0]))" } ?? ""
            throw .network(message: "HTTP \(status): the answer is not JSON\(type)")
        }
    }
}

/// Something that sends requests: `URLSessionTransport` for the world; a recorder adds tracing around it.
public protocol HTTPTransport: Sendable {
    func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse
}

/// Sends requests with Foundation's URLSession, blocking the caller until the answer or the timeout.
/// Redirects are not followed: an OAuth endpoint that redirects is misconfigured, and following could leak
/// credentials to another host.
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionTaskDelegate, @unchecked Sendable {
    public let timeout: TimeInterval
    private let session: URLSession
    /// Answers larger than this are refused; no provider answer comes near it.
    public static let maximumBody = 1 << 20

    public init(timeout: TimeInterval = 15) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpAdditionalHeaders = ["User-Agent": "authdeck/0.1"]
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
        super.init()
    }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host != nil else {
            throw .unavailable(reason: "'\(Self.redacted(request.url))' is not an http(s) URL")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }

        let started = Date()
        let box = ResultBox()
        let task = session.dataTask(with: urlRequest) { data, response, error in
            box.set(data: data, response: response, error: error)
        }
        task.delegate = self
        task.resume()
        guard box.wait(seconds: timeout + 1) else {
            task.cancel()
            throw .network(message: "no answer from \(url.host ?? "the server") within \(Int(timeout)) s")
        }
        let (data, response, error) = box.values
        if let error {
            let nsError = error as NSError
            if nsError.code == NSURLErrorTimedOut {
                throw .network(message: "no answer from \(url.host ?? "the server") within \(Int(timeout)) s")
            }
            throw .network(message: "\(url.host ?? "the server"): \(nsError.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw .network(message: "\(url.host ?? "the server") sent no HTTP answer")
        }
        let body = data.map { Array($0) } ?? []
        guard body.count <= Self.maximumBody else {
            throw .network(message: "\(url.host ?? "the server") sent more than 1 MiB")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return IncomingResponse(status: http.statusCode, headers: headers, body: body,
                                duration: Date().timeIntervalSince(started))
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    /// A URL for messages: scheme, host and path only, so query parameters (codes, tokens) never leak.
    public static func redactedForDisplay(_ text: String) -> String { redacted(text) }

    static func redacted(_ text: String) -> String {
        guard let components = URLComponents(string: text), let host = components.host else { return "(invalid URL)" }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "?")://\(host)\(port)\(components.path)"
    }
}

/// Hands a URLSession completion to the waiting caller.
private final class ResultBox: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stored: (Data?, URLResponse?, Error?) = (nil, nil, nil)

    func set(data: Data?, response: URLResponse?, error: Error?) {
        lock.lock()
        stored = (data, response, error)
        lock.unlock()
        semaphore.signal()
    }

    func wait(seconds: TimeInterval) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }

    var values: (Data?, URLResponse?, Error?) {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
