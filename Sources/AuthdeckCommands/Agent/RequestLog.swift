import AuthCore
import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's request log: one line per request with time, session, peer and verdict; never a token. The file is
/// appended to, never reached through a link, and the agent's user's alone (0600); each line is written with one
/// `write` (whole even while several requests are logged at once), anything not plainly visible escaped (`\u{A}`).
struct RequestLog: Sendable {
    let descriptor: Int32

    init(path: String?) throws(CommandFailure) {
        guard let path else {
            descriptor = STDERR_FILENO
            return
        }
        // Non-blocking only while it is opened: a FIFO planted at the path must not hang the agent.
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw CommandFailure(.failed, "cannot open the log \(path): \(reason)")
        }
        var status = stat()
        let problem: String? =
            if fstat(descriptor, &status) != 0 {
                String(cString: strerror(errno))
            } else if status.st_mode & S_IFMT != S_IFREG {
                "it is not a regular file"
            } else if status.st_uid != geteuid() {
                "it belongs to uid \(status.st_uid), not to you"
            } else if fchmod(descriptor, 0o600) != 0 || fcntl(descriptor, F_SETFL, O_APPEND) != 0 {
                String(cString: strerror(errno))
            } else {
                nil
            }
        if let problem {
            close(descriptor)
            throw CommandFailure(.failed, "cannot use \(path) as the log: \(problem)")
        }
    }

    func record(_ event: String) {
        let line = Array((SessionJSON.iso8601(Date()) + " " + SessionKeyRule.escaped(event) + "\n").utf8)
        _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
