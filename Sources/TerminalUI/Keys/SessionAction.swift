/// What a key on the Sessions screen, a session's Details screen or the Trace screen does, named apart from the key
/// so one table (`KeyBinding`) drives the reducer, the help overlay and the status bar hints. The raw value is the
/// action's name: what keys.json binds and what the `:` command line runs (`:logout KEY`).
public enum SessionAction: String, Hashable, Sendable {
    case up, down
    case pageUp = "page-up"
    case pageDown = "page-down"
    case top, bottom
    /// Enter: the session's details and actions.
    case open
    /// Esc on the details: back to the list; on the list: clear the filter or the message.
    case back
    /// `u`: make it the session scripts use by default.
    case makeDefault = "use"
    /// `z`: put the previous default back.
    case undoDefault = "undo-default"
    case newSignIn = "new"
    case refresh
    case autoRefresh = "auto-refresh"
    case signOut = "logout"
    case revoke
    case filter
    case sort
    /// Space: mark or unmark the row for `r`/`d` on many.
    case mark
    case trace
    /// `c`: the access token to the clipboard (OSC 52).
    case copyToken = "copy-token"
    /// `y`: the session key to the clipboard.
    case copyKey = "copy-key"
    /// `e`: `export AUTHDECK_SESSION=<key>` to the clipboard, for another shell.
    case copyExport = "copy-export"
    /// `D`: run `authdeck doctor` and show its checks.
    case doctor
    /// `i` on Details: the inspector, the session's tokens decoded and checked; again (or Esc) closes it.
    case inspect
    /// `I` on Details: ask the provider whether the access token is active (RFC 7662); the answer is the message.
    case introspect
    /// `m`: the last message in full.
    case showMessage = "message"
    /// `L`: lock the store, as `authdeck store lock` does (every open TUI locks too).
    case lockStore = "lock"
    /// `S`: the Sandbox panel of the configured sandbox.
    case sandboxPanel = "sandbox"
    /// Space on the Sandbox panel: switch the selected fault on or off at the sandbox.
    case switchFault = "switch-fault"
    /// `n` on the Sandbox panel: every fault off.
    case faultsOff = "faults-off"
    /// `d` on the Sandbox panel: type slow-provider's delay; `+` and `-` change it by a second.
    case typeDelay = "type-delay"
    case longerDelay = "longer-delay"
    case shorterDelay = "shorter-delay"
    /// `o` on the Trace screen: ask for a trace file's path and show the file.
    case openTraceFile = "open-file"
    /// `a` on the Trace screen: every step's details, or none.
    case expandAll = "expand-all"
    /// `/` on the Trace screen: find a step by its words or details; `n` the next one.
    case searchTrace = "search"
    case nextMatch = "next-match"
    /// `!` on the Trace screen: the first step that failed (an error, or a 4xx/5xx answer).
    case firstError = "first-error"
    case help
    case quit
    /// Trace screen: Enter expands or folds the selected step's details; → expands, ← folds.
    case toggleDetails = "toggle"
    case expandDetails = "expand"
    case foldDetails = "fold"
    /// Trace screen: `[` and `]`, the attempt before or after the one shown.
    case olderAttempt = "older"
    case newerAttempt = "newer"
    /// Trace screen: `e`, the steps as a JSON-lines file.
    case exportTrace = "export"
    /// `:`: the command line, where every action runs by its name (`:refresh KEY`, `:sort -expiry`).
    case commandLine = "command"
    /// `I` on Sessions: the sort order turned round (htop's invert), the header's arrow shows which way.
    case reverseSort = "reverse-sort"
    /// `A` on Sessions: mark every session the filter shows; when all are marked already, unmark them.
    case markAllShown = "mark-all"
}
