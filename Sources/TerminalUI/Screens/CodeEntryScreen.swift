import AuthCore
import Foundation

/// Email and SMS sign-in: first the contact field, then a digit field sized to the backend's code length, with
/// resend behind a countdown.
public struct CodeEntryScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        switch state.mode {
        case .contact(let form): renderContact(form, state: state, into: &buffer)
        case .signIn(let flow): renderCode(flow, state: state, into: &buffer)
        case .unlock, .sessions, .details, .newSignIn, .sandbox: return
        }
    }

    private func renderContact(_ form: ContactForm, state: AppState, into buffer: inout ScreenBuffer) {
        AppFrame.draw(
            title: "\(form.choice.title) via \(form.choice.backend)",
            hints: [.init("Enter", "send code"), .init("Esc", "back")], state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let isPhone = form.choice.provider.contactIsPhone
        buffer.write(
            isPhone ? "  Which phone number should the code go to?" : "  Which address should the code go to?",
            row: body.row + 1, col: 0, style: Style(attributes: .bold))
        buffer.write(isPhone ? "  Phone" : "  Email", row: body.row + 3, col: 0, style: Style(foreground: .accent))
        form.field.draw(
            in: Rect(row: body.row + 3, col: 10, rows: 1, cols: max(0, min(50, buffer.cols - 12))),
            into: &buffer)
        if let error = form.error {
            buffer.write(
                "  " + error, row: body.row + 5, col: 0, style: Style(foreground: .error),
                maxWidth: buffer.cols)
        }
        let hint =
            isPhone
            ? "  International format: + and the country code, 8 to 15 digits."
            : "  A one-time code is sent there; you type it on the next screen."
        buffer.write(hint, row: body.row + 7, col: 0, style: Style(foreground: .dim), maxWidth: buffer.cols)
    }

    private func renderCode(_ flow: SignInFlow, state: AppState, into buffer: inout ScreenBuffer) {
        let left = flow.secondsLeft(now: state.now)
        // After a social sign-in the code proves a new account's email: Para's view flow calls this step
        // "verification" (then a passkey is made, when one was asked for).
        let verification = !flow.choice.provider.sendsCode
        AppFrame.draw(
            title: (verification ? "Verification: " : "") + "\(flow.choice.title) via \(flow.choice.backend)",
            right: left.map { "\(TimeText.countdown($0)) left" } ?? "",
            hints: [
                .init("Enter", "verify"), .init("Tab", "resend"), .init("Esc", "cancel"),
                .init("t", "trace"),
            ],
            state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        var contact = flow.choice.contact?.value ?? "your contact"
        var progress: SignInStateMachine.Progress = .waiting
        var resendAt: Date?
        var sent = false
        if case .running(.awaitingCallback(let attempt, let current)) = flow.phase {
            progress = current
            resendAt = attempt.resendAvailableAt
            if case .oneTimeCode(let to, _, let otpID) = attempt.method {
                sent = otpID != nil
                contact = to.value
            }
        }
        var lines = ScreenLines()
        if let resent = flow.codeResentAt {
            let time = TimeText.clock(resent, offset: state.utcOffsetSeconds)
            lines.add("  A new code was sent to \(contact) at \(time).", Style(attributes: .bold))
        } else {
            lines.add(
                sent ? "  A code was sent to \(contact)." : "  Sending a code to \(contact)…",
                Style(attributes: .bold))
        }
        if verification { lines.add("  Verify the email to finish signing in.", Style(foreground: .dim)) }
        lines.draw(in: Rect(row: body.row + 1, col: 0, rows: 2, cols: body.cols), into: &buffer)

        buffer.write("  Code", row: body.row + 3, col: 0, style: Style(foreground: .accent))
        var field = flow.codeField
        field.isFocused = flow.codeFocus == .code && progress == .waiting
        field.draw(in: Rect(row: body.row + 3, col: 10, rows: 1, cols: field.width), into: &buffer)
        if let left = flow.codeAttemptsLeft {
            let text =
                left == 0
                ? "no tries left for this code"
                : (left == 1 ? "1 attempt left" : "\(left) attempts left")
            buffer.write(
                "  " + text, row: body.row + 3, col: 10 + field.width,
                style: Style(
                    foreground: left <= 2 ? .expiring : .dim), maxWidth: max(0, body.cols - 10 - field.width))
        }

        let resendText: String
        if let resendAt, resendAt > state.now {
            resendText = "Resend in \(TimeText.countdown(TimeText.secondsUntil(resendAt, from: state.now)))"
        } else {
            resendText = "Resend code"
        }
        let button = Button(
            resendText, isFocused: flow.codeFocus == .resend,
            style: resendAt.map { $0 > state.now } == true ? Style(foreground: .dim) : .plain)
        let resend = Self.resendRect(rows: buffer.rows, cols: buffer.cols)
        button.draw(in: Rect(row: resend.row, col: resend.col, rows: 1, cols: body.cols - 12), into: &buffer)

        var status = ScreenLines()
        status.addCodeProgress(
            progress, waiting: "  Type the \(flow.codeField.length)-character code and press Enter.",
            notice: flow.notice)
        if flow.codeAttemptsLeft == 0 {
            status.add(
                "  This code cannot be used any more: Tab sends a new one, or Esc and R start a new sign-in.",
                Style(foreground: .expiring))
        }
        if let outbox = state.sandboxOutbox, flow.choice.backend.hasPrefix("sandbox") {
            status.blank()
            status.add("  Sandbox: the code is in " + outbox, Style(foreground: .dim))
        }
        status.draw(
            in: Rect(row: body.row + 7, col: 0, rows: body.bottom - body.row - 7, cols: body.cols),
            into: &buffer)
    }

    /// Where the Resend button sits, for mouse clicks: wide enough for its longest text, `[ Resend in 0:30 ]`.
    public static func resendRect(rows: Int, cols: Int) -> Rect {
        let body = AppFrame.body(rows: rows, cols: cols)
        return Rect(row: body.row + 5, col: 10, rows: 1, cols: min(18, max(0, cols - 12)))
    }
}
