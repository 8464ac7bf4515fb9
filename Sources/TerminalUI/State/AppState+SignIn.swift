import AuthCore
import Foundation

/// Keys of the New sign-in, contact and sign-in screens, and the sign-in controller's reports.
extension AppState {
    // MARK: - New sign-in

    mutating func newSignInKey(_ request: KeyRequest, _ form: NewSignInForm) -> [AppEffect] {
        var form = form
        form.error = nil
        switch request {
        case .escape, .interrupt:
            mode = .sessions
            return []
        case .tab, .down:
            form.focus = Self.focus(after: form.focus, step: 1, in: form)
        case .backTab, .up:
            form.focus = Self.focus(after: form.focus, step: -1, in: form)
        case .enter:
            return start(form.providerIndex, form)
        case .mouseClick(let row, let col):
            let frames = NewSignInScreen.buttonFrames(form, rows: rows, cols: cols)
            if let index = frames.firstIndex(where: { $0.contains(row: row, col: col) }) {
                return start(index, form)
            }
            if NewSignInScreen.backendRect(rows: rows, cols: cols).contains(row: row, col: col) {
                form.focus = .backend
                form.backendIndex = (form.backendIndex + 1) % form.backends.count
                form.resetOptions()
            } else if NewSignInScreen.sessionKeyRect(rows: rows, cols: cols).contains(row: row, col: col) {
                form.focus = .sessionKey
            } else if form.showsIssuerFields,
                NewSignInScreen.issuerRect(rows: rows, cols: cols).contains(row: row, col: col)
            {
                form.focus = .issuer
            } else if form.showsIssuerFields,
                NewSignInScreen.clientIDRect(rows: rows, cols: cols).contains(row: row, col: col)
            {
                form.focus = .clientID
            } else if form.showsIssuerFields,
                let clicked = NewSignInScreen.shapingFieldRects(rows: rows, cols: cols).first(where: {
                    $0.rect.contains(row: row, col: col)
                })
            {
                form.focus = clicked.focus
            } else if form.showsIssuerFields,
                let clicked = NewSignInScreen.optionFrames(form, rows: rows, cols: cols).first(where: {
                    $0.rect.contains(row: row, col: col)
                })
            {
                // A click on a choice focuses it, and on the focused one changes it.
                if form.focus == clicked.focus { form.changeOption(step: 1) }
                form.focus = clicked.focus
            }
        default:
            switch form.focus {
            case .sessionKey:
                if let edited = form.sessionKey.applying(request) { form.sessionKey = edited }
            case .issuer:
                if let edited = form.issuer.applying(request) { form.issuer = edited }
            case .clientID:
                if let edited = form.clientID.applying(request) { form.clientID = edited }
            case .keyFile:
                if let edited = form.keyFile.applying(request) { form.keyFile = edited }
            case .loginHint:
                if let edited = form.loginHint.applying(request) { form.loginHint = edited }
            case .maxAge:
                if let edited = form.maxAge.applying(request) { form.maxAge = edited }
            case .acrValues:
                if let edited = form.acrValues.applying(request) { form.acrValues = edited }
            case .resource:
                if let edited = form.resource.applying(request) { form.resource = edited }
            case .providers, .backend, .authMethod, .pushed, .signedRequest, .responseMode, .dpop, .prompt:
                switch request {
                case .left, .right:
                    let step = request == .left ? -1 : 1
                    if form.focus == .providers {
                        form.providerIndex = (form.providerIndex + step + form.providers.count) % form.providers.count
                    } else if form.focus == .backend {
                        form.backendIndex = (form.backendIndex + step + form.backends.count) % form.backends.count
                        form.resetOptions()
                    } else {
                        form.changeOption(step: step)
                    }
                case .character(" ") where form.focus != .providers && form.focus != .backend:
                    form.changeOption(step: 1)
                case .character("b"):
                    form.backendIndex = (form.backendIndex + 1) % form.backends.count
                    form.resetOptions()
                case .character("m"):
                    form.method = form.method.next(openIDConnect: form.showsIssuerFields)
                case .character("?"):
                    overlay = .help
                case .character(let letter) where form.focus == .providers:
                    // Mnemonics press their button only on the provider row: a letter typed one Tab short of a
                    // text field must not start a sign-in.
                    if let index = form.providers.firstIndex(where: { $0.mnemonic == letter }) {
                        return start(index, form)
                    }
                default:
                    break
                }
            }
        }
        mode = .newSignIn(form)
        return []
    }

