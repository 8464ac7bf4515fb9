import AuthCore

/// The whole frame for a state: the screen of the current mode, the overlay over it, or the too-small message.
public struct AppScreen: Screen {
    public init() {}

    /// A frame of the state's size, ready for `Terminal.present`.
    public static func frame(_ state: AppState) -> ScreenBuffer {
        TooSmallScreen.frame(rows: state.rows, cols: state.cols) { buffer in
            buffer.marksFocus = state.theme.marksFocus
            AppScreen().render(state, into: &buffer)
        }
    }

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        if state.overlay == .trace || state.overlay == .traceHelp {
            TraceScreen().render(state, into: &buffer)
            if state.overlay == .traceHelp {
                HelpOverlay.draw(HelpOverlay.traceEntries(state.keys), search: state.helpSearch, into: &buffer)
            }
            return
        }
        switch state.mode {
        case .unlock: UnlockScreen().render(state, into: &buffer)
        case .sessions: SessionsScreen().render(state, into: &buffer)
        case .details: SessionDetailsScreen().render(state, into: &buffer)
        case .newSignIn: NewSignInScreen().render(state, into: &buffer)
        case .contact: CodeEntryScreen().render(state, into: &buffer)
        case .signIn(let flow): Self.flowScreen(flow, state: state, into: &buffer)
        case .sandbox: SandboxScreen().render(state, into: &buffer)
        }
        if let prompt = state.commandPrompt, state.overlay == .none {
            CommandPromptBar.draw(prompt, state: state, into: &buffer)
        }
        switch state.overlay {
        case .none, .trace, .traceHelp: break
        case .help: HelpOverlay.draw(for: state.mode, keys: state.keys, search: state.helpSearch, into: &buffer)
        case .doctor(let lines):
            Dialog(title: "authdeck doctor", message: lines + ["", "Any key closes this."])
                .draw(in: AppFrame.body(rows: buffer.rows, cols: buffer.cols), into: &buffer)
        case .message:
            guard let message = state.message else { break }
            Dialog(
                title: message.isError ? "Error" : "Message", message: [message.text, "", "Any key closes this."],
                isError: message.isError
            )
            .draw(in: AppFrame.body(rows: buffer.rows, cols: buffer.cols), into: &buffer)
        case .confirmSignOut, .confirmSignOutMarked:
            ConfirmDialog.draw(state.overlay, sessions: state.sessions, into: &buffer)
        }
    }

    /// A sign-in shows exactly the machine's state: waiting (browser, device), code entry, TOTP, or the result.
    static func flowScreen(_ flow: SignInFlow, state: AppState, into buffer: inout ScreenBuffer) {
        switch flow.phase {
        case .finished:
            ResultScreen().render(state, into: &buffer)
        case .starting:
            if flow.choice.usesCode {
                CodeEntryScreen().render(state, into: &buffer)
            } else {
                AwaitingCallbackScreen().render(state, into: &buffer)
            }
        case .running(let machine):
            switch machine {
            case .awaitingCallback(let attempt, _):
                if case .oneTimeCode = attempt.method {
                    CodeEntryScreen().render(state, into: &buffer)
                } else {
                    AwaitingCallbackScreen().render(state, into: &buffer)
                }
            case .totpRequired:
                TOTPScreen().render(state, into: &buffer)
            case .idle, .authenticated:
                AwaitingCallbackScreen().render(state, into: &buffer)
            }
        }
        ConfirmDialog.dialog(for: flow)?.draw(
            in: ConfirmDialog.area(rows: buffer.rows, cols: buffer.cols), into: &buffer)
    }
}
