/// One key binding as data: the keys, the command, the help text and the status bar word. The reducer, the help
/// overlay and the status bar hints all read the same table, so a key cannot work and be missing from help.
public struct KeyBinding: Equatable, Sendable {
    /// The requests that run the command.
    public var keys: [KeyRequest]
    /// How help writes the keys ("↑/k", "Enter").
    public var label: String
    public var command: SessionAction
    /// The help overlay's right column.
    public var help: String
    /// The status bar's word, nil when the binding stays out of the bar.
    public var hint: String?

    public init(
        _ keys: [KeyRequest], _ label: String, _ command: SessionAction, _ help: String,
        hint: String? = nil
    ) {
        self.keys = keys
        self.label = label
        self.command = command
        self.help = help
        self.hint = hint
    }

    /// The status bar hint, when the binding has one.
    public var statusHint: StatusBar.Hint? {
        hint.map { StatusBar.Hint(label, $0) }
    }

    /// The command bound to `request` in `table`.
    public static func command(for request: KeyRequest, in table: [KeyBinding]) -> SessionAction? {
        table.first { $0.keys.contains(request) }?.command
    }

    /// The Sessions screen's keys, in the order help lists them.
    public static let sessions: [KeyBinding] = [
        KeyBinding([.up, .character("k"), .scrollUp], "↑/k", .up, "move up"),
        KeyBinding([.down, .character("j"), .scrollDown], "↓/j", .down, "move down"),
        KeyBinding([.pageUp], "PgUp", .pageUp, "page up"),
        KeyBinding([.pageDown], "PgDn", .pageDown, "page down"),
        KeyBinding([.home, .character("g")], "Home/g", .top, "first session"),
        KeyBinding([.end, .character("G")], "End/G", .bottom, "last session"),
        KeyBinding([.enter], "Enter", .open, "details and actions", hint: "open"),
        KeyBinding([.character("n")], "n", .newSignIn, "new sign-in", hint: "new"),
        KeyBinding([.character("u")], "u", .makeDefault, "default for scripts", hint: "use"),
        KeyBinding([.character("z")], "z", .undoDefault, "undo the default change"),
        KeyBinding([.character("r")], "r", .refresh, "refresh (marked or this)", hint: "refresh"),
        KeyBinding([.character("a")], "a", .autoRefresh, "auto-refresh on/off"),
        KeyBinding([.character("d")], "d", .signOut, "sign out (marked or this)", hint: "sign out"),
        KeyBinding([.character("R")], "R", .revoke, "revoke and sign out"),
        KeyBinding([.character(" ")], "Space", .mark, "mark for r and d"),
        KeyBinding([.character("A")], "A", .markAllShown, "mark all shown, or unmark"),
        KeyBinding([.character("/")], "/", .filter, "filter (status:expired…)", hint: "filter"),
        KeyBinding([.character("s")], "s", .sort, "sort: key, expiry, user…", hint: "sort"),
        KeyBinding([.character("I")], "I", .reverseSort, "reverse the sort order"),
        KeyBinding([.character("t")], "t", .trace, "trace of the last sign-in", hint: "trace"),
        KeyBinding([.character("c")], "c", .copyToken, "copy the access token"),
        KeyBinding([.character("y")], "y", .copyKey, "copy the key"),
        KeyBinding([.character("e")], "e", .copyExport, "copy an export line"),
        KeyBinding([.character("m")], "m", .showMessage, "the last message in full"),
        KeyBinding([.character("D")], "D", .doctor, "doctor: config, store, URIs"),
        KeyBinding([.character("S")], "S", .sandboxPanel, "sandbox faults panel"),
        KeyBinding([.character("L")], "L", .lockStore, "lock the store (every TUI)", hint: "lock"),
        KeyBinding([.character(":")], ":", .commandLine, "run an action by its name"),
        KeyBinding([.escape], "Esc", .back, "clear filter and marks"),
        KeyBinding([.character("?"), .function(1)], "?", .help, "this help", hint: "help"),
        KeyBinding([.character("q"), .interrupt], "q", .quit, "quit", hint: "quit"),
    ]

    /// The Sandbox panel (`S`, `authdeck sandbox panel`): the running sandbox's faults, switched at its admin route.
    public static let sandbox: [KeyBinding] = [
        KeyBinding([.up, .character("k"), .scrollUp], "↑/k", .up, "move up"),
        KeyBinding([.down, .character("j"), .scrollDown], "↓/j", .down, "move down"),
        KeyBinding([.home, .character("g")], "Home/g", .top, "first fault"),
        KeyBinding([.end, .character("G")], "End/G", .bottom, "last fault"),
        KeyBinding([.character(" "), .enter], "Space", .switchFault, "switch the fault on or off", hint: "switch"),
        KeyBinding([.character("n")], "n", .faultsOff, "every fault off", hint: "none"),
        KeyBinding([.character("d")], "d", .typeDelay, "type slow-provider's delay (ms)"),
        KeyBinding([.character("+"), .character("=")], "+", .longerDelay, "delay one second longer"),
        KeyBinding([.character("-")], "-", .shorterDelay, "delay one second shorter"),
        KeyBinding([.character("r")], "r", .refresh, "read the sandbox again"),
        KeyBinding([.escape], "Esc", .back, "back (leaves sandbox panel)", hint: "back"),
        KeyBinding([.character("?"), .function(1)], "?", .help, "this help", hint: "help"),
        KeyBinding([.character("q"), .interrupt], "q", .quit, "quit", hint: "quit"),
    ]

