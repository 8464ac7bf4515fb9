import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The everyday screens a newcomer meets: `a` on a session that cannot be renewed says why, the Details pane shows a
/// long reason whole, the device grant's screen has no paste field, and a short new passphrase is warned about.
@Suite struct NewcomerScreensTests {
    let start = AppFixtures.state()

    @Test func aOnASessionWithoutARefreshTokenSaysWhyAndChangesNothing() {
        // The cursor starts on lab-discord, which holds no refresh token.
        let (refused, effects) = AppFixtures.run(start, AppFixtures.keys("a"))
        #expect(effects.isEmpty)
        #expect(refused.message?.isError == true)
        #expect(refused.message?.text.hasPrefix("lab-discord has no refresh token") == true)
        // work-google holds one: `a` switches its auto-refresh as before.
        let (_, toggled) = AppFixtures.run(start, AppFixtures.keys("jja"))
        #expect(toggled == [.setAutoRefresh("work-google", false)])
    }

    @Test func theDetailsPaneWrapsALongRefreshFailureWhole() {
        let reason =
            "invalid_grant: the refresh token was revoked at the provider when the user changed their password "
            + "on another device; sign in again"
        // At 120×40 the pane has rows to spare under its five lines.
        let (failed, _) = AppFixtures.run(
            AppFixtures.state(rows: 40, cols: 120),
            AppFixtures.keys("jj") + [.refreshFinished(key: "work-google", error: reason)])
        let screen = AppScreen.frame(failed).textDump()
        #expect(screen.contains("on another device; sign in again"), "\(screen)")
    }

    @Test func theDeviceGrantScreenTakesNoPaste() {
        let device = DeviceAuthorization(
            deviceCode: "device-code", userCode: "WDJB-MJHT", verificationURI: "http://127.0.0.1:41909/device",
            verificationURIComplete: nil, expiresIn: 600, interval: 5)
        let waiting = AppFixtures.flowState(
            reports: [.began(AppFixtures.attempt(method: .device), .device(device), receivers: [])])
        let (after, effects) = AppFixtures.run(
            waiting, [.key(.paste("http://127.0.0.1/callback?code=x")), .key(.character("p"))])
        #expect(effects.isEmpty)
        #expect(after.flow?.pasteField.isFocused == false)
        #expect(after.flow?.pasteField.text.isEmpty == true)
        let screen = AppScreen.frame(after).textDump()
        #expect(!screen.contains("Paste"))
        #expect(screen.contains("every 5 s"))
    }

    @Test func aShortNewPassphraseIsWarnedAboutAndStillTakenWhenRepeated() {
        let new = AppFixtures.state(sessions: [], store: .needsPassphrase("No keyring is reachable."))
        let (repeating, _) = AppFixtures.run(new, AppFixtures.keys("short") + [.key(.enter)])
        guard case .unlock(let form) = repeating.mode else {
            Issue.record("the new-store screen asks for the passphrase again")
            return
        }
        #expect(form.error?.contains("the passphrase has 5 characters; 12 or more") == true)
        let (_, effects) = AppFixtures.run(repeating, AppFixtures.keys("short") + [.key(.enter)])
        #expect(effects == [.unlock(passphrase: "short")])
        // A long one draws no warning.
        let (long, _) = AppFixtures.run(new, AppFixtures.keys("correct horse battery") + [.key(.enter)])
        guard case .unlock(let longForm) = long.mode else { return }
        #expect(longForm.error == nil)
    }
}
