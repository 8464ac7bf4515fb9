import AuthCore
import CProcess
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The custom-scheme receiver (SPEC 3.2): the desktop entry runs `authdeck open-url authdeck://callback?…`, which
/// hands the URL over a Unix socket (`$XDG_RUNTIME_DIR/authdeck/callback.sock`, 0600 in a 0700 folder) to the
/// waiting instance. One line in (the URL), one line out (`ok` or `refused: reason`).
public final class SchemeReceiver: Sendable {
    public let socketPath: String
    private let listener: Int32
    private let stopped = StopFlag()
    public static let scheme = "authdeck"
    static let maximumLine = CallbackParser.maximumLength + 64

    /// The socket path for this user: under `$XDG_RUNTIME_DIR`, else a per-user folder in /tmp.
    public static func defaultSocketPath(environment: [String: String]) -> String {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/authdeck-\(getuid())"
        return base + "/authdeck/callback.sock"
    }

    public init(socketPath: String, deliver: @escaping LoopbackReceiver.Deliver) throws(SignInError) {
        self.socketPath = socketPath
        let folder = (socketPath as NSString).deletingLastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        // Both levels (the /tmp fallback can be made first by anyone) must be this user's and closed to others.
        try SchemeReceiver.privateFolder(parent)
        try SchemeReceiver.privateFolder(folder)
        guard socketPath.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw .unavailable(reason: "the callback socket path is too long")
        }
        // A socket left by a crashed instance is replaced; a live one means another sign-in is waiting.
        if SchemeReceiver.isListening(socketPath) {
            throw .unavailable(reason: "another authdeck sign-in is already waiting for authdeck:// callbacks")
        }
        unlink(socketPath)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .unavailable(reason: "cannot create the callback socket") }
        var address = SchemeReceiver.address(socketPath)
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previousMask)
        guard bound == 0, listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw .unavailable(reason: "cannot listen on \(socketPath)")
        }
        chmod(socketPath, 0o600)
        listener = descriptor
        let stopped = self.stopped
        let thread = Thread {
            SchemeReceiver.serve(descriptor, stopped: stopped, deliver: deliver)
        }
        thread.name = "authdeck-scheme-receiver"
        thread.start()
    }

    /// Makes `path` (mode 0700) unless it exists, then requires a real folder owned by this user that no one else
    /// can write to: a folder planted by another user is refused, never used or "fixed".
    static func privateFolder(_ path: String) throws(SignInError) {
        mkdir(path, 0o700)
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            throw .unavailable(reason: "\(path) is not a folder of this user")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .unavailable(reason: "\(path) can be written by other users")
        }
    }

    /// The uid of the process at the other end of a Unix socket (SO_PEERCRED), nil when unknown.
    static func peerUID(_ descriptor: Int32) -> uid_t? {
        var uid: uid_t = 0
        return cprocess_peer_uid(descriptor, &uid) == 0 ? uid : nil
    }

    public func stop() {
        guard stopped.set() else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(socketPath)
    }

    deinit { stop() }

    private static func serve(_ listener: Int32, stopped: StopFlag, deliver: LoopbackReceiver.Deliver) {
        while !stopped.isSet {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready <= 0 { continue }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let line = readLine(client)
            let verdict: CallbackVerdict
            if peerUID(client) != geteuid() {
                // Another user's process: its URL never reaches the sign-in.
                verdict = .refused("this sign-in belongs to another user")
            } else if let line, line.lowercased().hasPrefix(scheme + ":") {
                verdict = deliver(
                    Result { () throws(CallbackParser.Failure) in try CallbackParser.parse(url: line) },
                    "scheme")
            } else {
                verdict = .refused("not an authdeck:// URL")
            }
            let answer: String
            switch verdict {
            case .accepted: answer = "ok\n"
            case .refused(let reason): answer = "refused: \(reason)\n"
            }
            _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }

    private static func readLine(_ descriptor: Int32) -> String? {
        var bytes = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= maximumLine {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.contains(UInt8(ascii: "\n")) { break }
        }
        guard bytes.count <= maximumLine,
            let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? (bytes.isEmpty ? nil : bytes.endIndex)
        else {
            return nil
        }
        return String(validating: bytes[..<end], as: UTF8.self)
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8)
            buffer.copyBytes(from: bytes.prefix(buffer.count - 1))
        }
        return address
    }

    static func isListening(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }

    /// `authdeck open-url`: hands `url` to the waiting instance and returns its answer.
    public static func handOver(_ url: String, socketPath: String) throws(SignInError) -> CallbackVerdict {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .unavailable(reason: "cannot create a socket") }
        defer { close(descriptor) }
        var address = address(socketPath)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw .unavailable(reason: "no authdeck sign-in is waiting for this redirect") }
        // Whoever listens gets the code: only a listener of this user is given the URL.
        guard peerUID(descriptor) == geteuid() else {
            throw .unavailable(reason: "\(socketPath) is held by another user; the redirect was not handed over")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let line = url + "\n"
        _ = line.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        guard let answer = readLine(descriptor) else {
            throw .unavailable(reason: "the waiting authdeck did not answer")
        }
        if answer == "ok" { return .accepted }
        return .refused(answer.hasPrefix("refused: ") ? String(answer.dropFirst(9)) : answer)
    }
}

/// A flag set once, read from another thread.
final class StopFlag: Sendable {
    private let value = Mutex(false)

    /// Sets the flag; false when it was already set.
    func set() -> Bool {
        value.withLock { value in
            if value { return false }
            value = true
            return true
        }
    }

    var isSet: Bool {
        value.withLock { $0 }
    }
}
