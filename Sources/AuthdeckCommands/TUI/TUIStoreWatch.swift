#if canImport(Glibc)
    import Glibc
#endif

/// An inotify watch on the store's folder: another process's commit writes the database's WAL there, which makes
/// `descriptor` readable, so the event loop looks at the store's change counter only after something was written
/// rather than every second. Nil when the folder does not exist yet or inotify is unavailable.
final class TUIStoreWatch {
    let descriptor: Int32

    init?(directory: String) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Reads the pending notices (their content does not matter: the change counter says what changed).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }
}
