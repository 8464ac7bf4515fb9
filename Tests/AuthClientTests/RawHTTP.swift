import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Raw HTTP exchanges for tests over `RawTCP`: exactly the bytes given go out and whatever comes back is read, so
/// tests can send what no well-behaved HTTP client would (oversized, unfinished, garbage).
enum RawHTTP {
    typealias Failure = RawTCP.Failure

    /// Opens a TCP connection to host:port; throws when the connection is refused.
    static func connect(host: String, port: UInt16) throws -> Int32 {
        try RawTCP.connect(host: host, port: port)
    }

    static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
        RawTCP.send(descriptor, bytes)
    }

    /// Reads until the peer closes or the read times out.
    static func receiveAll(_ descriptor: Int32) -> String {
        String(decoding: RawTCP.receiveAll(descriptor), as: UTF8.self)
    }

    /// One whole exchange with `Connection: close`; returns the raw response.
    static func exchange(port: UInt16, _ request: String, host: String = "127.0.0.1") throws -> String {
        let descriptor = try connect(host: host, port: port)
        defer { close(descriptor) }
        send(descriptor, Array(request.utf8))
        return receiveAll(descriptor)
    }

    static func status(of response: String) -> Int? {
        let parts = response.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    static func body(of response: String) -> String {
        guard let range = response.range(of: "\r\n\r\n") else { return "" }
        return String(response[range.upperBound...])
    }
}
