import AuthCore

/// TOTP required: a 6-digit field, the attempts left, and the enrolment QR code when the backend sent a link.
public struct TOTPScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard let flow = state.flow, case .running(.totpRequired(_, let challenge, let progress)) = flow.phase else {
            return
        }
        let left = flow.secondsLeft(now: state.now)
        AppFrame.draw(
            title: "Two-factor code · \(flow.choice.title) via \(flow.choice.backend)",
            right: left.map { "\(TimeText.countdown($0)) left" } ?? "",
            hints: ConfirmDialog.dialog(for: flow) == nil
                ? [.init("Enter", "verify"), .init("Esc", "cancel"), .init("t", "trace")] : ConfirmDialog.keepHints,
            state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        var textCols = body.cols
        if let modules = flow.enrolmentQR {
            let block = QRBlock(modules: modules, ascii: state.drawsASCII)
            if block.width + 46 <= body.cols && block.height <= body.rows - 1 {
                block.draw(
                    in: Rect(
                        row: body.row + 1, col: body.cols - block.width - 1, rows: block.height,
                        cols: block.width), into: &buffer)
                textCols = body.cols - block.width - 3
            }
        }
        // The enrolment link's account (an email) names the person where the backend gives only an id.
        let who = challenge.shownUser.map { " for \($0)" } ?? ""
        var heading = ScreenLines()
        heading.add("  Identity proven\(who); this account also needs a TOTP code.", Style(attributes: .bold))
        heading.draw(in: Rect(row: body.row + 1, col: 0, rows: 2, cols: textCols), into: &buffer)
        buffer.write("  Code", row: body.row + 3, col: 0, style: Style(foreground: .accent))
        var field = flow.codeField
        field.isFocused = progress == .waiting
        field.draw(in: Rect(row: body.row + 3, col: 10, rows: 1, cols: field.width), into: &buffer)
        let attempts = challenge.attemptsLeft == 1 ? "1 attempt left" : "\(challenge.attemptsLeft) attempts left"
        buffer.write(
            attempts, row: body.row + 3, col: 12 + field.width,
            style: Style(foreground: challenge.attemptsLeft <= 2 ? .expiring : .dim))
        var lines = ScreenLines()
        lines.addCodeProgress(
            progress, waiting: "  Type the 6 digits your authenticator app shows and press Enter.", notice: flow.notice)
        if flow.offersTestAccountCode && progress == .waiting {
            lines.add(
                "  A test-account seed is stored for this user: press u to use its current code.",
                Style(foreground: .accent))
        }
        if challenge.enrolmentLink != nil {
            // The link carries the TOTP secret, so it is shown only as a QR code, never as text.
            lines.blank()
            lines.add(
                textCols < body.cols
                    ? "  Not enrolled yet: scan the QR code with an authenticator app."
                    : "  Not enrolled yet: enlarge the terminal to see the QR code for your authenticator app.")
        }
        lines.draw(
            in: Rect(row: body.row + 5, col: 0, rows: body.bottom - body.row - 5, cols: textCols),
            into: &buffer)
    }
}
