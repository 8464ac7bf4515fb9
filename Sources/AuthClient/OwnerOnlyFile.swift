import AuthCore
import Foundation

/// Reads a file that holds a secret (a private key): like ssh with its keys, and as passphrase files are read, one
/// that other users may read is refused, not used.
enum OwnerOnlyFile {
    /// The file's bytes; `what` names it in the one-line errors ("the private key file").
    static func read(_ file: String, what: String, limit: Int = 65_536) throws(SignInError) -> [UInt8] {
        let path = (file as NSString).expandingTildeInPath
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unavailable(reason: "cannot read the \(what) \(file) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .unavailable(reason: "the \(what) \(file) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .unavailable(
                reason: "the \(what) \(file) is open to other users (mode "
                    + String(info.st_mode & 0o777, radix: 8) + "); chmod 600 it")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .unavailable(reason: "cannot read the \(what) \(file)") }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw .unavailable(reason: "the \(what) \(file) is too large") }
        }
        guard !bytes.isEmpty else { throw .unavailable(reason: "the \(what) \(file) is empty") }
        return bytes
    }
}
