import AuthCore
import Foundation

/// A token handed out by `token`, `exec`, `env`, `git-credential` and the agent: which session it belongs to, the
/// token, and when it stops working (nil when the provider did not say).
struct IssuedToken: Sendable, Equatable {
    let key: String
    let token: String
    let expiresAt: Date?

    /// This token, for an environment variable: one holding U+0000 is refused, since no variable can carry that
    /// byte (the C environment ends the value there, a shell drops it) and a shortened token must not pass for it.
    func forEnvironment() throws(CommandFailure) -> IssuedToken {
        guard !token.utf8.contains(0) else {
            throw CommandFailure(
                .failed, "the token of '\(key)' holds a NUL byte, which no environment variable can carry")
        }
        return self
    }
}

/// What the caller asks of a token: the session (nil: the default one), how long it must stay valid, and whether
/// the ID token is wanted instead of the access token.
struct TokenRequirement: Sendable, Equatable {
    var key: String?
    /// Refresh first when the token expires within this many seconds; nil keeps SPEC section 5's 60 s window and
    /// hands out a token that is still valid when it cannot be refreshed.
    var minValidSeconds: Int?
    var idToken = false

    /// `--min-valid DUR` of `arguments`, checked; the key is the caller's.
    static func parse(_ arguments: Arguments, key: String?) throws(CommandFailure) -> TokenRequirement {
        var requirement = TokenRequirement(key: key)
        if let text = arguments.value("min-valid") {
            guard let seconds = DurationText.seconds(text) else {
                throw .usage("--min-valid takes a duration such as 90, 90s, 5m, 1h or 1h30m (at most 7d)")
            }
            requirement.minValidSeconds = seconds
        }
        requirement.idToken = arguments.has("id-token")
        return requirement
    }
}
