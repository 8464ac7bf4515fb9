import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Running things as another local user (`nobody`) with util-linux's `setpriv`, for the tests that check what such a
/// user gets from authdeck. Needs root (the tests run as root in CI); otherwise the callers skip with a note.
enum OtherUser {
    static let uid: uid_t = 65_534
    static let gid: gid_t = 65_534
    static let setpriv = "/usr/bin/setpriv"

    /// Why these tests cannot run here, or nil when they can.
    static var unavailable: String? {
        if getuid() != 0 { return "not root: cannot act as another user" }
        if access(setpriv, X_OK) != 0 { return "setpriv (util-linux) is not installed" }
        return nil
    }

    /// `command` prefixed so that it runs as `nobody` with no supplementary groups.
    static func wrap(_ command: [String]) -> [String] {
        ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"] + command
    }

    /// Gives `path` to `nobody` (a folder the other user prepared).
    static func own(_ path: String) {
        _ = chown(path, uid, gid)
    }
}
