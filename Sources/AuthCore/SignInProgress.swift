/// What a sign-in controller reports as an attempt goes on, as values, in the order it happened: the command line
/// prints each one, the TUI's reducer applies each one to its flow. Reported on the controller's queue.
public enum SignInProgress: Equatable, Sendable {
    /// The attempt began: what the user must act on, and which receivers listen.
    case began(Attempt, AttemptPrompt, receivers: [String])
    /// The machine moved to another state (told once per change, before what the change led to).
    case stateChanged(SignInStateMachine.State)
    /// Something was refused but the attempt goes on (a forged callback, a wrong code).
    case notice(SignInError)
    /// A receiver got a redirect; `refusal` says why it was refused, nil when it was accepted.
    case callbackArrived(source: String, refusal: String?)
    /// The attempt ended: signed in (and stored), or failed.
    case finished(Result<SignInOutcome, SignInError>)
    /// A replayed redirect of a completed attempt: the same result again, nothing exchanged.
    case replayed(SignInOutcome)
    /// Right after the attempt began: the redirect URI it sends reaches none of the receivers, so the browser will
    /// not come back on its own; the attempt goes on (a paste still works).
    case redirectUnreachable(String)
    /// Right after the attempt began: what the user must know to finish it (which flow runs, which redirect URI the
    /// provider must have registered), one sentence each; the attempt goes on.
    case note(String)
}
