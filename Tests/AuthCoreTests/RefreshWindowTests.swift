import AuthCore
import Foundation
import Testing

/// The refresh window: the smaller of 60 s and half the token's lifetime (stored → expiry), widened by
/// `--min-valid`. Expected values are worked out by hand in each case.
struct RefreshWindowTests {
    let stored = Date(timeIntervalSince1970: 1_000_000)

    func record(lifetime: TimeInterval?, storedAt: Date?) -> SessionRecord {
        SessionRecord(
            key: "k", backend: "direct", provider: "oidc", subject: "s", issuer: "https://issuer.example",
            createdAt: stored, expiresAt: lifetime.map { stored.addingTimeInterval($0) }, refreshable: true,
            storedAt: storedAt)
    }

    @Test(arguments: [
        // (lifetime, expected window): 40 s → 20; 30 s → 15; 120 s → 60 (half is 60); 3600 s → 60 (capped);
        // 1 s → 0.5; a token stored after it expired (-10 s) → 0, never negative.
        (40.0, 20.0), (30.0, 15.0), (120.0, 60.0), (3600.0, 60.0), (1.0, 0.5), (-10.0, 0.0),
    ])
    func windowIsTheSmallerOfAMinuteAndHalfTheLifetime(_ lifetime: Double, _ expected: Double) {
        #expect(record(lifetime: lifetime, storedAt: stored).refreshWindow() == expected)
    }

    @Test func withoutAStoreTimeOrExpiryTheWindowIsAMinute() {
        #expect(record(lifetime: 40, storedAt: nil).refreshWindow() == 60)
        #expect(record(lifetime: nil, storedAt: stored).refreshWindow() == 60)
        // An imported token (issue time unknown, marked by the epoch): the full minute, though it lives 40 s here.
        #expect(record(lifetime: 40, storedAt: SessionRecord.issueTimeUnknown).refreshWindow() == 60)
    }

    @Test func minValidWidensTheWindowButNeverNarrowsIt() {
        let short = record(lifetime: 40, storedAt: stored)
        #expect(short.refreshWindow(minValidSeconds: 30) == 30)  // 30 > 20
        #expect(short.refreshWindow(minValidSeconds: 10) == 20)  // 10 < 20: the token's own window
        #expect(record(lifetime: 3600, storedAt: stored).refreshWindow(minValidSeconds: 300) == 300)
    }

    @Test func aFortySecondTokenIsDueInItsLastTwentySeconds() {
        let short = record(lifetime: 40, storedAt: stored)
        // Stored at t, expires at t+40: 21 s left at t+19 (not due), exactly 20 s left at t+20 (due).
        #expect(!short.needsRefresh(at: stored.addingTimeInterval(19)))
        #expect(short.needsRefresh(at: stored.addingTimeInterval(20)))
        // Just refreshed, 40 s left: not due, where a fixed minute would have made it due at once.
        #expect(!short.needsRefresh(at: stored))
        // An hour-long token: due from 60 s before expiry (t+3540), not at t+3539.
        let long = record(lifetime: 3600, storedAt: stored)
        #expect(!long.needsRefresh(at: stored.addingTimeInterval(3539)))
        #expect(long.needsRefresh(at: stored.addingTimeInterval(3540)))
    }

    @Test func theStoreTimeIsNotPartOfWhatARecordIs() {
        #expect(record(lifetime: 40, storedAt: stored) == record(lifetime: 40, storedAt: nil))
    }
}
