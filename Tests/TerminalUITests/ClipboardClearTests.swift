import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// A token copied with `c` is cleared from the clipboard after config.json's `clipboardClearSeconds` (45 by
/// default, as `pass` does; 0 never), by an empty OSC 52 selection; the message says when.
@Suite struct ClipboardClearTests {
    static let copiedToken = AppEvent.copied(what: "the access token of lab-discord", secret: true)

    static func tick(_ seconds: TimeInterval) -> AppEvent { .tick(AppFixtures.now.addingTimeInterval(seconds)) }

    @Test func aCopiedTokenIsClearedOnceItsTimeIsUp() {
        let (copied, effects) = AppFixtures.run(AppFixtures.state(), [Self.copiedToken])
        #expect(effects.isEmpty)
        #expect(
            copied.message?.text
                == "Copied the access token of lab-discord; clears in 45 s (OSC 52: terminals and tmux with"
                + " set-clipboard on).")
        #expect(!AppFixtures.run(copied, [Self.tick(44)]).1.contains(.clearClipboard))
        let (cleared, clearing) = AppFixtures.run(copied, [Self.tick(45)])
        #expect(clearing.contains(.clearClipboard))
        #expect(!AppFixtures.run(cleared, [Self.tick(46)]).1.contains(.clearClipboard))  // once
    }

    @Test func theUsersTimeIsKeptAndZeroNeverClears() {
        var state = AppFixtures.state()
        state.clipboardClearSeconds = 10
        let ten = AppFixtures.run(state, [Self.copiedToken, Self.tick(10)])
        #expect(ten.1.contains(.clearClipboard))
        state.clipboardClearSeconds = 0
        let never = AppFixtures.run(state, [Self.copiedToken])
        #expect(never.0.message?.text.contains("clears") == false)
        #expect(!AppFixtures.run(never.0, [Self.tick(3_600)]).1.contains(.clearClipboard))
    }

    /// Copying the key afterwards replaced the token on the clipboard: the key is not cleared under the user.
    @Test func aLaterCopyOfSomethingElseCallsTheClearingOff() {
        let state = AppFixtures.run(
            AppFixtures.state(), [Self.copiedToken, .copied(what: "the key lab-discord", secret: false)]
        ).0
        #expect(state.message?.text.contains("clears") == false)
        #expect(!AppFixtures.run(state, [Self.tick(45)]).1.contains(.clearClipboard))
    }

    /// xterm's control sequences: OSC 52 with the selection `c` and data that is no base64 (here none) clears it.
    @Test func theClearingSequenceIsAnEmptySelection() {
        #expect(Array(Clipboard.clearing.utf8) == [0x1B, 0x5D, 0x35, 0x32, 0x3B, 0x63, 0x3B, 0x1B, 0x5C])
    }

    @Test func configJSONSetsTheTimeAndRefusesANegativeOne() throws {
        #expect(try Configuration(json: Data(#"{"clipboardClearSeconds": 10}"#.utf8)).clipboardClearSeconds == 10)
        #expect(try Configuration(json: Data("{}".utf8)).clipboardClearSeconds == nil)
        #expect(throws: Configuration.Failure.self) {
            try Configuration(json: Data(#"{"clipboardClearSeconds": -5}"#.utf8))
        }
    }
}
