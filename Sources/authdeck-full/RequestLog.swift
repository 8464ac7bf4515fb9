import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's request log: one line per request with time, session, peer and verdict; never a token.
struct RequestLog: Sendable {
    let descriptor: Int32

    init(path: String?) throws(CommandFailure) {
        guard let path else {
            descriptor = STDERR_FILENO
            return
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(.failed, "cannot open the log \(path): \(String(cString: strerror(errno)))")
        }
    }

    func record(_ event: String) {
        let line = Array((SessionJSON.iso8601(Date()) + " " + event + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
