import AuthCore
import Foundation
import Sandbox
import Testing

@Suite struct DeviceGrantTests {
    private func start(_ sandbox: SandboxFixture, profile: String = "google") throws -> SandboxHTTP.Reply {
        try sandbox.form("/oidc/\(profile)/device/code", [("client_id", "tv-client"), ("scope", "openid email")])
    }

    private func poll(_ sandbox: SandboxFixture, _ deviceCode: String, profile: String = "google") throws
        -> SandboxHTTP.Reply
    {
        try sandbox.form(
            "/oidc/\(profile)/token",
            [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", "tv-client"),
            ])
    }

    @Test func pendingThenSlowDownThenApproved() throws {
        let sandbox = try SandboxFixture()
        let started = try start(sandbox)
        #expect(started.status == 200)
        let deviceCode = try #require(started.string("device_code"))
        let userCode = try #require(started.string("user_code"))
        #expect(userCode.count == 9 && userCode.contains("-"))
        #expect(started.string("verification_uri") == "\(sandbox.base)/oidc/google/device")
        #expect(started.json["interval"] as? Int == 5)
        #expect(started.json["expires_in"] as? Int == 600)
        let complete = try #require(started.string("verification_uri_complete"))

        let pending = try poll(sandbox, deviceCode)
        #expect(pending.status == 400)
        #expect(pending.string("error") == "authorization_pending")
        let tooFast = try poll(sandbox, deviceCode)
        #expect(tooFast.string("error") == "slow_down")
        // slow_down adds five seconds: polling after the old interval is still too fast.
        sandbox.clock.advance(by: 6)
        #expect(try poll(sandbox, deviceCode).string("error") == "slow_down")
        sandbox.clock.advance(by: 16)
        #expect(try poll(sandbox, deviceCode).string("error") == "authorization_pending")

        let approved = try sandbox.get(complete + "&sandbox_user=dora&sandbox_auto=approve")
        #expect(approved.status == 200)
        sandbox.clock.advance(by: 21)
        let tokens = try poll(sandbox, deviceCode)
        #expect(tokens.status == 200, "\(tokens.text)")
        let claims = try sandbox.claims(try #require(tokens.string("id_token")))
        #expect(claims["email"] as? String == "dora@example.com")
        #expect(claims["aud"] as? String == "tv-client")
        sandbox.clock.advance(by: 30)
        #expect(try poll(sandbox, deviceCode).string("error") == "invalid_grant")
    }

    @Test func theDevicePageFormApprovesByTypedCode() throws {
        let sandbox = try SandboxFixture()
        let started = try start(sandbox, profile: "generic")
        let deviceCode = try #require(started.string("device_code"))
        let userCode = try #require(started.string("user_code"))
        let page = try sandbox.get("/oidc/generic/device")
        #expect(page.status == 200)
        #expect(page.text.contains("name=\"user_code\""))
        let wrong = try sandbox.form(
            "/oidc/generic/device",
            [
                ("user_code", "BBBB-BBBB"), ("user", "ada"),
                ("action", "approve"),
            ])
        #expect(wrong.status == 400)
        let typed = userCode.lowercased().replacingOccurrences(of: "-", with: " ")
        let done = try sandbox.form(
            "/oidc/generic/device",
            [
                ("user_code", typed), ("user", "ada"),
                ("action", "approve"),
            ])
        #expect(done.status == 200, "\(done.text)")
        let tokens = try poll(sandbox, deviceCode, profile: "generic")
        #expect(tokens.status == 200)
        #expect(tokens.string("access_token") != nil)
    }

    @Test func denialAndExpiry() throws {
        let sandbox = try SandboxFixture()
        let denied = try start(sandbox)
        let deniedCode = try #require(denied.string("device_code"))
        let complete = try #require(denied.string("verification_uri_complete"))
        #expect(try sandbox.get(complete + "&sandbox_auto=deny").status == 200)
        #expect(try poll(sandbox, deniedCode).string("error") == "access_denied")

        let expiring = try start(sandbox)
        let expiringCode = try #require(expiring.string("device_code"))
        sandbox.clock.advance(by: 601)
        #expect(try poll(sandbox, expiringCode).string("error") == "expired_token")
        #expect(try poll(sandbox, "made-up").string("error") == "invalid_grant")
    }

    @Test func onlyGoogleAndGenericOfferTheDeviceGrant() throws {
        let sandbox = try SandboxFixture()
        for profile in ["apple", "discord", "x"] {
            #expect(try start(sandbox, profile: profile).status == 404, "\(profile)")
            let grant = try poll(sandbox, "anything", profile: profile)
            #expect(grant.string("error") == "unsupported_grant_type", "\(profile)")
        }
    }
}
