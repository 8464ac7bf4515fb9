import Foundation
import Synchronization
import Testing

@testable import Sandbox

/// The sandbox serves clients side by side: a request that `slow-provider` holds back delays no other client's
/// request, and a grant revoked because its code or refresh token came twice issues nothing more, even to a request
/// that was already on its way when the reuse was seen.
@Suite struct ConcurrentServingTests {
    @Test func aSlowRequestDelaysNoOtherClient() throws {
        let sandbox = try SandboxFixture()
        sandbox.server.faults.set(SandboxFaults.Selection(faults: [.slowProvider], delayMs: 5000))
        // The back channel waits (the JWKS); the index and the consent page a browser shows do not.
        let slowStatus = Mutex<Int?>(nil)
        let slowAnswered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let status = (try? sandbox.get("/oidc/google/jwks"))?.status ?? -1
            slowStatus.withLock { $0 = status }
            slowAnswered.signal()
        }
        // Time for the slow request to reach its handler; the checks below hold on order, not on time.
        usleep(300_000)
        let challenge = String(repeating: "c", count: 43)
        for _ in 0..<3 {
            let index = try sandbox.get("/")
            #expect(index.status == 200)
            let consent = try sandbox.get(sandbox.authorizeTarget("google", challenge: challenge))
            #expect(consent.status == 200)
            #expect(slowStatus.withLock { $0 } == nil, "the other client was answered only after the slow one")
        }
        #expect(slowAnswered.wait(timeout: .now() + 30) == .success)
        #expect(slowStatus.withLock { $0 } == 200)
    }

    @Test func aRevokedGrantIssuesNothingMore() {
        let now = 1_000_000.0
        var grants = OIDCGrants()
        let code = OIDCGrants.Code(
            profile: .google, clientID: "client", redirectURI: "http://127.0.0.1:5999/callback", challenge: "c",
            nonce: nil, scope: "openid", userName: "ada", issuedAt: now)
        grants.add(code: "code-1", code, now: now)
        guard case .redeemed = grants.redeem(code: "code-1", now: now, grantID: "grant-1") else {
            Issue.record("the first redemption failed")
            return
        }
        // A second redemption arrives before the first has issued its tokens: the first issues none.
        guard case .replayed = grants.redeem(code: "code-1", now: now) else {
            Issue.record("the second redemption was not seen as a replay")
            return
        }
        let token = OIDCGrants.Token(
            profile: .google, clientID: "client", userName: "ada", scope: "openid", grantID: "grant-1",
            expiresAt: now + 60, jkt: nil)
        let replayedCodeIssued = grants.add(accessToken: "at-1", refreshToken: "rt-1", token)
        #expect(!replayedCodeIssued)
        #expect(grants.access("at-1", now: now) == nil)
        // A refresh token sent twice: the rotation under way issues nothing either.
        let other = OIDCGrants.Token(
            profile: .google, clientID: "client", userName: "ada", scope: "openid", grantID: "grant-2",
            expiresAt: now + 60, jkt: nil)
        let issued = grants.add(accessToken: "at-2", refreshToken: "rt-2", other)
        #expect(issued)
        guard case .rotated = grants.rotate(refreshToken: "rt-2", profile: .google, clientID: "client") else {
            Issue.record("the first rotation failed")
            return
        }
        guard case .replayed = grants.rotate(refreshToken: "rt-2", profile: .google, clientID: "client") else {
            Issue.record("the second rotation was not seen as a replay")
            return
        }
        let replayedRefreshIssued = grants.add(accessToken: "at-3", refreshToken: "rt-3", other)
        #expect(!replayedRefreshIssued)
        #expect(grants.access("at-2", now: now) == nil && grants.access("at-3", now: now) == nil)
    }
}
