import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare TCP client for tests: sends exactly the bytes given and reads whatever comes back, so tests can
/// send what no well-behaved HTTP client would (oversized, unfinished, garbage).
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Opens a TCP connection to host:port; throws when the connection is refused.
    static func connect(host: String, port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure(description: "connect to \(host):\(port) failed: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Reads until the peer closes or the read times out.
    static func receiveAll(_ descriptor: Int32) -> String {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
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
