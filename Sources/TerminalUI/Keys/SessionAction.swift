/// What a key on the Sessions screen, a session's Details screen or the Trace screen does, named apart from the key
/// so one table (`KeyBinding`) drives the reducer, the help overlay and the status bar hints.
public enum SessionAction: Hashable, Sendable {
    case up, down, pageUp, pageDown, top, bottom
    /// Enter: the session's details and actions.
    case open
    /// Esc on the details: back to the list; on the list: clear the filter or the message.
    case back
    /// `u`: make it the session scripts use by default.
    case makeDefault
    /// `z`: put the previous default back.
    case undoDefault
    case newSignIn
    case refresh
    case autoRefresh
    case signOut
    case revoke
    case filter
    case sort
    /// Space: mark or unmark the row for `r`/`d` on many.
    case mark
    case trace
    /// `c`: the access token to the clipboard (OSC 52).
    case copyToken
    /// `y`: the session key to the clipboard.
    case copyKey
    /// `e`: `export AUTHDECK_SESSION=<key>` to the clipboard, for another shell.
    case copyExport
    /// `D`: run `authdeck doctor` and show its checks.
    case doctor
    /// `i` on Details: the inspector, the session's tokens decoded and checked; again (or Esc) closes it.
    case inspect
    /// `I` on Details: ask the provider whether the access token is active (RFC 7662); the answer is the message.
    case introspect
    /// `m`: the last message in full.
    case showMessage
    /// `L`: lock the store, as `authdeck store lock` does (every open TUI locks too).
    case lockStore
    /// `S`: the Sandbox panel of the configured sandbox.
    case sandboxPanel
    /// Space on the Sandbox panel: switch the selected fault on or off at the sandbox.
    case switchFault
    /// `n` on the Sandbox panel: every fault off.
    case faultsOff
    /// `d` on the Sandbox panel: type slow-provider's delay; `+` and `-` change it by a second.
    case typeDelay, longerDelay, shorterDelay
    /// `o` on the Trace screen: ask for a trace file's path and show the file.
    case openTraceFile
    /// `a` on the Trace screen: every step's details, or none.
    case expandAll
    /// `/` on the Trace screen: find a step by its words or details; `n` the next one.
    case searchTrace
    case nextMatch
    /// `!` on the Trace screen: the first step that failed (an error, or a 4xx/5xx answer).
    case firstError
    case help
    case quit
    /// Trace screen: Enter expands or folds the selected step's details; → expands, ← folds.
    case toggleDetails, expandDetails, foldDetails
    /// Trace screen: `[` and `]`, the attempt before or after the one shown.
    case olderAttempt, newerAttempt
    /// Trace screen: `e`, the steps as a JSON-lines file.
    case exportTrace
}
