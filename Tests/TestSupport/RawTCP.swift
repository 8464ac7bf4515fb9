import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare TCP client on 127.0.0.1 for tests: sends exactly the bytes given and reads whatever comes back, so tests
/// can send what no well-behaved HTTP client would (oversized, unfinished, garbage).
public enum RawTCP {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Opens a TCP connection to host:port whose reads give up after `timeout` seconds; throws when refused.
    public static func connect(host: String = "127.0.0.1", port: UInt16, timeout: Int = 10) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        var receiveTimeout = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
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

    /// Sends all of `bytes`, or as much as the peer takes before it closes.
    public static func send(_ descriptor: Int32, _ bytes: [UInt8]) {
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
    public static func receiveAll(_ descriptor: Int32) -> [UInt8] {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
