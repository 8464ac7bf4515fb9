import AuthCrypto

/// Open TOTP second-factor challenges (Turnkey's userJwt, Portal's userJwt), each good for a limited number of
/// wrong codes and one right one. Guarded by the owning routes' lock.
struct TOTPChallenges {
    enum Outcome: Equatable {
        case accepted
        case wrongCode(attemptsLeft: Int)
        case tooManyAttempts
        /// Unknown, already completed, or expired.
        case unknown
    }

    private struct Challenge {
        let seed: [UInt8]
        let expiresAt: Double
        var failures = 0
    }

    private var open: [String: Challenge] = [:]
    let maximumAttempts: Int

    init(maximumAttempts: Int = 5) {
        self.maximumAttempts = maximumAttempts
    }

    mutating func add(id: String, seed: [UInt8], expiresAt: Double, now: Double) {
        open = open.filter { $0.value.expiresAt > now }
        open[id] = Challenge(seed: seed, expiresAt: expiresAt)
    }

    func contains(id: String, now: Double) -> Bool {
        guard let challenge = open[id] else { return false }
        return challenge.expiresAt > now
    }

    /// RFC 6238 with one step of drift either way, the usual tolerance for a person typing from a phone.
    mutating func check(id: String, code: String, now: Double) -> Outcome {
        guard var challenge = open[id], challenge.expiresAt > now else { return .unknown }
        guard challenge.failures < maximumAttempts else { return .tooManyAttempts }
        if Self.matches(code, seed: challenge.seed, now: now) {
            open[id] = nil
            return .accepted
        }
        challenge.failures += 1
        open[id] = challenge
        return .wrongCode(attemptsLeft: maximumAttempts - challenge.failures)
    }

    static func matches(_ code: String, seed: [UInt8], now: Double) -> Bool {
        guard code.utf8.count == 6, code.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else { return false }
        let time = Int64(now)
        var matched = false
        for step: Int64 in [-30, 0, 30] {
            // Every candidate is compared so the time taken does not say which step matched.
            if ConstantTime.equals(PublishedChecks.totp(key: seed, unixTime: time + step), code) { matched = true }
        }
        return matched
    }
}