    private static func focus(after focus: NewSignInForm.Focus, step: Int, in form: NewSignInForm)
        -> NewSignInForm.Focus
    {
        let order: [NewSignInForm.Focus] =
            [.providers, .backend, .sessionKey]
            + (form.showsIssuerFields
                ? [
                    .issuer, .clientID, .authMethod, .keyFile, .pushed, .signedRequest, .responseMode, .dpop, .prompt,
                    .loginHint, .maxAge, .acrValues, .resource,
                ] : [])
        let index = order.firstIndex(of: focus) ?? 0
        return order[(index + step + order.count) % order.count]
    }

    private mutating func start(_ providerIndex: Int, _ form: NewSignInForm) -> [AppEffect] {
        var form = form
        form.providerIndex = providerIndex
        if let reason = refusal(provider: form.provider, backend: form.backend) {
            form.error = "\(form.provider.title) via \(form.backend): \(reason)."
            form.focus = .providers
            mode = .newSignIn(form)
            return []
        }
        let key = form.sessionKey.text
        if !key.isEmpty, let problem = SessionKeyRule.problem(key) {
            form.error = problem.prefix(1).uppercased() + problem.dropFirst() + "."
            form.focus = .sessionKey
            mode = .newSignIn(form)
            return []
        }
        // A taken key is refused before any browser opens; the same Enter again, key unchanged, replaces it.
        let replace = !key.isEmpty && form.replaceKey == key
        if !key.isEmpty, !replace, sessions.contains(key) {
            form.error = "A session '\(key)' exists: change the key, or press Enter again to replace it."
            form.replaceKey = key
            form.focus = .sessionKey
            mode = .newSignIn(form)
            return []
        }
        // OIDC's issuer and client id fields: checked here, so a typo is told on the form, not by a failed start.
        if form.showsIssuerFields, let problem = form.issuerProblem ?? form.shapingProblem {
            form.error = problem.message
            form.focus = problem.focus
            mode = .newSignIn(form)
            return []
        }
        let provider = form.provider
        // CIBA asks the user the login hint names: without one there is nobody to ask.
        if form.method == .backchannel, form.showsIssuerFields, form.loginHint.text.isEmpty {
            form.error = "CIBA asks the user the login hint names: type it in Login hint."
            form.focus = .loginHint
            mode = .newSignIn(form)
            return []
        }
        let method = GrantChoice.choices(openIDConnect: form.showsIssuerFields).contains(form.method)
        var choice = SignInChoice(
            provider: provider, backend: form.backend, sessionKey: key.isEmpty ? nil : key, replace: replace,
            method: provider.needsContact || !method ? .browser : form.method)
        if form.showsIssuerFields {
            choice.issuer = form.typedIssuer
            choice.clientID = form.typedClientID
            choice.options = form.chosenOptions
        }
        if provider.needsContact {
            mode = .contact(ContactForm(choice: choice))
            return []
        }
        return beginFlow(choice, from: form)
    }

    /// Shows the waiting screen at once and asks for the start: the screen never waits on the controller, and the
    /// keys that follow a double press land on the new screen, where they start nothing.
    /// - Parameter form: the New sign-in form it came from, which a refused start goes back to.
    mutating func beginFlow(_ choice: SignInChoice, from form: NewSignInForm? = nil) -> [AppEffect] {
        let id = nextFlowID
        nextFlowID += 1
        defaultBackend = choice.backend  // the New sign-in screen opens on the backend last used
        var flow = SignInFlow(id: id, choice: choice, startedAt: now)
        flow.form = form
        mode = .signIn(flow)
        message = nil
        return [.startSignIn(flow: id, choice)]
    }

    /// A start refused before anything was sent: back to the form it came from, every field as it was, with the
    /// one line `login` prints for the same settings; without a form (`R`, an unlock resuming) the result says it.
    mutating func handleSignInRefused(_ id: Int, _ refusal: SignInError) -> [AppEffect] {
        let error = refusal.onScreen
        guard case .signIn(let flow) = mode, flow.id == id, var form = flow.form else {
            return handleSignIn(id, .finished(.failure(error)))
        }
        var ended = flow
        ended.trace.append(TraceLine(time: now, kind: .result, text: error.message, isError: true))
        lastFlow = ended
        form.error = error.message
        mode = .newSignIn(form)
        return []
    }

    // MARK: - Contact

    mutating func contactKey(_ request: KeyRequest, _ form: ContactForm) -> [AppEffect] {
        var form = form
        switch request {
        case .escape:
            var back = NewSignInForm(
                providers: providers, backends: backends, defaultBackend: form.choice.backend, options: signInOptions)
            back.providerIndex = providers.firstIndex(of: form.choice.provider) ?? 0
            mode = .newSignIn(back)
            return []
        case .interrupt:
            mode = .sessions
            return []
        case .enter:
            switch form.validatedContact() {
            case .success(let contact):
                var choice = form.choice
                choice.contact = contact
                return beginFlow(choice)
            case .failure(let error):
                form.error = error.message
            }
        default:
            if let edited = form.field.applying(request) {
                form.field = edited
                form.error = nil
            }
        }
        mode = .contact(form)
        return []
    }

