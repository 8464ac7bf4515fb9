import Foundation

/// What a test that guards a security property (another user cannot …, a symlink is refused, the loopback peer check,
/// the scheme socket's trust, process hardening) does when this machine cannot run it: outside CI it prints
/// "skipped: REASON" and passes, as every skipped test here says why; in CI (`CI=true`, root, everything `make setup`
/// installs) such a test must run, so it throws, and the test fails with the reason.
public enum SecurityTestPrecondition {
    /// Whether this run is CI's, where nothing that guards a security property may skip.
    public static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Thrown in CI by `unavailable`.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// Says that the calling test cannot run here and why; the caller then returns. Throws in CI.
    public static func unavailable(_ reason: String) throws(Unavailable) {
        if inCI { throw Unavailable(description: "a security test cannot run in CI: \(reason)") }
        print("skipped: \(reason)")
    }
}
