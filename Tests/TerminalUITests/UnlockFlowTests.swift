import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// A new store without a keyring opens on choosing a passphrase (typed twice); any unlock carries on with what
/// asked for it.
@Suite struct UnlockFlowTests {
    static let newStore = StoreStatus.needsPassphrase("No keyring is reachable.")

    @Test func aNewStoreWithoutAKeyringOpensOnChoosingAPassphrase() {
        let state = AppFixtures.state(sessions: [], store: Self.newStore)
        guard case .unlock(let form) = state.mode else {
            Issue.record("expected the passphrase screen")
            return
        }
        #expect(form.isNew)
        #expect(AppScreen.frame(state).textDump().contains("Choose a passphrase for the new store."))
    }

    @Test func theNewPassphraseIsAskedTwiceAndADifferentRepeatStartsOver() {
        let state = AppFixtures.state(sessions: [], store: Self.newStore)
        let (once, none) = AppFixtures.run(state, AppFixtures.keys("tr0ub4dor") + [.key(.enter)])
        #expect(none.isEmpty)
        #expect(AppScreen.frame(once).textDump().contains("Repeat it"))
        let (differ, stillNone) = AppFixtures.run(once, AppFixtures.keys("tr0ub4dr") + [.key(.enter)])
        #expect(stillNone.isEmpty)
        guard case .unlock(let form) = differ.mode else {
            Issue.record("a mismatch stays on the screen")
            return
        }
        #expect(form.error == "The two passphrases differ: type the new one again.")
        #expect(!form.isRepeating)
        let (sent, effects) = AppFixtures.run(
            differ,
            AppFixtures.keys("tr0ub4dor") + [.key(.enter)]
                + AppFixtures.keys("tr0ub4dor") + [.key(.enter), .key(.enter)])
        #expect(effects == [.unlock(passphrase: "tr0ub4dor")])
        let (created, _) = AppFixtures.run(sent, [.storeChanged(.unlocked(until: nil, source: "passphrase"))])
        #expect(created.mode == .sessions)
        #expect(created.message?.text == "Store created: its passphrase unlocks it from now on.")
    }

    @Test func escLeavesTheChoiceForLaterAndNAsksAgainThenOpensNewSignIn() {
        let state = AppFixtures.state(sessions: [], store: Self.newStore)
        let (later, _) = AppFixtures.run(state, [.key(.escape)])
        #expect(later.mode == .sessions)
        let (asked, none) = AppFixtures.run(later, AppFixtures.keys("n"))
        #expect(none.isEmpty)
        guard case .unlock(let form) = asked.mode, form.isNew else {
            Issue.record("n asks for a passphrase")
            return
        }
        let (typed, effects) = AppFixtures.run(
            asked,
            AppFixtures.keys("pw") + [.key(.enter)]
                + AppFixtures.keys("pw") + [.key(.enter)])
        #expect(effects == [.unlock(passphrase: "pw")])
        let (open, _) = AppFixtures.run(typed, [.storeChanged(.unlocked(until: nil, source: "passphrase"))])
        guard case .newSignIn = open.mode else {
            Issue.record("the unlock carries on to New sign-in")
            return
        }
    }

    @Test func anUnlockCarriesOnWithTheRefreshThatNeededIt() {
        let locked = AppFixtures.state(store: .locked("wrapped by a passphrase"))
        let (listed, _) = AppFixtures.run(locked, [.key(.escape), .key(.down), .key(.down)])
        #expect(listed.sessions.current?.key == "work-google")
        let (asked, none) = AppFixtures.run(listed, AppFixtures.keys("r"))
        #expect(none.isEmpty)
        let (typed, effects) = AppFixtures.run(asked, AppFixtures.keys("pw") + [.key(.enter)])
        #expect(effects == [.unlock(passphrase: "pw")])
        let (_, resumed) = AppFixtures.run(typed, [.storeChanged(.unlocked(until: nil, source: "passphrase"))])
        #expect(resumed == [.refresh("work-google")])
    }

    @Test func aSignInThatFoundTheStoreLockedStartsAgainAfterTheUnlock() {
        let state = AppFixtures.state(sessions: [], store: .empty)
        let (started, first) = AppFixtures.run(state, AppFixtures.keys("ng"))
        guard case .startSignIn(1, let choice) = first.first else {
            Issue.record("g starts a sign-in")
            return
        }
        // The event loop could not open the store: it says so, and the flow it never started reports a failure.
        let (asked, _) = AppFixtures.run(
            started,
            [
                .storeChanged(.locked("the store is locked: type the passphrase on the unlock screen")),
                .signIn(flow: 1, .finished(.failure(.sessionStorageFailure(message: "locked")))),
            ])
        guard case .unlock(let form) = asked.mode else {
            Issue.record("the unlock screen comes up")
            return
        }
        #expect(form.error == "Unlock the store to sign in.")
        let (typed, _) = AppFixtures.run(asked, AppFixtures.keys("pw") + [.key(.enter)])
        let (again, effects) = AppFixtures.run(typed, [.storeChanged(.unlocked(until: nil, source: "passphrase"))])
        #expect(effects == [.startSignIn(flow: 2, choice)])
        guard case .signIn(let flow) = again.mode else {
            Issue.record("the sign-in screen is back")
            return
        }
        #expect(flow.id == 2 && flow.choice.provider == "google")
    }
}
