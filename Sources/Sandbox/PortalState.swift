/// What the portal routes remember: OAuth requests waiting for the provider's answer (one state shared by the
/// Google and Apple URLs of one request, used once), one-time result tokens, and open TOTP challenges.
struct PortalState {
    struct PendingLogin {
        let redirectURL: String
        /// What `isAccountAbstracted` asked for; nil inherits the environment's default (false here).
        let accountAbstracted: Bool?
        let verifier: String
        let expiresAt: Double
    }

    struct Result {
        let userName: String
        let profile: OIDCProfile
        let accountAbstracted: Bool
        let expiresAt: Double
    }

    var pending: [String: PendingLogin] = [:]
    var results: [String: Result] = [:]
    var totp: TOTPChallenges
    /// Magic links sent and not opened yet, by the link's id; one-time tokens their redirects carry; when each
    /// address was sent a link (Portal's per-minute limit).
    var magicLinks: [String: MagicLink] = [:]
    var magicLinkResults: [String: MagicLinkResult] = [:]
    var linksSent: [String: [Double]] = [:]

    init(maximumAttempts: Int) {
        totp = TOTPChallenges(maximumAttempts: maximumAttempts)
    }

    mutating func prune(now: Double) {
        pending = pending.filter { $0.value.expiresAt > now }
        results = results.filter { $0.value.expiresAt > now }
        magicLinks = magicLinks.filter { $0.value.expiresAt > now }
        magicLinkResults = magicLinkResults.filter { $0.value.expiresAt > now }
        linksSent = linksSent.compactMapValues { times in
            let recent = times.filter { $0 > now - 60 }
            return recent.isEmpty ? nil : recent
        }
    }
}
