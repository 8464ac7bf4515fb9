/// When `token` refreshes before handing a token out, in seconds since 1970 (no Foundation: the lean binary and
/// `SessionRecord.needsRefresh` apply this same rule).
///
/// The window scales with the token's lifetime: the smaller of `window` and half the lifetime, counted from when
/// the token was stored (signed in, refreshed or imported) to when it expires. A 40-second token is refreshed in its
/// last 20 seconds, so the token a refresh just brought is not already "about to expire" for the next caller.
public enum RefreshRule {
    /// The most seconds before expiry at which `token` refreshes first (tokens living two minutes or more).
    public static let window: Double = 60

    /// The refresh window of a token stored at `storedAt` that expires at `expiresAt` (either nil, or `storedAt` 0,
    /// which marks an imported token whose issue time is unknown: `window`): the smaller of `window` and half its
    /// lifetime, never negative.
    public static func window(expiresAt: Double?, storedAt: Double?) -> Double {
        guard let expiresAt, let storedAt, storedAt > 0 else { return window }
        return min(window, max(0, (expiresAt - storedAt) / 2))
    }

    /// The window `token --min-valid SECONDS` asks for: never shorter than the token's own window.
    public static func window(expiresAt: Double?, storedAt: Double?, minValidSeconds: Int?) -> Double {
        max(window(expiresAt: expiresAt, storedAt: storedAt), Double(minValidSeconds ?? 0))
    }

    /// Whether a token expiring at `expiresAt` (nil: never) must be refreshed at `now` to stay valid `within` seconds.
    public static func needsRefresh(expiresAt: Double?, now: Double, within: Double = window) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt - now <= within
    }
}
