import Foundation
import Testing

@testable import TerminalUI

/// readline's editing keys in every text field the TUI shows, typed as the raw bytes a terminal sends and decoded
/// by the standard key map: Ctrl-A to the start, Ctrl-E to the end, Ctrl-W the word before the cursor, Ctrl-U
/// everything before it. The expected texts are worked out by hand from readline's rules.
@Suite struct TextFieldKeysTests {
    /// The events a terminal's bytes become: control bytes through the key map, the rest as typed characters.
    static func typed(_ bytes: [UInt8]) -> [AppEvent] {
        bytes.compactMap { KeyMap.standard.request(for: Unicode.Scalar($0)) }.map { .key($0) }
    }

    static let ctrlA: UInt8 = 0x01, ctrlE: UInt8 = 0x05, ctrlU: UInt8 = 0x15, ctrlW: UInt8 = 0x17

    /// Each field, focused, and how to read its text back.
    static func fields() -> [(name: String, state: AppState, text: (AppState) -> String?)] {
        let sessions = AppFixtures.state()
        let filter = AppFixtures.run(sessions, [.key(.character("/"))]).0
        var unlock = sessions
        unlock.mode = .unlock(UnlockForm(reason: "locked"))
        var newSignIn = AppFixtures.run(sessions, [.key(.character("n"))]).0
        if case .newSignIn(var form) = newSignIn.mode {
            form.focus = .sessionKey
            newSignIn.mode = .newSignIn(form)
        }
        let waiting = AppFixtures.run(
            AppFixtures.flowState(reports: AppFixtures.browserReports()), [.key(.character("p"))]
        ).0
        let tracePath = AppFixtures.run(TraceFileScreenTests.shown(), [.key(.character("o"))]).0
        let traceSearch = AppFixtures.run(TraceFileScreenTests.shown(), [.key(.character("/"))]).0
        return [
            ("sessions filter", filter, { $0.filterField?.text }),
            (
                "unlock passphrase", unlock,
                {
                    guard case .unlock(let form) = $0.mode else { return nil }
                    return form.field.text
                }
            ),
            (
                "new sign-in session key", newSignIn,
                {
                    guard case .newSignIn(let form) = $0.mode else { return nil }
                    return form.sessionKey.text
                }
            ),
            ("redirect paste field", waiting, { $0.flow?.pasteField.text }),
            ("trace file path", tracePath, { $0.tracePathField?.text }),
            ("trace search", traceSearch, { $0.traceSearchField?.text }),
        ]
    }

    @Test func everyFieldTakesReadlinesKeys() {
        for field in Self.fields() {
            // Whatever the field starts with goes first: Ctrl-E then Ctrl-U empties it.
            var state = AppFixtures.run(field.state, Self.typed([Self.ctrlE, Self.ctrlU])).0
            #expect(field.text(state) == "", "\(field.name)")
            state = AppFixtures.run(state, Self.typed(Array("alpha beta  ".utf8) + [Self.ctrlW])).0
            #expect(field.text(state) == "alpha ", "\(field.name): Ctrl-W takes the word and the spaces after it")
            state = AppFixtures.run(state, Self.typed([Self.ctrlA] + Array("x".utf8))).0
            #expect(field.text(state) == "xalpha ", "\(field.name): Ctrl-A goes to the start")
            state = AppFixtures.run(state, Self.typed([Self.ctrlE] + Array("y".utf8))).0
            #expect(field.text(state) == "xalpha y", "\(field.name): Ctrl-E goes to the end")
            state = AppFixtures.run(state, Self.typed([0x02, 0x02, 0x02, Self.ctrlU])).0  // Ctrl-B ×3
            #expect(field.text(state) == "a y", "\(field.name): Ctrl-U takes what is before the cursor")
            state = AppFixtures.run(state, Self.typed([Self.ctrlE, Self.ctrlW, Self.ctrlW])).0
            #expect(field.text(state) == "", "\(field.name): Ctrl-W twice takes both words")
        }
    }

    /// On the list Ctrl-A is Home (the first session); with the filter open the field takes it instead.
    @Test func inAFocusedFieldTheFieldWinsOverTheListsBindings() {
        let moved = AppFixtures.run(AppFixtures.state(), [.key(.down), .key(.down)]).0
        #expect(moved.sessions.cursor == 2)
        #expect(AppFixtures.run(moved, Self.typed([Self.ctrlA])).0.sessions.cursor == 0)
        let filtering = AppFixtures.run(moved, [.key(.character("/"))] + Self.typed([Self.ctrlA, Self.ctrlE])).0
        #expect(filtering.sessions.cursor == 2)
        #expect(filtering.filterField != nil)
    }

    @Test func ctrlWStopsAtWhitespaceOnly() {
        let url = TextField(text: "open https://id.example.com/a?b=c")
        #expect(url.deletingWordBackward().text == "open ")
        #expect(url.deletingWordBackward().cursor == 5)
        let middle = TextField(text: "one two three").movingCursor(by: -6)
        #expect(middle.deletingWordBackward().text == "one  three")
        #expect(TextField(text: "   ").deletingWordBackward().text == "")
        #expect(TextField(text: "ab").movingCursorToStart().deletingWordBackward().text == "ab")
    }
}
