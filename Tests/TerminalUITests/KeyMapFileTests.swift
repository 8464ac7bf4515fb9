import Foundation
import Testing

@testable import TerminalUI

/// keys.json read into the key-binding tables: a key given replaces the action's keys on that screen, `[]` leaves it
/// without one, and anything the file cannot mean is one line naming the file and the entry.
@Suite struct KeyMapFileTests {
    let path = "/home/ada/.config/authdeck/keys.json"

    func read(_ json: String) throws(KeyMapFile.Failure) -> KeyBindings {
        try KeyMapFile.bindings(from: Array(json.utf8), path: path)
    }

    func refusal(_ json: String) -> String? {
        do {
            _ = try read(json)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theShippedTablesGiveNoKeyTwoActionsOnAScreen() {
        for screen in KeyBindings.Screen.allCases {
            #expect(KeyMapFile.clash(in: KeyBindings.standard.bindings(of: screen)) == nil, "\(screen)")
        }
    }

    @Test func aKeyReplacesTheActionsKeysAndAnEmptyListLeavesItNone() throws {
        let keys = try read(#"{"sessions": {"logout": "x", "revoke": [], "refresh": ["r", "F5"]}}"#)
        #expect(KeyBinding.command(for: .character("x"), in: keys.sessions) == .signOut)
        #expect(KeyBinding.command(for: .character("d"), in: keys.sessions) == nil)
        #expect(KeyBinding.command(for: .character("R"), in: keys.sessions) == nil)
        #expect(KeyBinding.command(for: .function(5), in: keys.sessions) == .refresh)
        #expect(KeyBinding.command(for: .character("r"), in: keys.sessions) == .refresh)
        // Other screens keep theirs: d still signs out on Details.
        #expect(KeyBinding.command(for: .character("d"), in: keys.details) == .signOut)
        // Help and the status bar show the keys chosen.
        let help = HelpOverlay.entries(for: .sessions, keys: keys)
        #expect(help.contains { $0.key == "x" && $0.action == "sign out (marked or this)" })
        #expect(help.contains { $0.key == "r/F5" && $0.action == "refresh (marked or this)" })
        #expect(KeyBinding.hints(keys.sessions).hints.contains(StatusBar.Hint("x", "sign out")))
    }

    @Test func namedKeysAndTwoActionsSwappingTheirKeys() throws {
        let keys = try read(
            #"{"sessions": {"refresh": "d", "logout": "r", "help": ["Space", "F1"], "mark": "Enter", "open": "Tab"}}"#)
        #expect(KeyBinding.command(for: .character("d"), in: keys.sessions) == .refresh)
        #expect(KeyBinding.command(for: .character("r"), in: keys.sessions) == .signOut)
        #expect(KeyBinding.command(for: .character(" "), in: keys.sessions) == .help)
        #expect(KeyBinding.command(for: .enter, in: keys.sessions) == .mark)
        #expect(KeyBinding.command(for: .tab, in: keys.sessions) == .open)
        // The wheel keeps scrolling when the arrows change.
        let moved = try read(#"{"details": {"up": "w"}}"#)
        #expect(KeyBinding.command(for: .scrollUp, in: moved.inspectorScrolling) == .up)
        #expect(KeyBinding.command(for: .character("w"), in: moved.inspectorScrolling) == .up)
    }

    @Test func aClashIsOneLineNamingTheFileAndTheEntry() {
        #expect(
            refusal(#"{"sessions": {"logout": "r"}}"#)
                == path + ": sessions.logout: r is also refresh's key on the sessions screen; give one of them "
                + "another key")
        // The inspector's scrolling keys are Details' too.
        #expect(
            refusal(#"{"details": {"copy-token": "j"}}"#)
                == path + ": details.copy-token: j is also down's key on the details screen; give one of them "
                + "another key")
    }

    @Test func unknownActionsKeysAndScreensAreRefused() {
        #expect(
            refusal(#"{"sessions": {"logot": "x"}}"#) == path
                + ": sessions.logot: no action “logot”; did you mean logout?")
        #expect(
            refusal(#"{"sessions": {"switch-fault": "x"}}"#)
                == path + ": sessions.switch-fault: no action “switch-fault” on this screen")
        #expect(
            refusal(#"{"sessions": {"logout": "Ctrl-Q"}}"#)
                == path + ": sessions.logout: “Ctrl-Q” is not a key authdeck knows (one character, or Enter, Esc, "
                + "Tab, Shift-Tab, Space, Up, Down, Left, Right, PgUp, PgDn, Home, End, Backspace, Delete, F1…F12, "
                + "Ctrl-C)")
        #expect(refusal(#"{"sessions": {"logout": "xy"}}"#)?.contains("“xy” is not a key authdeck knows") == true)
        #expect(refusal(#"{"sessions": {"logout": "F13"}}"#)?.contains("“F13” is not a key") == true)
        #expect(
            refusal(#"{"sessions": {"logout": 7}}"#) == path
                + #": sessions.logout: give a key as a string ("x") or a list of them (["x", "F5"])"#)
        #expect(
            refusal(#"{"session": {"logout": "x"}}"#) == path
                + ": session: no such screen (sessions, details, trace, sandbox)")
        #expect(
            refusal("{\"sessions\": ") == path
                + #": not a JSON object of screens ({"sessions": {"logout": "x"}}); fix or remove the file"#)
        #expect(refusal("[]")?.hasPrefix(path + ": not a JSON object") == true)
    }

    @Test func keySpellingsReadAsHelpWritesThem() {
        #expect(KeySpelling.request("x") == .character("x"))
        #expect(KeySpelling.request("X") == .character("X"))
        #expect(KeySpelling.request("esc") == .escape)
        #expect(KeySpelling.request("PgDn") == .pageDown)
        #expect(KeySpelling.request("F12") == .function(12))
        #expect(KeySpelling.request("F01") == nil)
        #expect(KeySpelling.request(" ") == nil)
        #expect(KeySpelling.request("") == nil)
        #expect(KeySpelling.label(.character(" ")) == "Space")
        #expect(KeySpelling.label(.up) == "↑")
    }
}