    /// The Trace screen's keys for reading a trace, this run's or a file's (its other keys move, expand one step
    /// and go through attempts).
    public static let traceReading: [KeyBinding] = [
        KeyBinding(
            [.character("o")], "o", .openTraceFile, "open a trace file (asks for its path)",
            hint: "open file"),
        KeyBinding([.character("a")], "a", .expandAll, "expand or fold every step"),
        KeyBinding([.character("/")], "/", .searchTrace, "find a step by its words or details", hint: "find"),
        KeyBinding([.character("n")], "n", .nextMatch, "next step that matches"),
        KeyBinding([.character("!")], "!", .firstError, "first error or 4xx/5xx step", hint: "first error"),
    ]

    /// A session's Details screen: its actions, then the way back.
    public static let details: [KeyBinding] = [
        KeyBinding([.character("u")], "u", .makeDefault, "default for scripts", hint: "use"),
        KeyBinding([.character("z")], "z", .undoDefault, "undo the default change"),
        KeyBinding([.character("r")], "r", .refresh, "refresh now", hint: "refresh"),
        KeyBinding([.character("a")], "a", .autoRefresh, "auto-refresh on/off", hint: "auto"),
        KeyBinding([.character("d")], "d", .signOut, "sign out (asks first)", hint: "sign out"),
        KeyBinding([.character("R")], "R", .revoke, "revoke and sign out"),
        KeyBinding([.character("t")], "t", .trace, "trace of the last sign-in"),
        KeyBinding([.character("i")], "i", .inspect, "inspector: tokens decoded and checked", hint: "inspect"),
        KeyBinding([.character("I")], "I", .introspect, "ask the provider if the token is active", hint: "introspect"),
        KeyBinding([.character("c")], "c", .copyToken, "copy the access token (OSC 52)", hint: "copy"),
        KeyBinding([.character("y")], "y", .copyKey, "copy the key"),
        KeyBinding([.character("e")], "e", .copyExport, "copy export AUTHDECK_SESSION=…"),
        KeyBinding([.character("m")], "m", .showMessage, "the last message in full"),
        KeyBinding([.character("L")], "L", .lockStore, "lock the store (every TUI)"),
        KeyBinding([.character(":")], ":", .commandLine, "run an action by its name"),
        KeyBinding([.escape, .enter, .backspace, .left], "Esc", .back, "back to the list", hint: "back"),
        KeyBinding([.character("?"), .function(1)], "?", .help, "this help", hint: "help"),
        KeyBinding([.character("q"), .interrupt], "q", .quit, "quit", hint: "quit"),
    ]

    /// The status bar while the inspector is open over Details: the Details keys that matter there, introspection
    /// first (the reducer reads them from `details`).
    public static var inspector: [KeyBinding] { KeyBindings.standard.inspector }

    /// Keys that scroll the inspector while it is open over Details (help lists them with the Details keys).
    public static let inspectorScrolling: [KeyBinding] = [
        KeyBinding([.up, .character("k"), .scrollUp], "↑/k", .up, "inspector: scroll up"),
        KeyBinding([.down, .character("j"), .scrollDown], "↓/j", .down, "inspector: scroll down"),
        KeyBinding([.pageUp], "PgUp", .pageUp, "inspector: page up"),
        KeyBinding([.pageDown], "PgDn", .pageDown, "inspector: page down"),
    ]

    /// The Trace screen (`t`): a selection bar over the steps, their details, the attempts of this run.
    public static let trace: [KeyBinding] = [
        KeyBinding([.up, .character("k"), .scrollUp], "↑/k", .up, "previous step", hint: "move"),
        KeyBinding([.down, .character("j"), .scrollDown], "↓/j", .down, "next step"),
        KeyBinding([.pageUp], "PgUp", .pageUp, "page up"),
        KeyBinding([.pageDown], "PgDn", .pageDown, "page down"),
        KeyBinding([.home, .character("g")], "Home/g", .top, "first step"),
        KeyBinding([.end, .character("G")], "End/G", .bottom, "last step, following new ones"),
        KeyBinding(
            [.enter, .character(" ")], "Enter", .toggleDetails, "expand or fold the step's details",
            hint: "expand"),
        KeyBinding([.right, .character("l")], "→/l", .expandDetails, "expand the step"),
        KeyBinding([.left, .character("h")], "←/h", .foldDetails, "fold the step"),
        KeyBinding([.character("[")], "[", .olderAttempt, "older attempt (the last 20 of this run)"),
        KeyBinding([.character("]")], "]", .newerAttempt, "newer attempt"),
        KeyBinding(
            [.character("e")], "e", .exportTrace, "export trace-<time>-<provider>.jsonl",
            hint: "export JSON"),
        KeyBinding(
            [.escape, .character("t"), .character("q"), .interrupt], "Esc/t/q", .back,
            "close the trace (a click too)", hint: "back"),
        KeyBinding([.character("?"), .function(1)], "?", .help, "this help", hint: "help"),
    ]

    /// The hints every screen keeps in its status bar whatever the width.
    public static let pinnedCommands: Set<SessionAction> = [.help, .quit]

    /// The status bar hints of a table: the pinned ones apart, so the bar never drops them.
    public static func hints(_ table: [KeyBinding]) -> (hints: [StatusBar.Hint], pinned: [StatusBar.Hint]) {
        let shown = table.filter { $0.hint != nil }
        return (
            shown.filter { !pinnedCommands.contains($0.command) }.compactMap(\.statusHint),
            shown.filter { pinnedCommands.contains($0.command) }.compactMap(\.statusHint)
        )
    }

    /// The action's name, as help lists it beside the key.
    public var name: String { command.rawValue }

    /// Help entries: the keys, what they do and the action's name.
    public static func helpEntries(_ table: [KeyBinding]) -> [HelpOverlay.Entry] {
        table.map { HelpOverlay.Entry($0.label, $0.help, name: $0.name) }
    }
}
