/// The mark every answer of authdeck's sandbox carries, so a real backend pointed at the sandbox by mistake is
/// refused instead of "signing in" (the sandbox approves anyone).
public enum SandboxMark {
    /// The response header the sandbox adds to every answer.
    public static let header = "Authdeck-Sandbox"
}
