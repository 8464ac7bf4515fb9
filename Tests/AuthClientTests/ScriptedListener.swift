import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on 127.0.0.1 whose answer is whatever bytes a test writes, for what no HTTP server library
/// does on purpose: stream a body with no end in sight, announce a length it never sends, answer nothing at all.
/// Each connection runs `script` on its own thread with the connected descriptor (closed afterwards);
/// `stop()` (or deinit) closes the listener and waits for every script to return.
final class ScriptedListener: @unchecked Sendable {
    typealias Script = @Sendable (ScriptedListener.Connection) -> Void

    /// One accepted connection, for a script.
    struct Connection: Sendable {
        let descriptor: Int32

        /// Reads until the end of the request's header block (or the peer closes); returns what came.
        func readRequestHead() -> String {
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received.append(contentsOf: buffer[0..<count])
            }
            return String(decoding: received, as: UTF8.self)
        }

        /// Writes all of `bytes`; false once the peer has gone (reset or closed).
        @discardableResult func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }

        /// Waits until the peer closes the connection or `seconds` pass; true when it closed.
        func waitForClose(seconds: Int) -> Bool {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = Date().addingTimeInterval(TimeInterval(seconds))
            while Date() < deadline {
                guard poll(&entry, 1, 100) > 0 else { continue }
                if recv(descriptor, &buffer, buffer.count, 0) <= 0 { return true }
            }
            return false
        }
    }

    let port: UInt16
    private let listening: Int32
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var stopped = false

    init(_ script: @escaping Script) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTP.Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw RawHTTP.Failure(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        listening = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let group = group
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            while true {
                let connected = accept(descriptor, nil, nil)
                if connected < 0 {
                    if errno == EINTR { continue }
                    return
                }
                group.enter()
                Thread.detachNewThread {
                    script(Connection(descriptor: connected))
                    close(connected)
                    group.leave()
                }
            }
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and waits for the scripts still running.
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // On Linux this wakes the blocked accept (EINVAL); the descriptor is closed after the thread has left.
        shutdown(listening, Int32(SHUT_RDWR))
        group.wait()
        close(listening)
    }

    deinit { stop() }
}
