import CKeyutils
import CProcess

#if canImport(Glibc)
    import Glibc
#endif

/// The session rows `authdeck token` last answered from, kept in the kernel's user keyring beside the cached master
/// key, so the next `token` for the same session reads them there and opens no database: the schema parse and the
/// WAL set-up were most of its time (BENCHMARKS.md).
///
/// The rows are held in one keyring per state of the database's main file and WAL (`TokenCache.name`: the device,
/// inode and birth time of each, the main file's status-change time, the WAL's modification time and size), with
/// the session key as each entry's name and, under `selectedName`, the key of the selected session. An entry holds
/// what the database row holds: the store id, the key-check value, the expiry and storage times and the secret blob,
/// still sealed under the master key, so the keyring holds nothing the database file does not, and a row is no use
/// without the master key cached beside it.
///
/// It is never a source of its own, only a copy that must not outlive the row it copies:
/// - **Any write renames the keyring.** A commit appends to the WAL (or, after a checkpoint, rewrites it), which moves
///   the WAL's modification time and size; a checkpoint, or a backup copied over the file, moves the main file's
///   ctime. A reader looks for the keyring of the files' state as it finds them, so it never finds one made before a
///   write, whoever wrote: authdeck, the `sqlite3` shell or `cp`.
/// - **authdeck's own commits also drop the keyring**, of the name just before and just after the commit
///   (`SessionStore` installs this on its connection), for kernels whose coarse timestamps could leave a name
///   unchanged by a write in the same clock tick. A reader finds or makes the keyring before it reads the database
///   and adds the row it read to that one, so a row read before a commit lands in a keyring that commit dropped.
/// - The keyring lives ten minutes at most, and holds eight sessions at most (the kernel's key quota for a user is
///   small: 20,000 bytes by default), with rows of at most 4 KiB.
///
/// When the kernel refuses (no keyutils, a full quota, a seccomp profile) every call is a miss, as for `KeyCache`.
package struct TokenCache {
    package let name: String

    /// The name under which the selected session's key is kept: no session key can contain a space.
    static let selectedName = " selected"
    static let lifetimeSeconds: UInt32 = 600
    static let maximumSessions = 8
    static let maximumRowBytes = 4_096

    /// The cache of the database at `path` as its main file and WAL are now; nil when either cannot be examined.
    package init?(databasePath: String) {
        var main = [CChar](repeating: 0, count: 96)
        var log = [CChar](repeating: 0, count: 96)
        // The WAL by its content (modification time and size): every reader opens it, and as root SQLite chowns
        // it on every open, which moves its ctime.
        guard cprocess_file_state_name(databasePath, 0, &main, main.count) == 0,
            cprocess_file_state_name(databasePath + "-wal", 1, &log, log.count) == 0
        else { return nil }
        name = "authdeck:tokens:" + String(cString: main) + "/" + String(cString: log)
    }

    /// What one entry holds: the session row's columns `TokenRead` answers from.
    package struct Row: Equatable {
        package var storeID: String
        package var keyCheck: [UInt8]?
        package var key: String
        package var expiresAt: Double?
        package var storedAt: Double?
        package var secret: [UInt8]
    }

    /// The keyring, if a reader made it and no writer has dropped it since.
    package func ring() -> key_serial_t? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "keyring", name, 0)
        return serial > 0 ? key_serial_t(serial) : nil
    }

    /// The keyring, made now (with its lifetime) when there is none, after dropping the keyrings of this file's
    /// earlier states.
    package func ringMadeIfMissing() -> key_serial_t? {
        if let ring = ring() { return ring }
        dropEarlierStates()
        let serial = add_key("keyring", name, nil, 0, KEY_SPEC_USER_KEYRING)
        guard serial > 0 else { return nil }
        guard keyctl_set_timeout(serial, Self.lifetimeSeconds) == 0 else {
            _ = keyctl_invalidate(serial)
            return nil
        }
        return serial
    }

    /// The row of session `key` (nil: the selected session) in `ring`, or nil.
    package static func row(_ key: String?, in ring: key_serial_t) -> Row? {
        var key = key
        if key == nil {
            guard let selected = read(selectedName, in: ring) else { return nil }
            key = String(decoding: selected, as: UTF8.self)
        }
        guard let key, let bytes = read(key, in: ring) else { return nil }
        return decode(bytes, key: key)
    }

    /// Adds `row` to `ring` (and, when it was found as the selected session, that too). Quietly does nothing when
    /// the row is too large or the keyring is full.
    package static func add(_ row: Row, selected: Bool, to ring: key_serial_t) {
        let bytes = encode(row)
        guard bytes.count <= maximumRowBytes, entries(in: ring) <= maximumSessions else { return }
        guard store(bytes, as: row.key, in: ring) else { return }
        if selected { _ = store(Array(row.key.utf8), as: selectedName, in: ring) }
    }

    /// Drops the keyring (every copy, should two readers have made one at once). What every commit calls.
    package func drop() {
        while let serial = ring() {
            guard Self.drop(serial) else { return }
        }
    }

    /// Drops the keyring `serial`; false when the kernel refused.
    @discardableResult
    package static func drop(_ serial: key_serial_t) -> Bool {
        keyctl_invalidate(serial) == 0 || keyctl_unlink(serial, KEY_SPEC_USER_KEYRING) == 0
    }

    /// Drops the keyrings of this database file's earlier states: a checkpoint or another program's write renamed
    /// them without dropping them, nobody will find them again, and each counts against the user's key quota.
    private func dropEarlierStates() {
        // The name's first part up to the ctime: "authdeck:tokens:" device, inode, birth time.
        let fields = name.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard fields.count == 6 else { return }
        let file = fields.prefix(5).joined(separator: ":") + ":"
        let size = keyctl_read(KEY_SPEC_USER_KEYRING, nil, 0)
        guard size > 0 else { return }
        var serials = [key_serial_t](repeating: 0, count: Int(size) / 4)
        let count = serials.withUnsafeMutableBytes { keyctl_read(KEY_SPEC_USER_KEYRING, $0.baseAddress, $0.count) }
        for serial in serials.prefix(max(0, min(Int(count), Int(size)) / 4)) {
            var buffer: UnsafeMutablePointer<CChar>?
            guard keyctl_describe_alloc(serial, &buffer) > 0, let buffer else { continue }
            // "type;uid;gid;perm;description"
            let description = String(cString: buffer)
            free(buffer)
            let parts = description.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
            if parts.count == 5 && parts[0] == "keyring" && parts[4].hasPrefix(file) && parts[4] != name {
                _ = keyctl_invalidate(serial)
            }
        }
    }

    // MARK: - Entries

    private static func read(_ description: String, in ring: key_serial_t) -> [UInt8]? {
        let serial = keyctl_search(ring, "user", description, 0)
        guard serial > 0 else { return nil }
        return KeyCache.payload(of: key_serial_t(serial), atMost: maximumRowBytes)
    }

    private static func store(_ bytes: [UInt8], as description: String, in ring: key_serial_t) -> Bool {
        bytes.withUnsafeBytes { add_key("user", description, $0.baseAddress, $0.count, ring) } > 0
    }

    /// How many entries `ring` holds (a keyring reads as the list of its keys' 4-byte serials).
    private static func entries(in ring: key_serial_t) -> Int {
        let count = keyctl_read(ring, nil, 0)
        return count < 0 ? Int.max : Int(count) / 4
    }

    // MARK: - The entry's bytes

    /// Version 1: 1, the store id (length byte, bytes), the key-check value (length byte, bytes), expiry and storage
    /// times (IEEE 754 bits, little endian; NaN for none), then the sealed blob to the end.
    package static func encode(_ row: Row) -> [UInt8] {
        let storeID = Array(row.storeID.utf8).prefix(255)
        let check = (row.keyCheck ?? []).prefix(255)
        var bytes: [UInt8] = [1, UInt8(storeID.count)]
        bytes += storeID
        bytes.append(UInt8(check.count))
        bytes += check
        for time in [row.expiresAt, row.storedAt] {
            let bits = (time ?? .nan).bitPattern
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        }
        bytes += row.secret
        return bytes
    }

    package static func decode(_ bytes: [UInt8], key: String) -> Row? {
        var index = 0
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - index else { return nil }
            defer { index += count }
            return bytes[index..<(index + count)]
        }
        func time() -> Double?? {
            guard let field = take(8) else { return nil }
            var bits: UInt64 = 0
            for (offset, byte) in field.enumerated() { bits |= UInt64(byte) << (offset * 8) }
            let value = Double(bitPattern: bits)
            return .some(value.isNaN ? nil : value)
        }
        guard take(1) == [1], let idCount = take(1)?.first, let storeID = take(Int(idCount)),
            let checkCount = take(1)?.first, let check = take(Int(checkCount)),
            let expiresAt = time(), let storedAt = time()
        else { return nil }
        return Row(
            storeID: String(decoding: storeID, as: UTF8.self), keyCheck: check.isEmpty ? nil : Array(check),
            key: key, expiresAt: expiresAt, storedAt: storedAt, secret: Array(bytes[index...]))
    }
}
