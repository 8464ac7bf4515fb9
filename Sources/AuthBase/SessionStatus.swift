/// How usable a session is right now. In seconds since 1970 (no Foundation): the lean binary's `list --json` and
/// everything else apply this one rule.
public enum SessionStatus: String, Sendable, Equatable, Codable {
    case active, expiring, expired

    /// A session is `expiring` within this many seconds of its expiry.
    public static let expiringWindow: Double = 300

    /// The status of a session expiring at `expiresAt` (nil: never) at `now`.
    public init(expiresAt: Double?, now: Double) {
        guard let expiresAt else {
            self = .active
            return
        }
        let left = expiresAt - now
        if left <= 0 {
            self = .expired
        } else if left <= Self.expiringWindow {
            self = .expiring
        } else {
            self = .active
        }
    }
}
