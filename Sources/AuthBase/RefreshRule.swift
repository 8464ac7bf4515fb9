/// When `token` refreshes before handing a token out, in seconds since 1970 (no Foundation: the lean binary and
/// `SessionRecord.needsRefresh` apply this same rule).
public enum RefreshRule {
    /// The seconds before expiry at which `token` refreshes first.
    public static let window: Double = 60

    /// The window `token --min-valid SECONDS` asks for: never shorter than `window`.
    public static func window(minValidSeconds: Int?) -> Double {
        max(window, Double(minValidSeconds ?? 0))
    }

    /// Whether a token expiring at `expiresAt` (nil: never) must be refreshed at `now` to stay valid `within` seconds.
    public static func needsRefresh(expiresAt: Double?, now: Double, within: Double = window) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt - now <= within
    }
}
