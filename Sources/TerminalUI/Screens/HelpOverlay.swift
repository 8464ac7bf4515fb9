import AuthCore
import Foundation

/// `?`: the keys of the screen underneath, in a box over it: an aligned table of key, meaning and the action's name,
/// in two columns when one does not fit the height. `/` filters its lines as they are typed (Enter keeps the filter,
/// Esc clears it); any other key closes it.
public enum HelpOverlay {
    /// One line of help: the keys (`key`), what they do (`action`) and, for a line of the key-binding table, the
    /// action's name (`name`).
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var action: String
        public var name: String?

        public init(_ key: String, _ action: String, name: String? = nil) {
            self.key = key
            self.action = action
            self.name = name
        }

        /// Whether the line holds `query` (folded case) in its keys, its words or its name.
        public func matches(_ query: String) -> Bool {
            let folded = query.lowercased()
            return [key, action, name ?? ""].contains { $0.lowercased().contains(folded) }
        }
    }

    public static func entries(for mode: AppState.Mode, keys: KeyBindings = .standard) -> [Entry] {
        switch mode {
        case .sessions:
            return KeyBinding.helpEntries(keys.bindings(of: .sessions)) + filterEntries
        case .details:
            return KeyBinding.helpEntries(keys.bindings(of: .details))
        case .sandbox:
            return KeyBinding.helpEntries(keys.bindings(of: .sandbox))
        case .unlock:
            return [
                Entry("Enter", "unlock (or next, for a new passphrase)"), Entry("Esc", "list only, locked"),
                Entry("Ctrl-C", "quit"),
            ]
        case .newSignIn, .contact:
            return providerEntries + [
                Entry("←/→", "move between providers or backends; change an OIDC choice"),
                Entry("Tab/↓", "providers, backend, session key, OIDC's fields"),
                Entry("Space", "OIDC: change the auth method, PAR or DPoP choice"),
                Entry("Shift-Tab/↑", "the field before"),
                Entry("b", "next backend"),
                Entry("m", "browser redirect or device grant"),
                Entry("Enter", "start the highlighted provider"),
                Entry("Esc/Ctrl-C", "back"),
                Entry("?", "this help"),
            ]
        case .signIn:
            return [
                Entry("Esc/Ctrl-C", "cancel the sign-in (nothing is stored)"),
                Entry("p", "focus the paste field; Enter sends"),
                Entry("digits", "fill the code; Enter verifies"),
                Entry("Tab", "the paste field, or Resend on the code screen"),
                Entry("u", "the stored test-account code, when offered"),
                Entry("c", "copy the URL (OSC 52)"),
                Entry("v", "waiting: the URL alone on whole rows (a mouse copy takes it whole), or the QR code again"),
                Entry("t", "trace (? there lists its keys)"),
                Entry("Enter/r", "when saving failed: save again"),
                Entry("R", "on the result: the same sign-in again"),
                Entry("n", "on the result: a new sign-in"),
                Entry("Enter/q/Space", "on the result: back to the list"),
                Entry("?", "this help"),
            ]
        }
    }

    /// New sign-in's provider keys from the table of providers, the social logins' then those from an address:
    /// `g a d x o` Google, Apple, Discord, X, OIDC and `e s l` email or SMS code, email link.
    static var providerEntries: [Entry] {
        let social = Provider.standard.filter { !$0.needsContact }
        let codes = Provider.standard.filter(\.sendsCode)
        let links = Provider.standard.filter { $0.kind == .link }
        func keys(_ providers: [Provider]) -> String {
            providers.compactMap(\.mnemonic).map(String.init).joined(separator: " ")
        }
        // "Email code", "SMS code": one "code" for both, lower case as the other lines start.
        let kinds = codes.map { $0.title.hasSuffix(" code") ? String($0.title.dropLast(5)) : $0.title }
        let either = ([kinds.joined(separator: " or ") + " code"] + links.map { $0.title.lowercased() })
            .joined(separator: ", ")
        return [
            Entry(keys(social), social.map(\.title).joined(separator: ", ")),
            Entry(keys(codes + links), either.prefix(1).lowercased() + either.dropFirst()),
        ]
    }

    /// The `/` filter's field keys, from the parser's own list (`SessionList.FilterField`), and the fuzzy switch:
    /// one line under the key `/`, so the key column keeps its width and 80×24 keeps its footer.
    static var filterEntries: [Entry] {
        [Entry("/", SessionList.FilterField.allCases.map(\.prefix).joined(separator: " ") + " · ~ fuzzy (Tab)")]
    }

    /// The Trace screen's keys, from the table its reducer reads.
    public static func traceEntries(_ keys: KeyBindings = .standard) -> [Entry] {
        KeyBinding.helpEntries(keys.bindings(of: .trace))
    }

    /// What the marks in the Sessions table mean, under the keys.
    static let legend = "* default for scripts   @ this folder's .authdeck-session   + marked"

    /// The lines of the box for a body `width` columns wide and `height` rows high, without the frame.
    public static func lines(
        for mode: AppState.Mode, width: Int, height: Int, search: Search = Search()
    ) -> [String] {
        lines(
            entries(for: mode), legend: mode == .sessions ? legend : nil, width: width, height: height, search: search)
    }

    /// What `/` in help has typed: the words kept (`query`), and whether the field is still open for typing.
    public struct Search: Equatable, Sendable {
        public var query: String
        public var isTyping: Bool

        public init(query: String = "", isTyping: Bool = false) {
            self.query = query
            self.isTyping = isTyping
        }

        public var isEmpty: Bool { query.isEmpty && !isTyping }
    }

    /// The lines of the box for `entries` that `search` leaves, with the `legend` under them when there is one. The
    /// names column shows where one column of lines has the width for it.
    public static func lines(
        _ entries: [Entry], legend: String?, width: Int, height: Int, search: Search = Search()
    ) -> [String] {
        let all = entries
        let entries = search.query.isEmpty ? all : all.filter { $0.matches(search.query) }
        var footer = [""] + (legend.map { [$0] } ?? []) + ["Any key closes this help; / finds a key or a word."]
        if !search.isEmpty {
            let count = "\(entries.count) of \(all.count) lines"
            footer = [
                "", "/" + search.query + (search.isTyping ? "▏" : ""),
                search.isTyping
                    ? "\(count); Enter keeps the filter, Esc clears it." : "\(count); Esc clears, / changes.",
            ]
        }
        // Short of rows, the blank line over the footer goes first.
        if (entries.count + 1) / 2 > height - footer.count - 2 { footer.removeFirst() }
        let room = max(1, height - footer.count - 2)
        let columns = entries.count > room ? 2 : 1
        let perColumn = (entries.count + columns - 1) / columns
        let keyWidth = entries.map { DisplayText.width(of: $0.key) }.max() ?? 0
        let actionWidth = entries.map { DisplayText.width(of: $0.action) }.max() ?? 0
        let nameWidth = entries.compactMap { $0.name.map { DisplayText.width(of: $0) } }.max() ?? 0
        let columnWidth = columns == 1 ? width : (width - 3) / 2
        let showsNames = nameWidth > 0 && keyWidth + actionWidth + nameWidth + 4 <= columnWidth
        func cell(_ entry: Entry) -> String {
            var text = DisplayText.padded(entry.key, toWidth: keyWidth) + "  " + entry.action
            if showsNames, let name = entry.name {
                text = DisplayText.padded(text, toWidth: keyWidth + 2 + actionWidth) + "  " + name
            }
            return DisplayText.padded(text, toWidth: columnWidth)
        }
        var lines: [String] = []
        for row in 0..<perColumn {
            var line = cell(entries[row])
            if columns == 2, row + perColumn < entries.count { line += "   " + cell(entries[row + perColumn]) }
            lines.append(line)
        }
        if entries.isEmpty { lines = ["No key or word holds “\(search.query)”."] }
        return lines + footer
    }

    public static func draw(
        for mode: AppState.Mode, keys: KeyBindings = .standard, search: Search = Search(),
        into buffer: inout ScreenBuffer
    ) {
        draw(entries(for: mode, keys: keys), legend: mode == .sessions ? legend : nil, search: search, into: &buffer)
    }

    /// The box for `entries` (a screen that is not a mode, such as the Trace screen).
    public static func draw(
        _ entries: [Entry], legend: String? = nil, search: Search = Search(), into buffer: inout ScreenBuffer
    ) {
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let inner = max(1, body.cols - 6)
        let lines = lines(entries, legend: legend, width: inner, height: body.rows - 2, search: search)
        let used = lines.map { DisplayText.width(of: $0.trimmingCharacters(in: .whitespaces)) }.max() ?? 0
        let frame = body.centered(rows: min(body.rows, lines.count + 4), cols: min(body.cols, used + 4))
        Box(title: "Keys", fillsInside: true).draw(in: frame, into: &buffer)
        let content = frame.inset(by: 1)
        let keyRows = lines.firstIndex(of: "") ?? lines.count
        for (index, line) in lines.enumerated() where content.row + 1 + index < content.bottom {
            let isKeyLine = index < keyRows
            buffer.write(
                line, row: content.row + 1 + index, col: content.col + 1,
                style: isKeyLine ? .plain : Style(foreground: .dim), maxWidth: content.cols - 2)
        }
    }
}
