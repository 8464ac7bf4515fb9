/// What `AppState.update` asks the event loop to do; the loop is the one place that runs them.
public enum AppEffect: Equatable, Sendable {
    /// Start a sign-in for flow `flow` (a controller of its own, so a cancelled flow's late reports are told apart).
    case startSignIn(flow: Int, SignInChoice)
    /// Esc during a sign-in: the machine ends it with `closed`, nothing is stored.
    case cancelSignIn(flow: Int)
    /// A redirect URL typed or pasted into the waiting screen.
    case pasteRedirect(flow: Int, String)
    /// A one-time or TOTP code typed on screen.
    case enterCode(flow: Int, String)
    case resendCode(flow: Int)
    /// `e` on the Trace screen: write the flow's redacted trace as JSON lines to a file.
    case exportTrace(flow: Int)
    /// `u` at a TOTP prompt: answer it with the stored test-account seed's current code.
    case useTestAccountCode(flow: Int)
    /// The answer to "keep this session?" for a session that came without state.
    case answerIdentity(flow: Int, keep: Bool)
    /// Retry only the store write of a session the backend issued.
    case retrySave(flow: Int)
    /// The result screen was left; the controller's machine goes back to idle.
    case dismissSignIn(flow: Int)
    /// `u` on a session: make it the one commands use.
    case select(String)
    /// `z` when there was no default before: no session is the default any more.
    case clearDefault
    /// A confirmed sign-out; with `revoke` the provider is told first; with `atProvider` the session is ended at
    /// the provider in the browser before that (RP-Initiated Logout), and the result comes as `signedOutAtProvider`.
    case signOut(String, revoke: Bool, atProvider: Bool = false)
    /// The sign-out question is up: ask whether the session's provider has an end-session endpoint, from cached
    /// discovery only; a yes comes back as `endSessionOffered`.
    case askEndSession(String)
    /// Refresh one session now (`r`, or auto-refresh).
    case refresh(String)
    /// Refresh a session marked for auto-refresh, unless another process already did (its token no longer
    /// expires within the minute once the refresh lock is held).
    case autoRefresh(String)
    /// Turn background refresh of a session on or off (`a`).
    case setAutoRefresh(String, Bool)
    /// Unlock the store with a typed passphrase.
    case unlock(passphrase: String)
    /// `L`: lock the store (as `authdeck store lock`), here and in every other open TUI.
    case lockStore
    /// Put text on the clipboard with OSC 52; `what` names it in the message.
    case copy(String, what: String)
    /// Put a session's access token on the clipboard (read from the store, so the state never holds it).
    case copyToken(String)
    /// Empty the clipboard with an empty OSC 52 selection: the token copied earlier has been there long enough.
    case clearClipboard
    /// `D`: run `authdeck doctor` in the background; its lines come back as `doctorReport`.
    case runDoctor
    /// `o` on the Trace screen: read this trace file; it comes back as `traceFileOpened` or `traceFileFailed`.
    case openTraceFile(String)
    /// Tab in that path field: complete the path typed; it comes back as `tracePathCompleted`.
    case completeTracePath(String)
    /// Tab on the `:` line after a command that takes a session key: the stored keys that start with the word
    /// typed; they come back as `sessionKeysCompleted`.
    case completeSessionKeys(String)
    /// The Sandbox panel: read the faults of the sandbox at `url` (`faults` nil), or switch them to exactly
    /// `faults`; the answer comes back as `sandboxAnswered` or `sandboxFailed`.
    case sandboxFaults(url: String, faults: [String]?, delayMs: Int)
    /// The open Sandbox panel reads the sandbox again on its own, so switches made elsewhere show; the answer
    /// comes back as `sandboxPolled` with the same request number.
    case pollSandbox(url: String, request: Int)
    /// Read what the Sessions table lacks from the store; the answer comes back as `pageRead`. The event loop reads
    /// at once, before the frame, so a key press that moves past the rows held still draws them.
    case readPage(SessionPageRequest)
    /// Details opened: read how the session's token is bound from its sealed half; it comes back as `bindingRead`.
    case readBinding(String)
    /// `i` on Details: inspect the session's tokens against its issuer's keys; the result comes back as `inspected`.
    case inspect(String)
    /// `I` on Details: ask the issuer's introspection endpoint about the access token; it comes back as
    /// `introspected`.
    case introspect(String)
    /// Ctrl-L: repaint the whole terminal.
    case repaint
    /// `q`: leave the TUI.
    case quit
}
