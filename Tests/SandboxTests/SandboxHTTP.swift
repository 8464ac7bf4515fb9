import AuthCore
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A bare HTTP/1.1 client over a TCP socket, one request per connection: it never follows redirects, sends
/// exactly the bytes asked for (garbage included), and hands back status, headers and body.
enum SandboxHTTP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    struct Reply {
        let status: Int
        /// Lower-cased names.
        let headers: [String: String]
        let body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        /// A string at a dotted path of the JSON body, e.g. "data.userJwt".
        func string(_ path: String) -> String? {
            var current: Any? = json
            for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
            return current as? String
        }
        /// The query of the Location header, decoded.
        var locationQuery: [String: String] {
            guard let location = headers["location"], let mark = location.firstIndex(of: "?") else { return [:] }
            let pairs = FormEncoding.decode(location[location.index(after: mark)...]) ?? []
            return Dictionary(pairs, uniquingKeysWith: { _, last in last })
        }
    }

    /// Sends `raw` as is. `halfClose` shuts the sending side afterwards, as a client that gives up would, so a
    /// server waiting for more bytes learns at once that none will come.
    static func send(port: UInt16, raw: [UInt8], halfClose: Bool = false, timeout: Int = 10) throws -> Reply {
        let descriptor: Int32
        do { descriptor = try RawTCP.connect(port: port, timeout: timeout) } catch {
            throw Failure(description: "connect failed")
        }
        defer { close(descriptor) }
        RawTCP.send(descriptor, raw)
        if halfClose { shutdown(descriptor, Int32(SHUT_WR)) }
        let received = RawTCP.receiveAll(descriptor)
        return try parse(received)
    }

    /// One request. `target` is a path with query, or a full `http://127.0.0.1:PORT/…` URL.
    static func request(
        _ method: String, port: UInt16, _ target: String, headers: [String: String] = [:],
        body: [UInt8] = []
    ) throws -> Reply {
        var path = target
        if let range = target.range(of: "://") {
            let afterScheme = target[range.upperBound...]
            path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try send(port: port, raw: Array(head.utf8) + body)
    }

    static func form(
        port: UInt16, _ target: String, _ fields: [(String, String)],
        headers: [String: String] = [:]
    ) throws -> Reply {
        var all = headers
        all["Content-Type"] = "application/x-www-form-urlencoded"
        return try request("POST", port: port, target, headers: all, body: Array(FormEncoding.encode(fields).utf8))
    }

    static func json(
        port: UInt16, _ target: String, _ object: [String: Any],
        headers: [String: String] = [:]
    ) throws -> Reply {
        var all = headers
        all["Content-Type"] = "application/json"
        let body = try JSONSerialization.data(withJSONObject: object)
        return try request("POST", port: port, target, headers: all, body: Array(body))
    }

    private static func parse(_ bytes: [UInt8]) throws -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no complete response (\(bytes.count) bytes)")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), body.count > length {
            body = Array(body.prefix(length))
        }
        return Reply(status: status, headers: headers, body: body)
    }
}
