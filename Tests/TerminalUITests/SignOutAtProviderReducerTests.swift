import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The sign-out question's third answer: ending the session at the provider too, offered only once the event loop
/// says the provider has an end-session endpoint, and the result naming each place on the status line.
@Suite struct SignOutAtProviderReducerTests {
    let start = AppFixtures.state()

    @Test func theProviderIsOfferedOnlyWhenTheLoopSaysItCanEndTheSession() {
        let (asked, _) = AppFixtures.run(start, AppFixtures.keys("d"))
        // Not offered yet: e does nothing, and the dialog has two buttons.
        #expect(AppFixtures.run(asked, AppFixtures.keys("e")).1.isEmpty)
        #expect(ConfirmDialog.dialog(for: asked.overlay)?.buttons.count == 2)
        // An answer for another key, or after the question closed, changes nothing.
        #expect(AppFixtures.run(asked, [.endSessionOffered("ops-oidc")]).0.overlay == asked.overlay)
        #expect(AppFixtures.run(start, [.endSessionOffered("lab-discord")]).0.overlay == .none)

        let (offered, _) = AppFixtures.run(asked, [.endSessionOffered("lab-discord")])
        #expect(offered.overlay == .confirmSignOut(key: "lab-discord", revoke: false, atProvider: true))
        #expect(ConfirmDialog.dialog(for: offered.overlay)?.buttons.map(\.label) == ["Yes", "End at provider", "No"])
        #expect(
            AppFixtures.run(offered, AppFixtures.keys("e")).1 == [
                .signOut("lab-discord", revoke: false, atProvider: true)
            ])
        // y still signs out here only; No keeps the focus, so Enter keeps everything.
        #expect(AppFixtures.run(offered, AppFixtures.keys("y")).1 == [.signOut("lab-discord", revoke: false)])
        #expect(AppFixtures.run(offered, [.key(.enter)]).1.isEmpty)

        let (revoking, _) = AppFixtures.run(start, AppFixtures.keys("R") + [.endSessionOffered("lab-discord")])
        #expect(
            AppFixtures.run(revoking, AppFixtures.keys("e")).1 == [
                .signOut("lab-discord", revoke: true, atProvider: true)
            ])
    }

    @Test func theResultNamesEachPlaceAndOnlyARemovedSessionLeavesTheTable() {
        let summary = "At the provider: signed out · Revoked: yes · Removed here: yes"
        let (gone, _) = AppFixtures.run(
            start, [.signedOutAtProvider(key: "lab-discord", summary: summary, removed: true)])
        #expect(gone.sessions.count == 3)
        #expect(gone.message?.text == "lab-discord: " + summary)
        #expect(gone.message?.isError == false)

        let failed = "At the provider: failed (timed out) · Revoked: not tried · Removed here: no"
        let (kept, _) = AppFixtures.run(
            start, [.signedOutAtProvider(key: "lab-discord", summary: failed, removed: false)])
        #expect(kept.sessions.count == 4)
        #expect(kept.message?.isError == true)
    }
}