    // MARK: - A sign-in on screen

    mutating func flowKey(_ request: KeyRequest, _ flow: SignInFlow) -> [AppEffect] {
        var flow = flow
        if case .finished(let result) = flow.phase {
            switch request {
            case .enter, .escape, .interrupt, .character("q"), .character(" "), .mouseClick:
                return leaveFinished(flow, result)
            case .character("n"):
                let effects = leaveFinished(flow, result)
                mode = .newSignIn(
                    NewSignInForm(
                        providers: providers, backends: backends,
                        defaultBackend: flow.choice.backend, options: signInOptions))
                return effects
            case .character("R"):
                // The same provider, backend, key and contact again (support repeats a login many times).
                var choice = flow.choice
                if choice.sessionKey != nil { choice.replace = true }
                let effects = leaveFinished(flow, result)
                return effects + beginFlow(choice)
            case .character("t"):
                overlay = .trace
            case .character("?"):
                overlay = .help
            default:
                break
            }
            return []
        }
        if request == .escape || request == .interrupt {
            return cancel(flow)
        }
        let state: SignInStateMachine.State?
        if case .running(let running) = flow.phase { state = running } else { state = nil }
        var effects: [AppEffect] = []
        switch state {
        case .awaitingCallback(_, .storageFailed), .totpRequired(_, _, .storageFailed):
            if request == .enter || request == .character("r") {
                flow.notice = nil
                effects = [.retrySave(flow: flow.id)]
            } else if request == .character("t") {
                overlay = .trace
            }
        case .awaitingCallback(_, .confirming), .totpRequired(_, _, .confirming):
            effects = identityKey(request, flow)
        case .awaitingCallback(let attempt, let progress):
            if case .oneTimeCode = attempt.method {
                effects = codeKey(request, &flow, waiting: progress == .waiting, canResend: true)
            } else {
                effects = waitingKey(request, &flow)
            }
        case .totpRequired(_, _, let progress):
            effects = codeKey(request, &flow, waiting: progress == .waiting, canResend: false)
        case nil, .idle, .authenticated:
            // Starting: only Esc (above), help and trace mean anything until the controller reports the attempt.
            switch request {
            case .character("t"): overlay = .trace
            case .character("?"): overlay = .help
            default: break
            }
        }
        mode = .signIn(flow)
        return effects
    }

    /// "Keep this session?" over a sign-in whose redirect came without state: y keeps it, n or Enter (Discard has
    /// the focus) throws it away; the machine's next state takes the dialog down.
    private mutating func identityKey(_ request: KeyRequest, _ flow: SignInFlow) -> [AppEffect] {
        let keep: Bool
        switch request {
        case .character("y"), .character("Y"): keep = true
        case .character("n"), .character("N"), .enter: keep = false
        case .mouseClick(let row, let col):
            guard let dialog = ConfirmDialog.dialog(for: flow),
                let index = dialog.buttonIndex(atRow: row, col: col, in: ConfirmDialog.area(rows: rows, cols: cols))
            else { return [] }
            keep = index == 0
        case .character("t"):
            overlay = .trace
            return []
        default:
            return []
        }
        return [.answerIdentity(flow: flow.id, keep: keep)]
    }

    /// The browser (or device) waiting screen: the paste field takes typing once `p` focuses it, or a paste.
    private mutating func waitingKey(_ request: KeyRequest, _ flow: inout SignInFlow) -> [AppEffect] {
        if flow.pasteField.isFocused {
            switch request {
            case .enter:
                let text = flow.pasteField.text.trimmingCharacters(in: .whitespaces)
                flow.pasteField = TextField(placeholder: flow.pasteField.placeholder, maxLength: 16_384)
                guard !text.isEmpty else { return [] }
                return [.pasteRedirect(flow: flow.id, text)]
            case .tab:
                flow.pasteField.isFocused = false
            default:
                if let edited = flow.pasteField.applying(request) { flow.pasteField = edited }
            }
            return []
        }
        // A device grant ends by polling, not by a redirect: there is no field to paste into.
        if case .device? = flow.prompt {
            switch request {
            case .paste, .character("p"), .tab: return []
            default: break
            }
        }
        switch request {
        case .paste(let text):
            flow.pasteField = flow.pasteField.inserting(text)
            flow.pasteField.isFocused = true
        case .character("p"), .tab:
            flow.pasteField.isFocused = true
        case .character("c"):
            switch flow.prompt {
            case .browser(let url)?: return [.copy(url, what: "the sign-in URL")]
            case .device(let authorization)?:
                return [.copy(authorization.verificationURI, what: "the verification URL")]
            default: break
            }
        case .character("v"):
            flow.hidesQRCode.toggle()
        case .character("t"):
            overlay = .trace
        case .character("?"):
            overlay = .help
        default:
            break  // a stray key (the second of a double press) changes nothing here
        }
        return []
    }

