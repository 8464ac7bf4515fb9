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
    /// Another process (a script's `login`, `import`, `refresh`, `logout`) changed the store: these rows were added
    /// or changed, these keys removed, and the selection is now `selected` (nil: none).
    case sessionsChangedElsewhere(stored: [SessionItem], removed: [String], selected: String?)
    /// A refresh ended; nil error means it worked.
    case refreshFinished(key: String, error: String?)
    /// A store operation failed; the message says why.
    case storeFailed(String)
    /// `authdeck doctor` finished: its lines.
    case doctorReport([String])
    /// Something worked that the message line should say (a copy to the clipboard).
    case notice(String)
    /// The sign-in controller of flow `flow` reported something.
    case signIn(flow: Int, SignInEvent)
}

/// What a sign-in controller reports, in TerminalUI's terms (its presenter callbacks).
public enum SignInEvent: Equatable, Sendable {
    /// The attempt began: what the user must act on and which receivers listen.
    case began(Attempt, SignInPrompt, receivers: [String])
    /// The machine changed state.
    case stateChanged(SignInStateMachine.State)
    /// Something was refused, the attempt goes on.
    case notice(SignInError)
    /// A receiver got a callback; `refusal` is nil when it was accepted.
    case callbackArrived(source: String, refusal: String?)
    /// The attempt ended.
    case finished(Result<SignInOutcome, SignInError>)
    /// A replayed callback of a completed attempt.
    case replayed(SignInOutcome)
    /// A protocol step of the flow trace, already redacted (request line, status, timing, claims); `details` are
    /// the step's redacted parameters, bodies and decoded ID-token claims, shown when the step is expanded.
    case protocolStep(kind: String, summary: String, elapsedMilliseconds: Double,
                      details: [String: JSONValue] = [:])
    /// The TOTP enrolment link as QR modules (encoded outside TerminalUI).
    case enrolmentCode([[Bool]])
    /// The trace was written (or could not be): a line for the Trace screen.
    case traceExported(String)
    /// A test-account TOTP seed is stored for the user the backend named: the screen offers its code.
    case testAccountCodeOffered
    /// The redirect URI the attempt sent reaches none of the receivers (`RedirectReach`): said at once.
    case redirectUnreachable(String)
}
