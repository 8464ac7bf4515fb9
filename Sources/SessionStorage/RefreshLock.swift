import AuthCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// One session's refresh lock, shared by every authdeck process on the store: whoever holds it reads the session,
/// asks the provider and writes the result, so a refresh token is sent once and never after it was rotated.
///
/// It is an `flock(2)` on a file of its own under `locks/` in the data folder, never a lock on the database or its
/// WAL: flock locks belong to the open file, so closing other descriptors cannot drop them, and the kernel
/// releases them when a holder dies (SIGKILL included). Lock files stay; they are empty and cost nothing.
public final class RefreshLock {
    private var descriptor: Int32

    /// Waits up to `timeoutSeconds` for the lock of session `key` in `directory`.
    init(directory: String, key: String, timeoutSeconds: Int) throws(StoreError) {
        let folder = directory + "/locks"
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .storage("cannot create \(folder): \(String(cString: strerror(errno)))")
        }
        // Hashed: a key may hold characters a file name cannot, and the name should not say which session it is.
        let name = Hex.encode(Array(SHA256.hash(Array(key.utf8)).prefix(16)))
        let path = folder + "/" + name + ".lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .storage("cannot open \(path): \(String(cString: strerror(errno)))") }
        var waited = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw .storage("cannot lock \(path): \(reason)")
            }
            guard waited < timeoutSeconds * 1000 else {
                close(descriptor)
                throw .storage("another authdeck has been refreshing '\(key)' for \(timeoutSeconds) s; try again")
            }
            usleep(20_000)
            waited += 20
        }
    }

    /// Lets the next waiter in; also done when the lock is released by deinit or the process ends.
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

extension SessionStore {
    /// Takes session `key`'s refresh lock (see `RefreshLock`). Read the session again after taking it: another
    /// process may have refreshed it while this one waited.
    public func refreshLock(_ key: String, timeoutSeconds: Int = 60) throws(StoreError) -> RefreshLock {
        try RefreshLock(directory: location.directory, key: key, timeoutSeconds: timeoutSeconds)
    }
}
