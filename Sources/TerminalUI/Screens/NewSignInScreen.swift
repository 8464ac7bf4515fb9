import AuthCore

/// New sign-in: provider buttons with their mnemonics (g a d x o e s l), a backend chooser and a session-key field.
public struct NewSignInScreen: Screen {
    public init() {}

    /// Lines reserved for the provider buttons, which wrap on narrow terminals.
    static let buttonLines = 3

    /// Where each provider button is drawn: the browser providers on one line, the ones that start from an address
    /// (codes, the email link) on the next, wrapped when the terminal is narrow.
    public static func buttonFrames(_ form: NewSignInForm, rows: Int, cols: Int) -> [Rect] {
        let body = AppFrame.body(rows: rows, cols: cols)
        let left = body.col + 3
        var line = 0
        var col = left
        var frames: [Rect] = []
        var previousUsedCode: Bool?
        for provider in form.providers {
            let width = Button(label(provider), mnemonic: provider.mnemonic).width
            let usesCode = provider.needsContact
            let groupChanged = previousUsedCode.map { $0 != usesCode } ?? false
            if col > left && (groupChanged || col + width > body.right - 1) {
                line += 1
                col = left
            }
            previousUsedCode = usesCode
            let fits = line < buttonLines
            frames.append(Rect(row: body.row + 2 + line, col: col, rows: fits ? 1 : 0, cols: fits ? width : 0))
            col += width + 2
        }
        return frames
    }

    /// A button's label: the provider's title, the word every message uses too (no `…`: the fields highlighting OIDC
    /// shows, its issuer and client id, are named on the screen and in help).
    static func label(_ provider: Provider) -> String {
        provider.title
    }

    public static func backendRect(rows: Int, cols: Int) -> Rect {
        let body = AppFrame.body(rows: rows, cols: cols)
        return Rect(row: body.row + 3 + buttonLines, col: 16, rows: 1, cols: max(0, cols - 18))
    }

    public static func sessionKeyRect(rows: Int, cols: Int) -> Rect {
        let body = AppFrame.body(rows: rows, cols: cols)
        return Rect(row: body.row + 4 + buttonLines, col: 16, rows: 1, cols: max(0, min(40, cols - 18)))
    }

    /// OIDC's issuer field, under the session key (shown only while OIDC is the highlighted provider).
    public static func issuerRect(rows: Int, cols: Int) -> Rect {
        let key = sessionKeyRect(rows: rows, cols: cols)
        return Rect(row: key.row + 1, col: key.col, rows: 1, cols: max(0, min(60, cols - 18)))
    }

    /// OIDC's client id field, under the issuer.
    public static func clientIDRect(rows: Int, cols: Int) -> Rect {
        let key = sessionKeyRect(rows: rows, cols: cols)
        return Rect(row: key.row + 2, col: key.col, rows: 1, cols: key.cols)
    }

    /// OIDC's client authentication chooser, under the client id.
    public static func authMethodRect(rows: Int, cols: Int) -> Rect {
        let key = sessionKeyRect(rows: rows, cols: cols)
        return Rect(row: key.row + 3, col: key.col, rows: 1, cols: max(0, cols - 18))
    }

    /// OIDC's private key file field, under the auth method.
    public static func keyFileRect(rows: Int, cols: Int) -> Rect {
        let key = sessionKeyRect(rows: rows, cols: cols)
        return Rect(row: key.row + 4, col: key.col, rows: 1, cols: max(0, min(60, cols - 18)))
    }

    /// The row of OIDC's request choices (PAR, signed request, response mode, DPoP), under the key file.
    static func requestRow(rows: Int, cols: Int) -> Int {
        sessionKeyRect(rows: rows, cols: cols).row + 5
    }

    /// The row of OIDC's prompt chooser, under the request choices.
    static func promptRow(rows: Int, cols: Int) -> Int {
        requestRow(rows: rows, cols: cols) + 1
    }

    /// OIDC's request-shaping text fields (login hint, max age, acr values, resource), one a row under the prompt.
    public static func shapingFieldRects(rows: Int, cols: Int) -> [(focus: NewSignInForm.Focus, rect: Rect)] {
        let key = sessionKeyRect(rows: rows, cols: cols)
        let fields: [NewSignInForm.Focus] = [.loginHint, .maxAge, .acrValues, .resource]
        return fields.enumerated().map { index, focus in
            let width = focus == .maxAge ? 16 : max(0, min(60, cols - 18))
            return (focus, Rect(row: promptRow(rows: rows, cols: cols) + 1 + index, col: key.col, rows: 1, cols: width))
        }
    }

