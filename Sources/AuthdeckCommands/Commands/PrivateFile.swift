import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Files only their owner reads (traces, export bundles), written whole or not at all: a new 0600 file next to the
/// path (never opened through a link), synced, then renamed over it, so neither a planted symlink nor an old file's
/// mode decides where the bytes go or who can read them.
enum PrivateFile {
    /// - Parameter failure: the one-line error when the file cannot be written.
    static func write(_ bytes: [UInt8], to path: String, failure: String) throws(CommandFailure) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CommandFailure(.failed, failure) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(descriptor)
                unlink(temporary)
                throw CommandFailure(.failed, failure)
            }
            offset += written
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CommandFailure(.failed, failure)
        }
    }
}
