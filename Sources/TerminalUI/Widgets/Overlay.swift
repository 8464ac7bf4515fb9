/// What is drawn over the current screen; only one at a time.
public enum Overlay: Equatable, Sendable {
    case none
    /// `?`: the keys of the screen underneath.
    case help
    /// `t`: the steps of the current or last sign-in.
    case trace
    /// `?` on the Trace screen: its keys over it; any key goes back to the trace.
    case traceHelp
    /// `d` or `R` on a session: sign out (and revoke) only after a yes; `atProvider` when the provider can end
    /// the session too, which the dialog then offers.
    case confirmSignOut(key: String, revoke: Bool, atProvider: Bool = false)
    /// `D`: what `authdeck doctor` found, one check a line.
    case doctor([String])
    /// `m`: the last message in full, wrapped, when the message line cut it.
    case message
    /// `d` with rows marked: sign out of all of them, only after a yes.
    case confirmSignOutMarked(keys: [String])
}
