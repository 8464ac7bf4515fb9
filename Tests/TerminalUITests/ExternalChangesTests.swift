import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Rows follow what other processes did to the store, without a message claiming the user did it.
@Suite struct ExternalChangesTests {
    @Test func rowsAddedChangedAndRemovedElsewhereShowWithoutAMessage() {
        let added = SessionItem(record: AppFixtures.record("script-login", email: "eve@example.com"), isSelected: true)
        var renewed = AppFixtures.sessions[0]
        renewed.record.expiresAt = AppFixtures.now.addingTimeInterval(7200)
        let (state, effects) = AppFixtures.run(
            AppFixtures.state(),
            [
                .sessionsChangedElsewhere(stored: [added, renewed], removed: ["東京-x"], selected: "script-login")
            ])
        #expect(effects.isEmpty)
        #expect(state.message == nil)
        let keys = Set(state.sessions.items.map(\.key))
        #expect(keys == ["lab-discord", "work-google", "ops-oidc", "script-login"])
        #expect(state.sessions.items.filter(\.isSelected).map(\.key) == ["script-login"])
        #expect(state.sessions.items.first { $0.key == "lab-discord" }?.record.expiresAt == renewed.record.expiresAt)
        // A selection cleared elsewhere (the selected session was removed) marks none.
        let (cleared, _) = AppFixtures.run(
            state,
            [
                .sessionsChangedElsewhere(stored: [], removed: ["script-login"], selected: nil)
            ])
        #expect(cleared.sessions.items.allSatisfy { !$0.isSelected })
    }
}
