import AuthClient
import AuthCore
import Foundation

/// A transport that answers from a script by URL and keeps every request it was sent, for checks of what goes on
/// the wire (headers, body) without a server.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [String: (Int, String)]
    private(set) var sent: [OutgoingRequest] = []

    init(_ answers: [String: (Int, String)]) {
        self.answers = answers
    }

    func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        lock.lock()
        sent.append(request)
        let answer = answers[request.url.split(separator: "?")[0].description] ?? (404, "")
        lock.unlock()
        return IncomingResponse(
            status: answer.0, headers: ["content-type": "application/json"],
            body: Array(answer.1.utf8), duration: 0)
    }

    var requests: [OutgoingRequest] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    /// The form pairs of a request's body.
    static func form(_ request: OutgoingRequest) -> [String: String] {
        let pairs = FormEncoding.decode(Substring(String(decoding: request.body, as: UTF8.self))) ?? []
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    static func header(_ request: OutgoingRequest, _ name: String) -> String? {
        request.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
