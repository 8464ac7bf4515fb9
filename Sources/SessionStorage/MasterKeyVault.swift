#if canImport(Glibc)
    import Glibc
#endif

/// Where a store's master key can live outside the database: the Secret Service (module SecretService) in
/// practice. It is handed to the store through `StoreOptions`, so the store itself — and `authdeck token`, which
/// reads only the kernel-keyring cache — never loads libsecret and GLib.
public protocol MasterKeyVault: Sendable {
    /// The key, or nil when the vault holds none for this store.
    func lookup(storeID: String) throws(SecretServiceFailure) -> [UInt8]?
    func store(_ key: [UInt8], storeID: String) throws(SecretServiceFailure)
    /// Removes the key; true when there was one.
    @discardableResult
    func clear(storeID: String) throws(SecretServiceFailure) -> Bool
}

/// Whether a D-Bus session bus can be found at all: without one, libsecret would try X11 autolaunch.
public enum SessionBus {
    public static func configured(environment: [String: String]) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return access(runtime + "/bus", F_OK) == 0
        }
        return false
    }
}
