/// The question before a sign-out: nothing is removed (or revoked) without a yes.
public enum ConfirmDialog {
    public static func dialog(key: String, revoke: Bool) -> Dialog {
        let message = revoke
            ? ["Revoke the tokens of \(key) at the provider, then remove the session from this machine?"]
            : ["Sign out of \(key)? Its tokens are removed from this machine; the provider is not told."]
        return Dialog(title: revoke ? "Revoke and sign out" : "Sign out", message: message,
                      buttons: [Button("Yes", mnemonic: "y"), Button("No", mnemonic: "n")])
    }

    /// Where the dialog is centred: the body, so the title and status bar stay readable.
    public static func area(rows: Int, cols: Int) -> Rect {
        AppFrame.body(rows: rows, cols: cols)
    }

    public static func draw(key: String, revoke: Bool, into buffer: inout ScreenBuffer) {
        dialog(key: key, revoke: revoke).draw(in: area(rows: buffer.rows, cols: buffer.cols), into: &buffer)
    }
}
