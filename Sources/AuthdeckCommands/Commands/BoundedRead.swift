import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A whole file (or, with `standardInput`, `-` for standard input) read into one byte array, up to a cap: a regular file larger than the cap
/// is refused by its size before a byte is read, anything else (`/dev/zero`, a pipe) as soon as it passes the cap.
/// Read straight into the array: 100,000 sessions are ~45 MB, and a `Data` grown by doubling and then copied cost
/// a tenth of a second.
enum BoundedRead {
    enum Failure: Error {
        case unreadable
        case tooLarge
    }

    static func bytes(_ path: String, limit: Int, standardInput: Bool = false) throws(Failure) -> [UInt8] {
        let descriptor = standardInput && path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var info = stat()
        let expected = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        if expected > limit { throw .tooLarge }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(expected + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .unreadable }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw .tooLarge }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}
