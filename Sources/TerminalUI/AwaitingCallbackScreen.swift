import AuthCore
import Foundation

/// Awaiting callback: the provider, the URL to open (and its QR code when it fits), the receivers listening, a
/// countdown to the deadline, and a paste field for the final redirect URL. Esc cancels.
public struct AwaitingCallbackScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard let flow = state.flow else { return }
        let left = flow.secondsLeft(now: state.now)
        let right = left.map { "\(TimeText.countdown($0)) left" } ?? ""
        AppFrame.draw(title: "Sign in with \(flow.choice.title) via \(flow.choice.backend)", right: right,
                      hints: Self.hints(flow), state: state, into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let bottom = Rect(row: body.bottom - 4, col: 0, rows: 4, cols: body.cols)

        var qr: [[Bool]]?
        switch flow.prompt {
        case .browser?, .device?: qr = flow.promptQR
        case .codeSent?, nil: qr = nil
        }
        var textRect = Rect(row: body.row + 1, col: 0, rows: bottom.row - body.row - 1, cols: body.cols)
        var qrShown = false
        var qrBottom = textRect.row
        // The whole URL goes first: the QR code is shown only when the URL still fits below it.
        var urlRows = 0
        if case .browser(let url)? = flow.prompt { urlRows = (url.count + body.cols - 1) / max(1, body.cols) }
        if let qr {
            let block = QRBlock(modules: qr)
            if block.width + 52 <= body.cols && block.height <= textRect.rows
                && textRect.row + block.height + 1 + urlRows < bottom.row {
                block.draw(in: Rect(row: textRect.row, col: body.cols - block.width - 1, rows: block.height,
                                    cols: block.width), into: &buffer)
                textRect = Rect(row: textRect.row, col: 0, rows: textRect.rows, cols: body.cols - block.width - 3)
                qrShown = true
                qrBottom = textRect.row + block.height
            }
        }
        var lines = ScreenLines()
        var wholeURL: String?
        switch flow.prompt {
        case .browser(let url)?:
            lines.add("  Open the URL below in your browser (authdeck has tried to open it; c copies it):")
            wholeURL = url
        case .device(let authorization)?:
            lines.add("  On any device, go to " + authorization.verificationURI + " and enter the code:")
            lines.add("    " + authorization.userCode, Style(foreground: .accent, attributes: .bold))
        case .codeSent?, nil:
            lines.add("  Starting the sign-in…", Style(foreground: .dim))
        }
        if qr != nil && !qrShown {
            lines.add("  (The QR code needs a larger terminal.)", Style(foreground: .dim))
        }
        lines.blank()
        lines.add(Self.progressLine(flow), Self.progressStyle(flow))
        if !flow.receivers.isEmpty {
            lines.add("  Receivers listening:")
            for receiver in flow.receivers { lines.add("    • " + receiver, Style(foreground: .dim)) }
        }
        if let last = flow.lastCallback {
            lines.add("  Last callback: " + last,
                      Style(foreground: last.contains("refused") ? .error : .active))
        }
        let textEnd = lines.draw(in: textRect, into: &buffer)
        if let wholeURL {
            // The URL on whole rows from column 0, printed as one line the terminal wraps: a mouse copy takes it
            // whole. When it does not fit there, it is left to c (copy) and the trace.
            let row = max(textEnd, qrBottom) + 1
            let used = buffer.writeLogicalLine(wholeURL, row: row, maxRows: max(0, bottom.row - row - 1))
            if used == 0 {
                buffer.write("  The URL is too long for this terminal: c copies it.", row: row, col: 0,
                             style: Style(foreground: .dim), maxWidth: body.cols)
            }
        }

        buffer.write("  Paste the final redirect URL here (p focuses, Enter sends):", row: bottom.row, col: 0,
                     style: Style(foreground: flow.pasteField.isFocused ? .accent : .normal))
        let fieldRect = Rect(row: bottom.row + 1, col: 4, rows: 1, cols: max(0, body.cols - 8))
        buffer.write("›", row: fieldRect.row, col: 2, style: Style(foreground: .accent))
        flow.pasteField.draw(in: fieldRect, into: &buffer)
        if let notice = flow.notice {
            buffer.write("  " + notice, row: bottom.row + 2, col: 0, style: Style(foreground: .error),
                         maxWidth: body.cols)
        }
    }

    static func progressLine(_ flow: SignInFlow) -> String {
        guard case .running(let state) = flow.phase else { return "  Waiting for the provider to answer…" }
        switch state {
        case .awaitingCallback(_, .waiting):
            return "  Waiting for the redirect from the browser…"
        case .awaitingCallback(_, .verifying), .totpRequired(_, _, .verifying):
            return "  Callback accepted: exchanging it for a session…"
        case .awaitingCallback(_, .persisting), .totpRequired(_, _, .persisting):
            return "  Saving the session to the store…"
        case .awaitingCallback(_, .storageFailed), .totpRequired(_, _, .storageFailed):
            return "  The session could not be saved. Enter retries only the save; Esc gives up."
        case .totpRequired(_, _, .waiting):
            return "  Two-factor code required."
        case .awaitingCallback(_, .cancelling), .totpRequired(_, _, .cancelling):
            return "  Cancelling: waiting for the request that is out, so nothing it issues is kept…"
        case .idle, .authenticated:
            return "  Finishing…"
        }
    }

    static func progressStyle(_ flow: SignInFlow) -> Style {
        if case .running(.awaitingCallback(_, .storageFailed)) = flow.phase { return Style(foreground: .error) }
        return Style(attributes: .bold)
    }

    static func hints(_ flow: SignInFlow) -> [StatusBar.Hint] {
        if flow.pasteField.isFocused { return [.init("Enter", "send URL"), .init("Tab", "leave field"),
                                               .init("Esc", "cancel")] }
        return [.init("Esc", "cancel"), .init("p", "paste URL"), .init("t", "trace"), .init("?", "help")]
    }
}
