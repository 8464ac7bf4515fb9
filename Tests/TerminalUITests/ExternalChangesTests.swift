import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// Rows follow what other processes did to the store, without a message claiming the user did it. (Paged over the
/// store, the rows themselves are read again: PagedSessionsTests.)
@Suite struct ExternalChangesTests {
    @Test func sessionsRemovedAndSelectedElsewhereShowWithoutAMessage() {
        let marked = AppFixtures.run(AppFixtures.state(), [.key(.character(" "))]).0
        let gone = marked.sessions.items[0].key
        #expect(marked.marked == [gone])
        let (state, effects) = AppFixtures.run(
            marked, [.sessionsChangedElsewhere(removed: [gone], selected: "ops-oidc")])
        #expect(effects.isEmpty)
        #expect(state.message == marked.message)  // no message of its own
        #expect(!state.sessions.items.contains { $0.key == gone })
        #expect(state.marked.isEmpty)
        #expect(state.sessions.items.filter(\.isSelected).map(\.key) == ["ops-oidc"])
        // A selection cleared elsewhere (the selected session was removed) marks none.
        let (cleared, _) = AppFixtures.run(state, [.sessionsChangedElsewhere(removed: [], selected: nil)])
        #expect(cleared.sessions.items.allSatisfy { !$0.isSelected })
    }
}
