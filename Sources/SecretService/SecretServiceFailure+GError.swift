internal import CLibsecret
import SessionStorage

extension SecretServiceFailure {
    /// Reads libsecret's GError: its message, and whether it says the service is not reachable at all.
    init(_ error: UnsafeMutablePointer<GError>, api: UnsafePointer<secret_shim_api>) {
        self.init(message: "", unreachable: false)
        let domain = error.pointee.domain
        let code = error.pointee.code
        message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        if domain == api.pointee.dbus_error_quark() {
            let missing: [GDBusError] = [
                G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NO_SERVER,
                G_DBUS_ERROR_NAME_HAS_NO_OWNER, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND,
                G_DBUS_ERROR_SPAWN_EXEC_FAILED, G_DBUS_ERROR_SPAWN_FAILED,
                G_DBUS_ERROR_SPAWN_CHILD_EXITED, G_DBUS_ERROR_DISCONNECTED,
            ]
            unreachable = missing.contains { Int32($0.rawValue) == code }
        } else if domain == api.pointee.io_error_quark() {
            // Connecting to the bus failed (no socket, refused): the service is not reachable.
            unreachable = code != Int32(G_IO_ERROR_CANCELLED.rawValue)
        } else {
            unreachable = false
        }
    }
}
