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
    public static func form(_ url: String, _ pairs: [(String, String)], headers: [(String, String)] = [])
        -> OutgoingRequest
    {
        OutgoingRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
                + headers,
            body: Array(FormEncoding.encode(pairs).utf8))
    }

    /// A JSON POST, as the auth proxies take.
    public static func json(_ url: String, _ body: [UInt8], headers: [(String, String)] = []) -> OutgoingRequest {
        OutgoingRequest(
            method: "POST", url: url,
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
/// credentials to another host. Only https goes out, plain http only to a loopback host (`URLPolicy`); an answer
/// over `maximumBody` is cut off while it arrives (and at once when its Content-Length says so), never buffered.
public final class URLSessionTransport: NSObject, HTTPTransport, @unchecked Sendable {
    public let timeout: TimeInterval
    private let session: URLSession
    private let collector: ResponseCollector
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
        collector = ResponseCollector(limit: Self.maximumBody)
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: queue)
        super.init()
    }

    deinit { session.invalidateAndCancel() }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        try URLPolicy.requireSecure(request.url)
        guard let url = URL(string: request.url), url.host != nil else {
            throw .unavailable(reason: "'\(Self.redacted(request.url))' is not an http(s) URL")
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }

        let started = Date()
        let task = session.dataTask(with: urlRequest)
        let exchange = collector.register(task)
        defer { collector.forget(task) }
        task.resume()
        guard exchange.wait(seconds: timeout + 1) else {
            task.cancel()
            throw .network(message: "no answer from \(url.host ?? "the server") within \(Int(timeout)) s")
        }
        let (response, body, error, tooLarge) = exchange.values
        if tooLarge {
            // Cancelled here, not in the delegate: swift-corelibs-foundation ignores a cancel (or a `.cancel`
            // disposition) from inside its own callbacks and would read the whole answer.
            task.cancel()
            throw .network(message: "\(url.host ?? "the server") sent more than 1 MiB")
        }
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
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return IncomingResponse(
            status: http.statusCode, headers: headers, body: body,
            duration: Date().timeIntervalSince(started))
    }

    /// A URL for messages: scheme, host and path only, so query parameters (codes, tokens) never leak.
    public static func redactedForDisplay(_ text: String) -> String { redacted(text) }

    static func redacted(_ text: String) -> String {
        guard let components = URLComponents(string: text), let host = components.host else { return "(invalid URL)" }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "?")://\(host)\(port)\(components.path)"
    }
}

/// The session delegate: gathers each task's answer as it arrives and stops a task whose body passes the cap, so
/// a hostile server cannot make authdeck hold hundreds of megabytes. Runs on the session's serial queue.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let limit: Int
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    init(limit: Int) { self.limit = limit }

    func register(_ task: URLSessionTask) -> Exchange {
        let exchange = Exchange()
        lock.lock()
        exchanges[task.taskIdentifier] = exchange
        lock.unlock()
        return exchange
    }

    func forget(_ task: URLSessionTask) {
        lock.lock()
        exchanges[task.taskIdentifier] = nil
        lock.unlock()
    }

    private func exchange(_ task: URLSessionTask) -> Exchange? {
        lock.lock()
        defer { lock.unlock() }
        return exchanges[task.taskIdentifier]
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(dataTask) else { return completionHandler(.cancel) }
        if response.expectedContentLength > Int64(limit) {
            exchange.markTooLarge()
        } else {
            exchange.setResponse(response)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask)?.append(data, limit: limit)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchange(task)?.finish(error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// One request's answer as it arrives, handed to the waiting caller when the task completes.
private final class Exchange: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var response: URLResponse?
    private var body: [UInt8] = []
    private var error: Error?
    private var tooLarge = false
    private var finished = false

    func setResponse(_ response: URLResponse) {
        lock.lock()
        self.response = response
        lock.unlock()
    }

    /// The answer is over the cap: the body is dropped and the waiting caller wakes now (and cancels the task).
    func markTooLarge() {
        lock.lock()
        tooLarge = true
        body = []
        lock.unlock()
        finish(nil)
    }

    /// Adds a chunk, or drops it (and gives up on the answer) once the body would pass `limit`.
    func append(_ data: Data, limit: Int) {
        lock.lock()
        let over = tooLarge || body.count + data.count > limit
        if !over { body.append(contentsOf: data) }
        lock.unlock()
        if over { markTooLarge() }
    }

    func finish(_ error: Error?) {
        lock.lock()
        guard !finished else { return lock.unlock() }
        finished = true
        if self.error == nil { self.error = error }
        lock.unlock()
        semaphore.signal()
    }

    func wait(seconds: TimeInterval) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }

    var values: (URLResponse?, [UInt8], Error?, Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (response, body, error, tooLarge)
    }
}
