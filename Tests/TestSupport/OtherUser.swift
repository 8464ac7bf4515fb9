import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Running things as another local user (`nobody`) with util-linux's `setpriv`, for the tests that check what such a
/// user gets from authdeck. Needs root (the tests run as root in CI); elsewhere the callers skip with a note.
public enum OtherUser {
    public static let uid: uid_t = 65_534
    public static let gid: gid_t = 65_534
    public static let setpriv = "/usr/bin/setpriv"

    /// Why these tests cannot run here, or nil when they can.
    public static var unavailable: String? {
        if getuid() != 0 { return "not root: cannot act as another user" }
        if access(setpriv, X_OK) != 0 { return "setpriv (util-linux) is not installed" }
        return nil
    }

    /// Whether a test that guards a security property can act as another user here; when it cannot, says why
    /// through `SecurityTestPrecondition` (a skip note, or in CI a thrown error). `part` names the half of a test that
    /// needs the other user, when the rest runs anyway.
    public static func available(_ part: String? = nil) throws(SecurityTestPrecondition.Unavailable) -> Bool {
        guard let why = unavailable else { return true }
        try SecurityTestPrecondition.unavailable(part.map { "\($0): \(why)" } ?? why)
        return false
    }

    /// `command` prefixed so that it runs as `nobody` with no supplementary groups.
    public static func wrap(_ command: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command
    }

    /// Gives `path` to `nobody` (a folder the other user prepared).
    public static func own(_ path: String) {
        _ = chown(path, uid, gid)
    }
}
