import AuthCore
import Foundation

/// Everything that can change the TUI's state, from any source; the event loop turns each into one of these
/// and hands it to `AppState.update`.
public enum AppEvent: Equatable, Sendable {
    /// A key, paste, click or resize, already named by the key map.
    case key(KeyRequest)
    /// The clock moved on (once a second): countdowns, expiry colours, auto-refresh.
    case tick(Date)
    /// The store's sessions were read (at start, after an unlock).
    case sessionsLoaded([SessionItem])
    /// The store's lock changed (unlocked at start or by the prompt).
    case storeChanged(StoreStatus)
    /// The store was locked (`authdeck store lock` elsewhere, or the lock key here): the key is gone.
    case storeLocked(String)
    /// The passphrase did not unlock the store.
    case unlockFailed(String)
    /// One session was stored or changed (a sign-in, a refresh): one row updated, no reload.
    case sessionStored(SessionItem, focus: Bool)
    /// The store now has this session selected.
    case sessionSelected(String)
    /// The store has no selected session now.
    case defaultCleared
    /// The session was signed out (removed from the store).
    case sessionRemoved(String)
    /// The session's provider has an end-session endpoint (its cached discovery says so): the sign-out question
    /// for that key offers ending the session there too.
    case endSessionOffered(String)
    /// A sign-out at the provider ended: what happened at each place (`summary`), and whether the session was
    /// removed here.
    case signedOutAtProvider(key: String, summary: String, removed: Bool)
    /// Another process (a script's `login`, `import`, `refresh`, `logout`) changed the store: the table reads its
    /// count and the rows on screen again; `removed` are marked keys that went away, and the selection is now
    /// `selected` (nil: none).
    case sessionsChangedElsewhere(removed: [String], selected: String?)
    /// The count of the rows the filter leaves, worked out off the loop's thread for the list's count `request`.
    case sessionsCounted(request: Int, matching: Int)
    /// The answer to a `readPage` effect: the Sessions table's count, rows and looked-up keys.
    case pageRead(SessionPage)
    /// A refresh ended; nil error means it worked.
    case refreshFinished(key: String, error: String?)
    /// A store operation failed; the message says why.
    case storeFailed(String)
    /// `authdeck doctor` finished: its lines.
    case doctorReport([String])
    /// Something worked that the message line should say (a copy to the clipboard).
    case notice(String)
    /// Text went to the clipboard with OSC 52: `what` names it; a secret (a token) is cleared after
    /// `clipboardClearSeconds`, anything else replaced the token there and calls the clearing off.
    case copied(what: String, secret: Bool)
    /// The trace file asked for (`o` on the Trace screen) was read.
    case traceFileOpened(TraceFile)
    /// The trace file could not be read: why, in one line naming the file (and the line, for a damaged one).
    case traceFileFailed(String)
    /// The path typed after `o`, completed as far as the folder's names agree, and the names that still fit when
    /// there is more than one.
    case tracePathCompleted(String, choices: [String])
    /// The stored keys that start with `prefix`, for the `:` line's Tab (`completeSessionKeys`).
    case sessionKeysCompleted(prefix: String, keys: [String])
    /// The sandbox's admin route answered the Sandbox panel; `switched` when it was a change, not a read.
    case sandboxAnswered(SandboxPanel.Report, switched: Bool)
    /// The sandbox could not be reached, or refused: why, in one line.
    case sandboxFailed(String)
    /// The answer to the panel's own read (`pollSandbox`) numbered `request`.
    case sandboxPolled(request: Int, Result<SandboxPanel.Report, SandboxPanel.Unreachable>)
    /// The sign-in controller of flow `flow` reported progress.
    case signIn(flow: Int, SignInProgress)
    /// The event loop learned something about flow `flow` beside its progress (a QR code, a trace step).
    case signInDetail(flow: Int, SignInDetail)
    /// Flow `flow` did not start: its settings were refused before anything was sent (a method without the key or
    /// secret it needs, a PAR endpoint the provider lacks); a flow from New sign-in goes back to the form with it.
    case signInRefused(flow: Int, SignInError)
    /// How a session's token is bound and how its client authenticated, read for its Details screen.
    case bindingRead(SessionBinding)
    /// The inspector's result for a session: its tokens decoded and checked, or why they could not be.
    case inspected(key: String, Inspector.Content)
    /// The provider's introspection answer about a session's access token, as one line; `active` false or a
    /// failure shows as an error.
    case introspected(key: String, line: String, active: Bool)
}
