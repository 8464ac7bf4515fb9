import AuthCore
import Foundation

extension SignInError {
    /// The error as the TUI words it: the command line's flags a message names (`--backend sandbox`,
    /// `--client-id`) become the New sign-in fields that do the same, so the TUI never sends the user to a flag.
    public var onScreen: SignInError {
        guard case .unavailable(var reason) = self else { return self }
        for (flag, control) in Self.controls { reason = reason.replacingOccurrences(of: flag, with: control) }
        return .unavailable(reason: reason)
    }

    /// What `login` says, and what the New sign-in screen says for the same thing.
    static let controls: [(String, String)] = [
        ("(use --backend sandbox)", "(choose sandbox in the Backend field)"),
        ("pass --client-id or set", "type one in the Client id field or set"),
        ("pass --issuer URL", "type one in the Issuer field"),
        ("pass --listen with that address", "set listen to that address in config.json"),
        ("or --private-key-file)", "or the Key file field)"),
    ]
}
