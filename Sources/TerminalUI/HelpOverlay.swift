/// `?`: the keys of the screen underneath, in a box over it. Any key closes it.
public enum HelpOverlay {
    public static func lines(for mode: AppState.Mode) -> [String] {
        switch mode {
        case .sessions, .unlock:
            return [
                "↑/↓ j/k   move            PgUp/PgDn Home/End  jump",
                "Enter     select (commands use it by default)",
                "n         new sign-in     r  refresh now",
                "a         auto-refresh on/off",
                "d         sign out (asks first)",
                "R         revoke at the provider and sign out",
                "/         filter          s  sort (key, expiry, provider, user, backend)",
                "t         trace of the last sign-in",
                "q         quit            Ctrl-L  repaint",
            ]
        case .newSignIn, .contact:
            return [
                "g a d x o e s   start Google, Apple, Discord, X, OIDC, Email, SMS",
                "←/→             move between providers (or backends)",
                "Tab / Shift-Tab move between buttons, backend and session key",
                "b               next backend",
                "Enter           start the highlighted provider",
                "Esc             back",
            ]
        case .signIn:
            return [
                "Esc       cancel the sign-in (nothing is stored)",
                "p         focus the paste field; Enter sends the URL",
                "digits    fill the code; Enter verifies; Tab reaches Resend",
                "t         trace of this attempt",
            ]
        }
    }

    public static func draw(for mode: AppState.Mode, into buffer: inout ScreenBuffer) {
        let dialog = Dialog(title: "Keys", message: lines(for: mode) + ["", "Any key closes this help."])
        dialog.draw(in: AppFrame.body(rows: buffer.rows, cols: buffer.cols), into: &buffer)
    }
}
