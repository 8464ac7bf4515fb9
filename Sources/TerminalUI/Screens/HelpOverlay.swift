import AuthCore
import Foundation

/// `?`: the keys of the screen underneath, in a box over it: an aligned table of key and meaning, in two columns
/// when one does not fit the height. Any key closes it.
public enum HelpOverlay {
    /// One line of help, as the status bar's hints are: the keys (`key`), and what they do (`action`).
    public typealias Entry = StatusBar.Hint

    public static func entries(for mode: AppState.Mode) -> [Entry] {
        switch mode {
        case .sessions:
            return KeyBinding.helpEntries(KeyBinding.sessions)
        case .details:
            return KeyBinding.helpEntries(KeyBinding.details + KeyBinding.inspectorScrolling)
        case .sandbox:
            return KeyBinding.helpEntries(KeyBinding.sandbox)
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

    /// The Trace screen's keys, from the table its reducer reads.
    public static var traceEntries: [Entry] { KeyBinding.helpEntries(KeyBinding.trace + KeyBinding.traceReading) }

    /// What the marks in the Sessions table mean, under the keys.
    static let legend = "* default for scripts   @ this folder's .authdeck-session   + marked"

    /// The lines of the box for a body `width` columns wide and `height` rows high, without the frame.
    public static func lines(for mode: AppState.Mode, width: Int, height: Int) -> [String] {
        lines(entries(for: mode), legend: mode == .sessions ? legend : nil, width: width, height: height)
    }

    /// The lines of the box for `entries`, with the `legend` under them when there is one.
    public static func lines(_ entries: [Entry], legend: String?, width: Int, height: Int) -> [String] {
        let footer = [""] + (legend.map { [$0] } ?? []) + ["Any key closes this help."]
        let room = max(1, height - footer.count - 2)
        let columns = entries.count > room ? 2 : 1
        let perColumn = (entries.count + columns - 1) / columns
        let keyWidth = entries.map { DisplayText.width(of: $0.key) }.max() ?? 0
        let columnWidth = columns == 1 ? width : (width - 3) / 2
        func cell(_ entry: Entry) -> String {
            DisplayText.padded(
                DisplayText.padded(entry.key, toWidth: keyWidth) + "  " + entry.action,
                toWidth: columnWidth)
        }
        var lines: [String] = []
        for row in 0..<perColumn {
            var line = cell(entries[row])
            if columns == 2, row + perColumn < entries.count { line += "   " + cell(entries[row + perColumn]) }
            lines.append(line)
        }
        return lines + footer
    }

    public static func draw(for mode: AppState.Mode, into buffer: inout ScreenBuffer) {
        draw(entries(for: mode), legend: mode == .sessions ? legend : nil, into: &buffer)
    }

    /// The box for `entries` (a screen that is not a mode, such as the Trace screen).
    public static func draw(_ entries: [Entry], legend: String? = nil, into buffer: inout ScreenBuffer) {
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let inner = max(1, body.cols - 6)
        let lines = lines(entries, legend: legend, width: inner, height: body.rows - 2)
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