    /// The last row of OIDC's fields.
    static func lastOIDCRow(rows: Int, cols: Int) -> Int {
        promptRow(rows: rows, cols: cols) + 4
    }

    /// What the prompt chooser shows (nil: the provider decides).
    static func promptLabel(_ prompt: String?) -> String {
        prompt ?? "provider's default"
    }

    /// What the auth-method chooser shows for a method (nil: authdeck chooses, as `login` does).
    static func methodLabel(_ method: String?) -> String {
        method ?? "automatic (as login chooses)"
    }

    /// One of OIDC's choices as drawn: which field it is, where, its words, and whether it is on (drawn bold).
    public struct OptionFrame: Equatable, Sendable {
        public var focus: NewSignInForm.Focus
        public var rect: Rect
        public var text: String
        public var isOn: Bool
    }

    /// Each of OIDC's choices and where it is drawn: the auth method on its row, the request choices side by side.
    public static func optionFrames(_ form: NewSignInForm, rows: Int, cols: Int) -> [OptionFrame] {
        let method = authMethodRect(rows: rows, cols: cols)
        let methodText = "‹ " + methodLabel(form.options.authMethod) + " ›"
        var frames = [
            OptionFrame(
                focus: .authMethod,
                rect: Rect(row: method.row, col: method.col, rows: 1, cols: DisplayText.width(of: methodText)),
                text: methodText, isOn: false)
        ]
        let options = form.options
        let mode = options.responseMode ?? "query"
        let onOff = { (isOn: Bool) in isOn ? " on" : " off" }
        let choices: [(NewSignInForm.Focus, String, Bool)] = [
            (.pushed, "PAR" + onOff(options.pushed), options.pushed),
            (.signedRequest, "signed request" + onOff(options.signedRequest), options.signedRequest),
            (.responseMode, "response " + mode, mode != "query"),  // the default mode is not "on"
            (.dpop, "DPoP" + onOff(options.dpop), options.dpop),
        ]
        let row = requestRow(rows: rows, cols: cols)
        var col = method.col
        for (focus, text, isOn) in choices {
            let width = DisplayText.width(of: text)
            frames.append(
                OptionFrame(focus: focus, rect: Rect(row: row, col: col, rows: 1, cols: width), text: text, isOn: isOn))
            col += width + 2
        }
        let promptText = "‹ " + promptLabel(options.prompt) + " ›"
        frames.append(
            OptionFrame(
                focus: .prompt,
                rect: Rect(
                    row: promptRow(rows: rows, cols: cols), col: method.col, rows: 1,
                    cols: DisplayText.width(of: promptText)),
                text: promptText, isOn: options.prompt != nil))
        return frames
    }

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        guard case .newSignIn(let form) = state.mode else { return }
        AppFrame.draw(
            title: "New sign-in", hints: Self.hints.filter { $0.key != "?" },
            pinned: Self.hints.filter { $0.key == "?" }, state: state, into: &buffer)
        let rows = buffer.rows
        let cols = buffer.cols
        let body = AppFrame.body(rows: rows, cols: cols)
        buffer.write("  Sign in with", row: body.row + 1, col: 0, style: Style(attributes: .bold))
        let frames = Self.buttonFrames(form, rows: rows, cols: cols)
        for (index, provider) in form.providers.enumerated() where !frames[index].isEmpty {
            let focused = form.focus == .providers && index == form.providerIndex
            let marked = form.focus != .providers && index == form.providerIndex
            // A provider this backend cannot do is greyed; the line under the buttons says why.
            let refused = state.refusal(provider: provider, backend: form.backend) != nil
            var style: Style = refused ? Style(foreground: .dim) : .plain
            if marked { style.attributes.insert(.underline) }
            Button(Self.label(provider), mnemonic: provider.mnemonic, isFocused: focused, style: style)
                .draw(in: frames[index], into: &buffer)
        }
        let greyed = form.providers.filter { state.refusal(provider: $0, backend: form.backend) != nil }
        // The last field's row: the session key, or OIDC's request choices under its issuer, client and key.
        let fieldsEnd =
            form.showsIssuerFields
            ? Self.lastOIDCRow(rows: rows, cols: cols)
            : Self.sessionKeyRect(rows: rows, cols: cols).row
        if form.error == nil, !greyed.isEmpty {
            let current = state.refusal(provider: form.provider, backend: form.backend)
            let names = greyed.map(\.title).joined(separator: ", ")
            let text = current.map { "\(form.provider.title): \($0)." } ?? "Greyed on \(form.backend): \(names)."
            buffer.write("  " + text, row: fieldsEnd + 2, col: 0, style: Style(foreground: .dim), maxWidth: cols)
        }
        let backendRect = Self.backendRect(rows: rows, cols: cols)
        buffer.write("  Backend", row: backendRect.row, col: 0, style: Style(foreground: .accent))
        let backendText = "‹ \(form.backend) ›"
        let backendStyle = form.focus == .backend ? Style(attributes: .reverse) : Style(attributes: .bold)
        let end = buffer.write(backendText, row: backendRect.row, col: backendRect.col, style: backendStyle)
        let choices = form.backends.count > 1 ? "  b or ←/→ changes (\(form.backends.count) configured)" : ""
        buffer.write(choices, row: backendRect.row, col: end, style: Style(foreground: .dim))
        let method = form.method.label
        let methodEnd = buffer.write("  Method", row: backendRect.row - 1, col: 0, style: Style(foreground: .accent))
        buffer.write(
            String(repeating: " ", count: max(0, 16 - methodEnd)) + method + "  (m changes)",
            row: backendRect.row - 1, col: methodEnd, style: Style(attributes: form.method == .browser ? [] : .bold),
            maxWidth: cols - methodEnd - 1)

