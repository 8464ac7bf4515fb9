#if canImport(Glibc)
    import Glibc
#endif

/// A connected or listening Unix stream socket: what the agent and its clients speak over, one JSON line each way.
struct UnixSocket {
    let descriptor: Int32

    /// Why a socket call failed, as a sentence (strerror).
    struct Failure: Error {
        let message: String
    }

    /// The longest path a sockaddr_un holds, without its terminating NUL.
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    private static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw Failure(message: "the socket path must be 1 to \(maximumPathLength) bytes long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    private static func lastError() -> Failure { Failure(message: String(cString: strerror(errno))) }

    /// Connects to the socket at `path`, with send and receive timeouts of `timeoutSeconds`.
    static func connect(_ path: String, timeoutSeconds: Int) throws(Failure) -> UnixSocket {
        var address = try address(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw lastError() }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = lastError()
            Glibc.close(descriptor)
            throw failure
        }
        let socket = UnixSocket(descriptor: descriptor)
        socket.setTimeout(seconds: timeoutSeconds)
        return socket
    }

    /// Listens at `path` with mode 0600: the socket is made under umask 077, so it is never open to others.
    static func listen(_ path: String) throws(Failure) -> UnixSocket {
        var address = try address(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw lastError() }
        let previous = umask(0o077)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(descriptor, SOMAXCONN) == 0 else {
            let failure = lastError()
            Glibc.close(descriptor)
            throw failure
        }
        return UnixSocket(descriptor: descriptor)
    }

    func setTimeout(seconds: Int) {
        var interval = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The peer's process, user and group ids (SO_PEERCRED), as the kernel saw them at connect time.
    func peer() -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        // struct ucred is { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields.
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<UInt32>.size * 3)
        let result = credentials.withUnsafeMutableBytes {
            getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length)
        }
        guard result == 0, length == socklen_t(MemoryLayout<UInt32>.size * 3) else { return nil }
        return (Int32(bitPattern: credentials[0]), credentials[1], credentials[2])
    }

    /// Reads up to the first newline (not kept), at most `limit` bytes; nil on EOF before one, a timeout or too long.
    /// Bytes after the newline are dropped, as one line each way is all a client sends (`LineReader` keeps them).
    func readLine(limit: Int = 65_536, until deadline: ContinuousClock.Instant? = nil) -> [UInt8]? {
        var reader = LineReader(self)
        return reader.next(limit: limit, until: deadline)
    }

    /// The lines of one connection in turn: what came after a line's newline (a client that sent several requests
    /// at once) is kept for the next.
    struct LineReader {
        let socket: UnixSocket
        private var pending: [UInt8] = []

        init(_ socket: UnixSocket) {
            self.socket = socket
        }

        /// The next line, as `readLine`. With a `deadline`, the whole line must have come by then, however the
        /// bytes trickle in: what has come is read without waiting (most often the whole line, as a request is sent
        /// at once), and only when nothing has does it wait, until the deadline. The chunk is on the stack: a 4 KiB
        /// heap block per request made glibc consolidate its free lists each time.
        mutating func next(limit: Int = 65_536, until deadline: ContinuousClock.Instant? = nil) -> [UInt8]? {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...end) }
                return end <= limit ? Array(pending[..<end]) : nil
            }
            let descriptor = socket.descriptor
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { chunk -> [UInt8]? in
                while pending.count <= limit {
                    if let deadline, ContinuousClock.now >= deadline { return nil }
                    let count = recv(
                        descriptor, chunk.baseAddress, chunk.count, deadline == nil ? 0 : Int32(MSG_DONTWAIT))
                    if count < 0 && errno == EINTR { continue }
                    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), let deadline {
                        guard socket.waitForInput(until: deadline) else { return nil }
                        continue
                    }
                    guard count > 0 else { return nil }
                    let start = pending.count
                    pending.append(contentsOf: chunk[0..<count])
                    if let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                        defer { pending.removeSubrange(...end) }
                        return end <= limit ? Array(pending[..<end]) : nil
                    }
                }
                return nil
            }
        }
    }

    /// Whether a byte (or the end) can be read before `deadline`.
    fileprivate func waitForInput(until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32((left / .milliseconds(1)).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            return ready > 0
        }
    }

    /// Writes all of `bytes`; false when the peer went away or timed out.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    func close() { _ = Glibc.close(descriptor) }
}
