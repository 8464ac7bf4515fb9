import Foundation
import Testing

/// What a test that guards a security property (another user cannot …, a symlink is refused, the loopback peer check,
/// the scheme socket's trust, process hardening) does when this machine cannot run it: outside CI it prints
/// "skipped: REASON" and passes, as every skipped test here says why; in CI (`CI=true`, root, everything `make setup`
/// installs) such a test must run, so it fails with the reason instead.
public enum SecurityTestPrecondition {
    /// Whether this run is CI's, where nothing that guards a security property may skip.
    public static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Says that the calling test cannot run here and why; the caller then returns.
    public static func unavailable(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if inCI {
            Issue.record("a security test cannot run in CI: \(reason)", sourceLocation: sourceLocation)
        } else {
            print("skipped: \(reason)")
        }
    }
}
