/// The one printed name of each machine state: the trace's transition steps record it (`from`, `to`), trace
/// replay reads it back, and the TUI's words for a state are made from it. Traces on disk keep these names, so they
/// never change.
extension SignInStateMachine.State {
    /// `idle`, `authenticated`, `awaitingCallback(waiting)`, `totpRequired(verifying)`…
    public var traceName: String {
        guard let progress else { return stageName }
        return "\(stageName)(\(progress.traceName))"
    }

    /// The state without its progress: `idle`, `awaitingCallback`, `totpRequired` or `authenticated`.
    public var stageName: String {
        switch self {
        case .idle: return "idle"
        case .awaitingCallback: return "awaitingCallback"
        case .totpRequired: return "totpRequired"
        case .authenticated: return "authenticated"
        }
    }

    /// Where a waiting attempt is inside its state; nil for `idle` and `authenticated`.
    public var progress: SignInStateMachine.Progress? {
        switch self {
        case .awaitingCallback(_, let progress), .totpRequired(_, _, let progress): return progress
        case .idle, .authenticated: return nil
        }
    }
}

extension SignInStateMachine.Progress {
    /// `waiting`, `verifying`, `confirming`, `persisting`, `storageFailed` or `cancelling`.
    public var traceName: String {
        switch self {
        case .waiting: return "waiting"
        case .verifying: return "verifying"
        case .confirming: return "confirming"
        case .persisting: return "persisting"
        case .storageFailed: return "storageFailed"
        case .cancelling: return "cancelling"
        }
    }
}
