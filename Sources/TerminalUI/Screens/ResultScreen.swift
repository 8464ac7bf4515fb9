import AuthCore

/// Result: what happened in one line (signed in, account created, or the error's message) and what to do next.
public struct ResultScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard let flow = state.flow, case .finished(let result) = flow.phase else { return }
        AppFrame.draw(
            title: "\(flow.choice.title) via \(flow.choice.backend)",
            hints: [
                .init("Enter", "to the list"), .init("R", "retry"), .init("n", "new sign-in"),
                .init("t", "trace"),
            ],
            state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        var lines = ScreenLines()
        switch result {
        case .success(let outcome):
            let record = outcome.record
            let verb = outcome.kind == .signup ? "Account created and signed in" : "Signed in"
            lines.add(
                "  ✓ \(verb) with \(flow.choice.title) as \(record.userLabel).",
                Style(foreground: .active, attributes: .bold))
            lines.blank()
            lines.add("  Stored as session \(record.key) (\(record.backend)).")
            lines.add(
                "  Enter returns to the list with it under the cursor; u there makes it the default for scripts.",
                Style(foreground: .dim))
            lines.add("  R signs in again the same way (provider, backend, key and contact).", Style(foreground: .dim))
        case .failure(let error):
            lines.add("  ✗ " + error.message, Style(foreground: error == .closed ? .normal : .error, attributes: .bold))
            lines.blank()
            if flow.choice.usesCode, let codeAdvice = Self.codeAdvice(error) {
                lines.add("  " + codeAdvice, Style(foreground: .expiring, attributes: .bold))
            } else {
                lines.add("  " + Self.advice(error), Style(foreground: .dim))
            }
            lines.add(
                "  Nothing was stored. Enter returns to the list; R retries the same way; n starts anew; "
                    + "t shows what happened.", Style(foreground: .dim))
        }
        lines.draw(in: Rect(row: body.row + 2, col: 0, rows: body.rows - 2, cols: body.cols), into: &buffer)
    }

    /// A code sign-in that ended because its code ran out of tries or time cannot go on: a new sign-in (which
    /// sends a new code) is the only way on, so the screen says that first.
    static func codeAdvice(_ error: SignInError) -> String? {
        switch error {
        case .rateLimited, .invalidCode, .timedOut, .authenticationFailed:
            return "This code cannot be used any more: R starts a new sign-in, which sends a new code."
        default:
            return nil
        }
    }

    /// What to do next, by error.
    static func advice(_ error: SignInError) -> String {
        switch error {
        case .closed: return "The sign-in was cancelled."
        case .timedOut:
            return "The browser did not come back in time; the doctor (D on the list) checks that the redirect "
                + "URI can reach here."
        case .unavailable, .authMethodUnavailable, .grantUnavailable:
            return "Check config.json for this provider and backend (authdeck doctor helps)."
        case .stateMismatch, .callbackIncomplete:
            return "The redirect did not belong to this sign-in; start again and use the newest link."
        case .issuerMismatch:
            return "Another issuer answered this sign-in (a mix-up); sign in again from the provider's own page."
        case .authenticationFailed, .unauthorized, .invalidIdToken:
            return "The provider or backend refused; check the client id, redirect URI and the account."
        case .rateLimited: return "Wait a minute before trying again."
        case .sessionStorageFailure: return "The store refused the write; check the disk and the store's lock."
        case .invalidContact, .invalidCode, .codeRefused: return "Check what was typed and start again."
        case .network: return "Check the network or the backend's base URL."
        case .signInInProgress: return "Finish or cancel the running sign-in first."
        }
    }
}
