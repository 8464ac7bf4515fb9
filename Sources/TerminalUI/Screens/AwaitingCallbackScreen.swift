import AuthCore
import Foundation

/// Awaiting callback: the provider, the URL to open (and its QR code when it fits), the receivers listening, a
/// countdown to the deadline, and a paste field for the final redirect URL; for a device grant, the code, the
/// verification URL, the polling interval and the time left instead of the field. Esc cancels.
public struct AwaitingCallbackScreen: Screen {
    public init() {}

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard let flow = state.flow else { return }
        let left = flow.secondsLeft(now: state.now)
        let right = left.map { "\(TimeText.countdown($0)) left" } ?? ""
        // `? help` stays whatever the width, as on every screen.
        let hints = Self.hints(flow)
        AppFrame.draw(
            title: "Sign in with \(flow.choice.title) via \(flow.choice.backend)", right: right,
            hints: hints.filter { $0.key != "?" }, pinned: hints.filter { $0.key == "?" }, state: state,
            into: &buffer)
        let body = AppFrame.body(rows: buffer.rows, cols: buffer.cols)
        let bottom = Rect(row: body.bottom - 4, col: 0, rows: 4, cols: body.cols)

        var qr: [[Bool]]?
        switch flow.prompt {
        case .browser?, .device?: qr = flow.hidesQRCode ? nil : flow.promptQR
        case .codeSent?, .backchannel?, .tokenRequest?, .linkSent?, nil: qr = nil
        }
        let top = body.row + 1
        var wholeURL: String?
        if case .browser(let url)? = flow.prompt { wholeURL = url }
        // The whole URL goes first: the QR code is shown beside the text only when the URL still fits below it.
        let urlRows = wholeURL.map { ($0.count + body.cols - 1) / max(1, body.cols) } ?? 0
        if let qr {
            let block = QRBlock(modules: qr, ascii: state.drawsASCII)
            if block.width + 52 <= body.cols && top + block.height + 1 + urlRows < bottom.row {
                block.draw(
                    in: Rect(
                        row: top, col: body.cols - block.width - 1, rows: block.height,
                        cols: block.width), into: &buffer)
                let textRect = Rect(row: top, col: 0, rows: bottom.row - top, cols: body.cols - block.width - 3)
                let textEnd = Self.lines(flow, qrNote: false, secondsLeft: left).draw(in: textRect, into: &buffer)
                Self.drawURL(
                    wholeURL, row: max(textEnd, top + block.height) + 1, bottom: bottom.row,
                    into: &buffer)
                Self.drawPasteField(flow, in: bottom.splitBottom(1).rest, into: &buffer)
                return
            }
            // A full-size code (version 12 and up at 120×40) takes the height: it goes on the left, and the text,
            // the paste field and, when there is no room under the code, the URL go on the right.
            let columnCols = body.cols - block.width - 4
            if columnCols >= 40 && top + block.height <= body.bottom {
                block.draw(in: Rect(row: top, col: 1, rows: block.height, cols: block.width), into: &buffer)
                drawBeside(
                    flow, now: state.now, url: wholeURL, urlRows: urlRows, qrBottom: top + block.height,
                    column: Rect(row: top, col: block.width + 3, rows: body.bottom - top, cols: columnCols),
                    body: body, into: &buffer)
                return
            }
        }
        let textRect = Rect(row: top, col: 0, rows: bottom.row - top, cols: body.cols)
        var textEnd = Self.lines(flow, qrNote: qr != nil, secondsLeft: left).draw(in: textRect, into: &buffer)
        if urlRows > 0 && textEnd + 1 + urlRows >= bottom.row {
            // A small terminal (60×16) keeps the URL: the receivers, the QR code's note, the blank rows and the
            // paste prompt give way (the field says what it takes).
            buffer.fill(textRect)
            textEnd = Self.lines(flow, qrNote: false, secondsLeft: left, compact: true).draw(
                in: textRect, into: &buffer)
            Self.drawURL(wholeURL, row: textEnd, bottom: bottom.row + 2, into: &buffer)
            Self.drawPasteField(flow, in: bottom.splitTop(1).rest, promptless: true, into: &buffer)
            return
        }
        Self.drawURL(wholeURL, row: textEnd + 1, bottom: bottom.row, into: &buffer)
        Self.drawPasteField(flow, in: bottom.splitBottom(1).rest, into: &buffer)
    }

    /// The side-by-side layout's right column: the text, the URL (in the column's rows when it does not fit on
    /// whole rows under the code: `c` copies it whole either way), then the paste field.
    private func drawBeside(
        _ flow: SignInFlow, now: Date, url: String?, urlRows: Int, qrBottom: Int, column: Rect, body: Rect,
        into buffer: inout ScreenBuffer
    ) {
        let urlBelow = url != nil && qrBottom + 1 + urlRows <= body.bottom
        let columnBottom = urlBelow ? qrBottom : column.bottom
        var row = Self.lines(flow, qrNote: false, beside: true, secondsLeft: flow.secondsLeft(now: now))
            .draw(
                in: Rect(row: column.row, col: column.col, rows: columnBottom - column.row, cols: column.cols),
                into: &buffer)
        if let url {
            if urlBelow {
                Self.drawURL(url, row: qrBottom + 1, bottom: body.bottom + 1, into: &buffer)
            } else {
                let characters = Array(DisplayText.sanitized(url))
                let width = column.cols - 2
                let chunks = (characters.count + width - 1) / max(1, width)
                row += 1
                if row + chunks + 3 <= columnBottom {
                    for index in 0..<chunks {
                        let chunk = characters[(index * width)..<min(characters.count, (index + 1) * width)]
                        buffer.write(String(chunk), row: row + index, col: column.col + 2)
                    }
                    row += chunks
                } else {
                    buffer.write(
                        "  The URL is too long to show here: c copies it, v shows it whole.", row: row,
                        col: column.col,
                        style: Style(foreground: .dim), maxWidth: column.cols)
                    row += 1
                }
            }
        }
        row += 1
        guard row + 2 <= columnBottom else { return }
        Self.drawPasteField(
            flow, in: Rect(row: row, col: column.col, rows: columnBottom - row, cols: column.cols),
            into: &buffer)
    }

    /// The instructions, the progress, the receivers and the last callback.
    private static func lines(
        _ flow: SignInFlow, qrNote: Bool, beside: Bool = false, secondsLeft: Int? = nil, compact: Bool = false
    ) -> ScreenLines {
        var lines = ScreenLines()
        switch flow.prompt {
        case .browser? where compact:
            lines.add("  Open this URL in a browser (c copies it):")
        case .browser?:
            lines.add(
                beside
                    ? "  Scan the code, or open the URL below in a browser (authdeck has tried to open it; "
                        + "c copies it):"
                    : "  Open the URL below in your browser (authdeck has tried to open it; c copies it):")
        case .device(let authorization)?:
            lines.add("  On any device, open this address and enter the code:")
            lines.add("    " + authorization.verificationURI, Style(foreground: .accent))
            lines.add("    " + authorization.userCode, Style(foreground: .accent, attributes: .bold))
            let left = secondsLeft.map { "; the code expires in " + TimeText.countdown($0) } ?? ""
            lines.add("  authdeck asks the provider every \(authorization.interval) s" + left + ".")
        case .backchannel(let authorization)?:
            lines.add("  The provider asks " + authorization.loginHint + " to approve on their own device.")
            if let message = authorization.bindingMessage {
                lines.add("  They should see this binding message:")
                lines.add("    " + message, Style(foreground: .accent, attributes: .bold))
            }
        case .tokenRequest(let grant)?:
            lines.add("  Asking the token endpoint (" + grant + "); no one needs to approve.")
        case .linkSent(let contact)?:
            lines.add("  Check your email: a sign-in link was sent to \(contact).", Style(attributes: .bold))
            lines.add("  Open it in a browser, or paste the address it leads to below.")
        case .codeSent?, nil:
            lines.add("  Starting the sign-in…", Style(foreground: .dim))
        }
        if qrNote {
            lines.add("  (The QR code needs a larger terminal.)", Style(foreground: .dim))
        }
        if let warning = flow.redirectWarning {
            // At once, not after the timeout: the provider will send the browser where nothing listens.
            lines.add(
                "  ⚠ " + warning.prefix(1).uppercased() + warning.dropFirst()
                    + ". Paste the final URL if it comes; D on the list runs doctor.", Style(foreground: .error))
        }
        for note in flow.notes { lines.add("  " + note, Style(foreground: .accent)) }
        if !flow.protections.isEmpty {
            lines.add("  Protocol: " + flow.protections.joined(separator: " · "), Style(foreground: .accent))
        }
        if !compact { lines.blank() }
        lines.add(Self.progressLine(flow), Self.progressStyle(flow))
        if !flow.receivers.isEmpty && !compact {
            lines.add("  Receivers listening:")
            for receiver in flow.receivers { lines.add("    • " + receiver, Style(foreground: .dim)) }
        }
        if let last = flow.lastCallback {
            lines.add(
                "  Last callback: " + last,
                Style(foreground: last.contains("refused") ? .error : .active))
        }
        return lines
    }

    /// The URL on whole rows from column 0, printed as one line the terminal wraps: a mouse copy takes it whole.
    /// When it does not fit above `bottom`, it is left to c (copy) and the trace.
    private static func drawURL(_ url: String?, row: Int, bottom: Int, into buffer: inout ScreenBuffer) {
        guard let url else { return }
        let used = buffer.writeLogicalLine(url, row: row, maxRows: max(0, bottom - row - 1))
        if used == 0 {
            buffer.write(
                "  The URL is too long for this terminal: c copies it.", row: row, col: 0,
                style: Style(foreground: .dim), maxWidth: buffer.cols)
        }
    }

    /// The paste prompt, its field and the last notice, from the top of `rect`.
    private static func drawPasteField(
        _ flow: SignInFlow, in rect: Rect, promptless: Bool = false, into buffer: inout ScreenBuffer
    ) {
        if case .device? = flow.prompt {
            // Polling ends a device grant; only a notice (a slow_down, a refusal) takes these rows.
            if let notice = flow.notice {
                buffer.write(
                    "  " + notice, row: rect.row, col: rect.col, style: Style(foreground: .error), maxWidth: rect.cols)
            }
            return
        }
        if promptless {
            let field = Rect(row: rect.row, col: rect.col + 4, rows: 1, cols: max(0, rect.cols - 8))
            buffer.write("›", row: field.row, col: rect.col + 2, style: Style(foreground: .accent))
            flow.pasteField.draw(in: field, into: &buffer)
            if let notice = flow.notice, rect.rows > 1 {
                buffer.write(
                    "  " + notice, row: rect.row + 1, col: rect.col, style: Style(foreground: .error),
                    maxWidth: rect.cols)
            }
            return
        }
        let prompt =
            rect.cols >= 64
            ? "  Paste the final redirect URL here (p focuses, Enter sends):"
            : "  Paste the redirect URL (p, Enter sends):"
        buffer.write(
            prompt, row: rect.row, col: rect.col,
            style: Style(foreground: flow.pasteField.isFocused ? .accent : .normal), maxWidth: rect.cols)
        let fieldRect = Rect(row: rect.row + 1, col: rect.col + 4, rows: 1, cols: max(0, rect.cols - 8))
        buffer.write("›", row: fieldRect.row, col: rect.col + 2, style: Style(foreground: .accent))
        flow.pasteField.draw(in: fieldRect, into: &buffer)
        if let notice = flow.notice, rect.rows > 2 {
            var lines = ScreenLines()
            lines.add("  " + notice, Style(foreground: .error))
            lines.draw(
                in: Rect(row: rect.row + 2, col: rect.col, rows: rect.rows - 2, cols: rect.cols),
                into: &buffer)
        }
    }

    static func progressLine(_ flow: SignInFlow) -> String {
        guard case .running(let state) = flow.phase else { return "  Waiting for the provider to answer…" }
        switch state {
        case .awaitingCallback(_, .waiting):
            switch flow.prompt {
            case .backchannel?: return "  Waiting for the user to approve on their device…"
            case .tokenRequest?: return "  Asking the token endpoint…"
            case .linkSent?: return "  Waiting for the sign-in link to be opened…"
            case .device?: return "  Waiting for the code to be entered on the other device…"
            case .browser?, .codeSent?, nil: return "  Waiting for the redirect from the browser…"
            }
        case .awaitingCallback(_, .verifying), .totpRequired(_, _, .verifying):
            return "  Callback accepted: exchanging it for a session…"
        case .awaitingCallback(_, .confirming), .totpRequired(_, _, .confirming):
            return "  Signed in at the provider: keep this session? y keeps it, n discards it."
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
        if ConfirmDialog.dialog(for: flow) != nil { return ConfirmDialog.keepHints }
        if flow.pasteField.isFocused {
            return [
                .init("Enter", "send URL"), .init("Tab", "leave field"),
                .init("Esc", "cancel"),
            ]
        }
        let view: [StatusBar.Hint] = flow.promptQR == nil ? [] : [.init("v", flow.hidesQRCode ? "QR code" : "URL only")]
        var paste: [StatusBar.Hint] = [.init("p", "paste URL")]
        if case .device? = flow.prompt { paste = [.init("c", "copy URL")] }
        return [.init("Esc", "cancel")] + paste + view + [.init("t", "trace"), .init("?", "help")]
    }
}