    /// Code entry (one-time code or TOTP): typing fills the boxes, Enter sends a complete code, Tab reaches Resend.
    private mutating func codeKey(
        _ request: KeyRequest, _ flow: inout SignInFlow, waiting: Bool,
        canResend: Bool
    ) -> [AppEffect] {
        switch request {
        case .tab, .backTab:
            if canResend { flow.codeFocus = flow.codeFocus == .code ? .resend : .code }
            flow.codeField.isFocused = flow.codeFocus == .code
            return []
        case .mouseClick(let row, let col):
            // A click on Resend presses it, as Tab then Enter would.
            guard canResend, CodeEntryScreen.resendRect(rows: rows, cols: cols).contains(row: row, col: col)
            else { return [] }
            flow.codeFocus = .resend
            return codeKey(.enter, &flow, waiting: waiting, canResend: canResend)
        case .enter:
            // A second Enter while the code is out (or being checked) sends nothing: the first shows it checked.
            guard waiting else { return [] }
            if flow.codeFocus == .resend {
                if let availableAt = flow.attempt?.resendAvailableAt, availableAt > now {
                    flow.notice =
                        "You can ask for a new code in \(Int(availableAt.timeIntervalSince(now).rounded(.up))) s."
                    return []
                }
                flow.notice = nil
                flow.codeFocus = .code
                flow.codeField.isFocused = true
                return [.resendCode(flow: flow.id)]
            }
            guard flow.codeField.isComplete else {
                flow.notice = "Type all \(flow.codeField.length) characters of the code."
                return []
            }
            flow.notice = nil
            flow.codeSubmitted(now: now)
            return [.enterCode(flow: flow.id, flow.codeField.code)]
        case .character(let character) where flow.codeFocus == .code:
            let edited = flow.codeField.inserting(String(character))
            if edited != flow.codeField {
                if waiting { flow.codeField = edited }
            } else if character == "u" && flow.offersTestAccountCode && waiting {
                flow.notice = nil
                flow.codeSubmitted(now: now)
                return [.useTestAccountCode(flow: flow.id)]
            } else if character == "t" {
                overlay = .trace
            } else if character == "?" {
                overlay = .help
            }
            return []
        case .character("t"):
            overlay = .trace
            return []
        default:
            if waiting, flow.codeFocus == .code, let edited = flow.codeField.applying(request) {
                flow.codeField = edited
            }
            return []
        }
    }

    private mutating func cancel(_ flow: SignInFlow) -> [AppEffect] {
        var ended = flow
        ended.trace.append(TraceLine(time: now, kind: .state, text: "cancel requested (Esc)"))
        lastFlow = ended
        mode = .sessions
        message = Message("Sign-in cancelled; nothing was stored.")
        return [.cancelSignIn(flow: flow.id)]
    }

    private mutating func leaveFinished(_ flow: SignInFlow, _ result: Result<SignInOutcome, SignInError>)
        -> [AppEffect]
    {
        lastFlow = flow
        mode = .sessions
        switch result {
        case .success(let outcome):
            sessions.moveCursor(toRow: sessions.row(of: outcome.record.key) ?? sessions.cursor)
            message = Message("Signed in: \(outcome.record.key).")
        case .failure(let error):
            message = Message(error.message, isError: error != .closed)
        }
        return [.dismissSignIn(flow: flow.id)]
    }

    // MARK: - Controller reports

    mutating func handleSignIn(_ id: Int, _ progress: SignInProgress) -> [AppEffect] {
        if case .finished(.success(let outcome)) = progress {
            // Stored whatever the screen shows now (even a flow cancelled while it was persisting).
            let noneSelected = sessions.selectedKey == nil
            let existing = sessions.item(forKey: outcome.record.key)
            sessions.upsert(
                SessionItem(record: outcome.record, isSelected: existing?.isSelected ?? noneSelected),
                focus: true)
        }
        updateFlow(id) { $0.apply(progress, now: $1) }
        return []
    }

    mutating func handleSignInDetail(_ id: Int, _ detail: SignInDetail) -> [AppEffect] {
        updateFlow(id) { $0.apply(detail, now: $1) }
        return []
    }

    /// Flow `id` on screen, or else the one left last (a cancelled flow's late reports go to its trace only).
    private mutating func updateFlow(_ id: Int, _ change: (inout SignInFlow, Date) -> Void) {
        if case .signIn(var flow) = mode, flow.id == id {
            change(&flow, now)
            mode = .signIn(flow)
        } else if var last = lastFlow, last.id == id {
            change(&last, now)
            lastFlow = last
        }
    }
}
