#if canImport(Glibc)
    import Glibc
#endif

/// Reads a file that holds a secret (a passphrase, a private key): like ssh with its keys, one that other users may
/// read is refused, not used. Both the store's passphrase files and the client's key files are read here.
public enum SecretFile {
    /// Why the file was not read, as one line about it.
    public struct Refusal: Error, Equatable {
        public let message: String
    }

    /// The file's bytes, at most `limit` of them. `subject` names the file in the refusals ("the passphrase file
    /// named by AUTHDECK_PASSPHRASE_FILE"); with `regularOnly` a pipe or device is refused too.
    public static func read(
        _ path: String, subject: String, regularOnly: Bool, limit: Int = 65_536
    ) throws(Refusal) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Refusal(message: "cannot read \(subject) (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Refusal(message: "cannot read \(subject)") }
        guard !regularOnly || info.st_mode & S_IFMT == S_IFREG else {
            throw Refusal(message: "\(subject) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Refusal(
                message: "\(subject) is open to other users (mode " + String(info.st_mode & 0o777, radix: 8)
                    + "); chmod 600 it")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Refusal(message: "cannot read \(subject)") }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw Refusal(message: "\(subject) is too large") }
        }
        return bytes
    }
}