        let keyRect = Self.sessionKeyRect(rows: rows, cols: cols)
        buffer.write("  Session key", row: keyRect.row, col: 0, style: Style(foreground: .accent))
        var field = form.sessionKey
        field.isFocused = form.focus == .sessionKey
        field.draw(in: keyRect, into: &buffer)
        if form.showsIssuerFields {
            for (label, rect, text, focus) in [
                (
                    "  Issuer", Self.issuerRect(rows: rows, cols: cols), form.issuer,
                    NewSignInForm.Focus.issuer
                ),
                (
                    "  Client id", Self.clientIDRect(rows: rows, cols: cols),
                    form.clientID, .clientID
                ),
            ] {
                buffer.write(label, row: rect.row, col: 0, style: Style(foreground: .accent))
                var field = text
                field.isFocused = form.focus == focus
                field.draw(in: rect, into: &buffer)
            }
            Self.drawOptions(form, rows: rows, cols: cols, into: &buffer)
        }

        if let error = form.error {
            // Wrapped at word boundaries over two lines: login's reasons name the field and the fix.
            for (index, line) in DisplayText.wrapped(error, toWidth: max(1, cols - 3)).prefix(2).enumerated() {
                buffer.write(
                    "  " + line, row: fieldsEnd + 2 + index, col: 0, style: Style(foreground: .error), maxWidth: cols)
            }
        }
        var help = [
            "Press a provider's key, or move with ←/→ and Tab and press Enter.",
            "Email and SMS ask for the address next, then for the code that was sent.",
            form.showsIssuerFields
                ? "Issuer, client id and key file left empty: config.json's are used."
                : "OIDC takes config.json's issuer and client id; highlight it (←/→) to type others.",
        ]
        if form.showsIssuerFields {
            help.append("Other choices start as config.json's; ←/→ or Space changes one.")
        }
        if let path = state.missingConfig {
            // A first start: nothing is configured, so say where config.json goes and how to try the sandbox.
            help =
                DisplayText.wrapped("No config.json at \(path).", toWidth: max(1, cols - 3)) + [
                    "Without one only OIDC signs in (issuer and client id typed here).",
                    "To try authdeck locally, run the sandbox: make run in the source tree, or",
                    "authdeck sandbox --config-out FILE, then AUTHDECK_CONFIG=FILE authdeck.",
                ] + help.prefix(1)
        }
        for (index, line) in help.enumerated() where fieldsEnd + 4 + index < body.bottom {
            buffer.write(
                "  " + line, row: fieldsEnd + 4 + index, col: 0, style: Style(foreground: .dim),
                maxWidth: cols)
        }
        Self.markFocus(form, buttons: frames, rows: rows, cols: cols, into: &buffer)
    }

    /// A `>` before the focused row and before the focused button or choice on it: focus shows without colour or
    /// reverse video (NO_COLOR, monochrome terminals), so a letter is never typed into the wrong field unseen.
    private static func markFocus(
        _ form: NewSignInForm, buttons: [Rect], rows: Int, cols: Int, into buffer: inout ScreenBuffer
    ) {
        var item: Rect?
        let row: Int
        switch form.focus {
        case .providers:
            item = buttons[form.providerIndex].isEmpty ? nil : buttons[form.providerIndex]
            row = item?.row ?? AppFrame.body(rows: rows, cols: cols).row + 2
        case .backend: row = backendRect(rows: rows, cols: cols).row
        case .sessionKey: row = sessionKeyRect(rows: rows, cols: cols).row
        case .issuer: row = issuerRect(rows: rows, cols: cols).row
        case .clientID: row = clientIDRect(rows: rows, cols: cols).row
        case .keyFile: row = keyFileRect(rows: rows, cols: cols).row
        case .authMethod, .pushed, .signedRequest, .responseMode, .dpop:
            item = optionFrames(form, rows: rows, cols: cols).first { $0.focus == form.focus }?.rect
            row = item?.row ?? requestRow(rows: rows, cols: cols)
        case .prompt: row = promptRow(rows: rows, cols: cols)
        case .loginHint, .maxAge, .acrValues, .resource:
            row =
                shapingFieldRects(rows: rows, cols: cols).first { $0.focus == form.focus }?.rect.row
                ?? promptRow(rows: rows, cols: cols)
        }
        let marker = Style(attributes: .bold)
        buffer.write(">", row: row, col: 0, style: marker)
        // A focused button marks itself in a theme that marks focus (`>g< Google`).
        let buttonMarks = form.focus == .providers && buffer.marksFocus
        if let item, !buttonMarks, item.col > 1, item.right <= cols - 1 {
            buffer.write(">", row: item.row, col: item.col - 1, style: marker)
        }
    }

    /// OIDC's client authentication, key file and request choices; the focused choice is reversed, one that is on
    /// bold.
    private static func drawOptions(_ form: NewSignInForm, rows: Int, cols: Int, into buffer: inout ScreenBuffer) {
        let method = authMethodRect(rows: rows, cols: cols)
        buffer.write("  Client auth", row: method.row, col: 0, style: Style(foreground: .accent))
        let keyRect = keyFileRect(rows: rows, cols: cols)
        buffer.write("  Key file", row: keyRect.row, col: 0, style: Style(foreground: .accent))
        var keyField = form.keyFile
        keyField.isFocused = form.focus == .keyFile
        keyField.draw(in: keyRect, into: &buffer)
        buffer.write("  Request", row: requestRow(rows: rows, cols: cols), col: 0, style: Style(foreground: .accent))
        buffer.write("  Prompt", row: promptRow(rows: rows, cols: cols), col: 0, style: Style(foreground: .accent))
        let labels: [NewSignInForm.Focus: String] = [
            .loginHint: "  Login hint", .maxAge: "  Max age", .acrValues: "  ACR values", .resource: "  Resource",
        ]
        let fields: [NewSignInForm.Focus: TextField] = [
            .loginHint: form.loginHint, .maxAge: form.maxAge, .acrValues: form.acrValues, .resource: form.resource,
        ]
        for (focus, rect) in shapingFieldRects(rows: rows, cols: cols) {
            buffer.write(labels[focus] ?? "", row: rect.row, col: 0, style: Style(foreground: .accent))
            guard var field = fields[focus] else { continue }
            field.isFocused = form.focus == focus
            field.draw(in: rect, into: &buffer)
        }
        for frame in optionFrames(form, rows: rows, cols: cols) where frame.rect.right <= cols - 1 {
            let style =
                form.focus == frame.focus
                ? Style(attributes: .reverse) : Style(attributes: frame.isOn ? .bold : [])
            buffer.write(frame.text, row: frame.rect.row, col: frame.rect.col, style: style)
        }
    }

    static let hints: [StatusBar.Hint] = [
        .init("Enter", "start"), .init("Tab", "next field"),
        .init("b", "backend"), .init("m", "method"), .init("Esc", "back"),
        .init("?", "help"),
    ]
}
