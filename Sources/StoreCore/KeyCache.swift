import CKeyutils

#if canImport(Glibc)
    import Glibc
#endif

/// The unlocked master key cached in the kernel's user keyring (keyutils), so the commands that follow an unlock
/// need neither D-Bus nor scrypt. The entry is named after the store's random id, so two stores never share it.
///
/// The cache is an optimisation, never a key source of its own: when the kernel refuses (containers whose seccomp
/// profile blocks keyctl, exhausted quotas) every call quietly behaves as a miss.
public struct KeyCache: Sendable {
    public let storeID: String

    public init(storeID: String) {
        self.storeID = storeID
    }

    package var description: String { "authdeck:master-key:" + storeID }

    /// The cached key, or nil on a miss (absent, expired, revoked, or keyutils unavailable).
    public func read() -> [UInt8]? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", description, 0)
        guard serial > 0, let key = Self.payload(of: key_serial_t(serial), atMost: 64), key.count == 32 else {
            return nil
        }
        return key
    }

    /// The payload of key `serial`, read with one call into a buffer of `capacity` bytes (where the library's
    /// `keyctl_read_alloc` asks the size first); nil when unreadable, empty or larger.
    package static func payload(of serial: key_serial_t, atMost capacity: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: capacity)
        let count = bytes.withUnsafeMutableBytes {
            keyctl_read(serial, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }
        guard count > 0, count <= capacity else {
            bytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) }
            return nil
        }
        bytes.removeSubrange(Int(count)...)
        return bytes
    }

    /// Caches `key` for `seconds`; zero or negative seconds caches nothing. Returns whether it was cached.
    @discardableResult
    public func store(_ key: [UInt8], seconds: Int) -> Bool {
        guard seconds > 0 else { return false }
        let serial = key.withUnsafeBytes { bytes in
            add_key("user", description, bytes.baseAddress, bytes.count, KEY_SPEC_USER_KEYRING)
        }
        guard serial > 0 else { return false }
        if keyctl_set_timeout(serial, UInt32(clamping: seconds)) != 0 {
            // A key that cannot expire must not stay: drop it rather than keep the store unlocked forever.
            _ = keyctl_invalidate(serial)
            return false
        }
        return true
    }

    /// Drops the cached key (what `store lock` does). Returns whether there was one.
    @discardableResult
    public func drop() -> Bool {
        var dropped = false
        // Several entries can exist if the description was added twice in a race; remove them all.
        while true {
            let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", description, 0)
            guard serial > 0 else { break }
            if keyctl_invalidate(key_serial_t(serial)) != 0
                && keyctl_unlink(key_serial_t(serial), KEY_SPEC_USER_KEYRING) != 0
            {
                break
            }
            dropped = true
        }
        return dropped
    }
}
