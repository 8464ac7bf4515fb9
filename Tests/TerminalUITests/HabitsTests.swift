import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// What operators bring from k9s, htop and fzf, in the reducer and the screens: the theme chosen (NO_COLOR over every
/// choice, an unknown name refused), monochrome's `>` on the selected row and the focused button; `?` help narrowed
/// by `/` and listing the filter's field keys from the parser's own list; `I` turning the sort round with ranked
/// keys still first; `A` marking every session shown (and no more than its limit); the fuzzy filter (`~`, Tab).
@Suite struct HabitsTests {
    let start = AppFixtures.state()

    @Test func noColorOverridesEveryThemeAndAnUnknownNameSaysWhereItCameFrom() throws {
        #expect(try Theme.resolve([("--theme", nil), ("config.json", "light")], environment: [:]) == .light)
        #expect(try Theme.resolve([("--theme", "dark"), ("config.json", "light")], environment: [:]) == .dark)
        #expect(try Theme.resolve([("--theme", "light")], environment: ["NO_COLOR": "1"]) == .monochrome)
        // no-color.org: present and not empty.
        #expect(try Theme.resolve([("--theme", "light")], environment: ["NO_COLOR": ""]) == .light)
        #expect(try Theme.resolve([], environment: [:]) == .dark)
        #expect(throws: Theme.UnknownTheme(source: "AUTHDECK_THEME", name: "neon")) {
            try Theme.resolve([("--theme", nil), ("AUTHDECK_THEME", "neon")], environment: ["NO_COLOR": "1"])
        }
        #expect(
            Theme.UnknownTheme(source: "config.json", name: "Dark").description
                == "config.json names the theme 'Dark': use one of dark, light, monochrome")
        // Light never paints yellow or cyan (unreadable on white); monochrome paints nothing.
        #expect(Color.allCases.compactMap(Theme.light.hue).allSatisfy { $0 != 3 && $0 != 6 })
        #expect(Color.allCases.compactMap(Theme.monochrome.hue).isEmpty)
    }

    @Test func monochromeMarksTheSelectedRowAndTheFocusedButton() {
        var plain = start
        plain.theme = .dark
        var mono = start
        mono.theme = .monochrome
        let row = SessionsScreen.layout(rows: 24, cols: 80).table.row + 1
        #expect(AppScreen.frame(plain)[row, 0].text == " ")
        #expect(AppScreen.frame(mono)[row, 0].text == ">")
        // Only the selected row: the next one has no marker.
        #expect(AppScreen.frame(mono)[row + 1, 0].text == " ")
        let asked = AppFixtures.run(mono, AppFixtures.keys("d")).0
        let screen = AppScreen.frame(asked).textDump()
        #expect(screen.contains(">n< No") && screen.contains("[y] Yes"))
        #expect(!AppScreen.frame(AppFixtures.run(plain, AppFixtures.keys("d")).0).textDump().contains(">n<"))
    }

    @Test func helpNarrowsToTheLinesHoldingWhatIsTypedAndEscClearsIt() {
        let opened = AppFixtures.run(start, AppFixtures.keys("?/revo")).0
        #expect(opened.overlay == .help)
        #expect(opened.helpSearch == HelpOverlay.Search(query: "revo", isTyping: true))
        var screen = AppScreen.frame(opened).textDump()
        #expect(screen.contains("R  revoke and sign out  revoke"))
        #expect(!screen.contains("new sign-in"))
        #expect(screen.contains("1 of "))
        // Enter keeps the filter and leaves typing; a key then closes help, as any key did.
        let kept = AppFixtures.run(opened, [.key(.enter)]).0
        #expect(kept.overlay == .help && kept.helpSearch.query == "revo" && !kept.helpSearch.isTyping)
        let cleared = AppFixtures.run(kept, [.key(.escape)]).0
        #expect(cleared.overlay == .help && cleared.helpSearch.isEmpty)
        screen = AppScreen.frame(cleared).textDump()
        #expect(screen.contains("new sign-in"))
        let closed = AppFixtures.run(cleared, AppFixtures.keys("x")).0
        #expect(closed.overlay == .none)
        // Nothing holds the words: help says so rather than show an empty box.
        let none = AppFixtures.run(start, AppFixtures.keys("?/zzz")).0
        #expect(AppScreen.frame(none).textDump().contains("No key or word holds “zzz”."))
    }

    @Test func helpListsTheFilterFieldsTheParserTakes() {
        let entries = HelpOverlay.entries(for: .sessions)
        for field in SessionList.FilterField.allCases {
            #expect(entries.contains { $0.key == "/" && $0.action.contains(field.prefix + " ") }, "\(field)")
            // Each one listed is a field to the parser, not plain text.
            if case .text = SessionList.terms(field.prefix + "ab").first { Issue.record("\(field) parsed as text") }
        }
        // The names beside the keys, from the key-binding table.
        #expect(entries.contains(HelpOverlay.Entry("I", "reverse the sort order", name: "reverse-sort")))
    }

    @Test func reversingTheSortKeepsRankedKeysFirstAndShowsTheArrow() {
        let sessions = ["google-bob", "acme-google-bob", "globex-google-bob-001", "zeta"].map {
            SessionItem(record: AppFixtures.record($0), isSelected: false)
        }
        let state = AppFixtures.state(sessions: sessions)
        let reversed = AppFixtures.run(state, AppFixtures.keys("I")).0
        #expect(reversed.sessions.descending)
        #expect(
            (0..<4).map { reversed.sessions.item(atRow: $0).key }
                == ["zeta", "google-bob", "globex-google-bob-001", "acme-google-bob"])
        #expect(AppScreen.frame(reversed).textDump().contains("KEY↓"))
        #expect(AppScreen.frame(state).textDump().contains("KEY↑"))
        // The exact key stays first, the rest turned round.
        let filtered = AppFixtures.run(reversed, AppFixtures.keys("/google-bob") + [.key(.enter)]).0
        #expect(
            (0..<3).map { filtered.sessions.item(atRow: $0).key }
                == ["google-bob", "globex-google-bob-001", "acme-google-bob"])
        #expect(AppFixtures.run(reversed, AppFixtures.keys("I")).0.sessions.descending == false)
    }

    @Test func markAllShownMarksWhatTheFilterShowsAndAgainUnmarks() {
        let (marked, _) = AppFixtures.run(start, AppFixtures.keys("/sandbox") + [.key(.enter)] + AppFixtures.keys("A"))
        #expect(marked.marked == ["lab-discord", "ops-oidc"])
        #expect(marked.message?.text.hasPrefix("Marked the 2 shown (2 marked)") == true)
        let (unmarked, _) = AppFixtures.run(marked, AppFixtures.keys("A"))
        #expect(unmarked.marked.isEmpty)
    }

    @Test func markAllShownOverPagesReadsTheKeysAndRefusesTooMany() {
        let source = PagedSessionsTests.KeySource(count: 1_500)
        var current = AppFixtures.paged(SessionList(selected: nil), answering: source)
        // s001xx and s0100x…: every key holding "s001", 100 of them, more than the rows the list holds at once.
        current = AppFixtures.run(current, AppFixtures.keys("/s001") + [.key(.enter)], answering: source).0
        current = AppFixtures.run(current, AppFixtures.keys("A"), answering: source).0
        #expect(current.marked == Set((100..<200).map { String(format: "s%05d", $0) }))
        // Every one of 1,500: past the limit, nothing marked and the message says how to narrow it.
        current = AppFixtures.run(current, [.key(.escape)] + AppFixtures.keys("A"), answering: source).0
        #expect(current.marked.isEmpty)
        #expect(current.message?.text.contains("narrow it first") == true)
    }

    @Test func fuzzyFilterMatchesLettersInOrderBestFirstAndTabSwitchesIt() {
        let sessions = ["gx-bo-b", "globex-google-bob-001", "google-bob", "acme"].map {
            SessionItem(record: AppFixtures.record($0), isSelected: false)
        }
        let state = AppFixtures.state(sessions: sessions)
        let fuzzy = AppFixtures.run(state, AppFixtures.keys("/") + [.key(.tab)] + AppFixtures.keys("gbob")).0
        #expect(fuzzy.sessions.filter == "~gbob")
        #expect(AppScreen.frame(fuzzy).textDump().contains("Fuzzy: ~gbob"))
        // All three hold g, b, o, b in order; the key order stands among them (none holds "gbob" whole).
        #expect(
            (0..<fuzzy.sessions.count).map { fuzzy.sessions.item(atRow: $0).key }
                == ["globex-google-bob-001", "google-bob", "gx-bo-b"])
        // The exact key first, then one holding it whole, before the key order.
        let exact = AppFixtures.run(state, AppFixtures.keys("/~google-bob")).0
        #expect(
            (0..<exact.sessions.count).map { exact.sessions.item(atRow: $0).key }
                == ["google-bob", "globex-google-bob-001"])
        // Tab again: the exact filter, which "gbob" matches nowhere.
        let plain = AppFixtures.run(fuzzy, [.key(.tab)]).0
        #expect(plain.sessions.filter == "gbob" && plain.sessions.count == 0)
        #expect(SessionList.rank("gx-bo-b", ["gbob"], fuzzy: ["gbob"]) == 3)
        #expect(SessionList.rank("xgbobx", ["gbob"], fuzzy: ["gbob"]) == 2)
        #expect(SessionList.rank("acme", ["gbob"], fuzzy: ["gbob"]) == 4)
    }
}
