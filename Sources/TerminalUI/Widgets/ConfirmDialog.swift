import AuthCore
import Foundation

/// The question before a sign-out: nothing is removed (or revoked) without a yes. No has the focus, so a stray
/// Enter keeps the session.
public enum ConfirmDialog {
    /// The session is named in full (key, provider, user) when `item` is known, and a revoke names the host of
    /// the provider's issuer it asks, so a near-namesake is told apart before anything is removed; `atProvider`
    /// adds the sign-out at the provider (`e`) where the provider has an end-session endpoint.
    public static func dialog(key: String, revoke: Bool, atProvider: Bool = false, item: SessionItem? = nil) -> Dialog {
        let named = item.map { "\($0.record.provider), \($0.record.userLabel)" }.map { "\(key) (\($0))" } ?? key
        let host = item.flatMap { URL(string: $0.record.issuer)?.host }.map { " at \($0)" } ?? " at the provider"
        var message =
            revoke
            ? ["Revoke the tokens of \(named)\(host), then remove the session from this machine?"]
            : ["Sign out of \(named)? Its tokens are removed from this machine; the provider is not told."]
        var buttons = [Button("Yes", mnemonic: "y"), Button("No", mnemonic: "n", isFocused: true)]
        if atProvider {
            message.append("e: end the session at the provider too (its sign-out page opens in the browser).")
            buttons.insert(Button("End at provider", mnemonic: "e"), at: 1)
        }
        return Dialog(title: revoke ? "Revoke and sign out" : "Sign out", message: message, buttons: buttons)
    }

    /// The question for the marked rows: how many, and the first few keys.
    public static func dialog(keys: [String]) -> Dialog {
        let shown = keys.prefix(3).joined(separator: ", ") + (keys.count > 3 ? " and \(keys.count - 3) more" : "")
        return Dialog(
            title: "Sign out",
            message: [
                "Sign out of \(keys.count) marked sessions (\(shown))? Their tokens are removed from this machine."
            ], buttons: [Button("Yes", mnemonic: "y"), Button("No", mnemonic: "n", isFocused: true)])
    }

    /// The question before a session that came without state is stored (Portal's redirect): whom it signs in,
    /// and that a web page or another program could have sent it. No has the focus.
    public static func dialog(keeping record: SessionRecord) -> Dialog {
        Dialog(
            title: "Keep this session?",
            message: [
                "The browser came back signed in as \(record.userLabel) (\(record.provider) via \(record.backend)).",
                "Nothing ties this redirect to your sign-in: a web page or another program could have sent it. "
                    + "Keep the session only if this is the account you just signed in with.",
            ], buttons: [Button("Keep", mnemonic: "y"), Button("Discard", mnemonic: "n", isFocused: true)])
    }

    /// The status bar while that question is up.
    static let keepHints: [StatusBar.Hint] = [
        .init("y", "keep"), .init("n", "discard"), .init("Esc", "cancel"), .init("t", "trace"),
    ]

    /// The question a sign-in asks, while its machine waits for the user's answer (`confirming`).
    public static func dialog(for flow: SignInFlow) -> Dialog? {
        switch flow.phase {
        case .running(.awaitingCallback(_, .confirming(let issued))),
            .running(.totpRequired(_, _, .confirming(let issued))):
            return dialog(keeping: issued.session.record)
        case .starting, .running, .finished:
            return nil
        }
    }

    /// The dialog an overlay shows, if it is a sign-out question.
    public static func dialog(for overlay: Overlay, sessions: SessionList? = nil) -> Dialog? {
        switch overlay {
        case .confirmSignOut(let key, let revoke, let atProvider):
            return dialog(key: key, revoke: revoke, atProvider: atProvider, item: sessions?.item(forKey: key))
        case .confirmSignOutMarked(let keys): return dialog(keys: keys)
        case .none, .help, .trace, .traceHelp, .message, .doctor: return nil
        }
    }

    /// Where the dialog is centred: the body, so the title and status bar stay readable.
    public static func area(rows: Int, cols: Int) -> Rect {
        AppFrame.body(rows: rows, cols: cols)
    }

    public static func draw(_ overlay: Overlay, sessions: SessionList? = nil, into buffer: inout ScreenBuffer) {
        dialog(for: overlay, sessions: sessions)?.draw(in: area(rows: buffer.rows, cols: buffer.cols), into: &buffer)
    }
}
