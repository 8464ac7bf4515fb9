import AuthClient
import AuthCore
import Foundation
import SessionStorage
import Synchronization
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// Shows a command-line sign-in on stderr, one `SignInProgress` report at a time, and hands its result to the
/// waiting command.
final class CommandLinePresenter: Sendable {
    private let quiet: Bool
    private let showQR: Bool
    /// The command's standard error.
    private let errors: CommandOutput
    private let done = DispatchSemaphore(value: 0)
    /// What the reports (on the controller's queue) and the input thread share.
    private struct Shown {
        var result: Result<SignInOutcome, SignInError>?
        var lastOTPID: String?
        var resendAvailableAt: Date?
        var totpPrompted = false
        var attemptsLeft: Int?
        /// Takes the answer to "keep this session?" to the controller; set once before the sign-in starts.
        var answerIdentity: (@Sendable (Bool) -> Void)?
        /// The question is on screen and waits for a line.
        var asksIdentity = false
        var inputHasEnded = false
        /// Lines read while no code was asked for that are no redirect URL: a script's code piped in early, kept for
        /// the two-factor step rather than pasted as a redirect.
        var held: [String] = []
        /// Takes a two-factor code to the controller; set once before the sign-in starts.
        var enterCode: (@Sendable (String) -> Void)?
        /// Ends the attempt: the two-factor step asked with standard input at its end.
        var giveUp: (@Sendable () -> Void)?
        /// The attempt ended because the code step found standard input at its end (exit 2).
        var codeInputEnded = false
        /// The two-factor step waits for a code now (not verifying one).
        var waitsForCode = false
    }
    private let shown = Mutex(Shown())
    /// Whether a stored test-account TOTP seed answers a challenge (`SignInUseCase.testSeed`).
    private let hasTestSeed: @Sendable (TOTPChallenge) -> Bool
    /// `--yes`: a session that came without state is kept without asking.
    private let keepsWithoutAsking: Bool

    init(
        errors: CommandOutput, quiet: Bool, showQR: Bool, keepsWithoutAsking: Bool = false,
        hasTestSeed: @escaping @Sendable (TOTPChallenge) -> Bool = { _ in false }
    ) {
        self.hasTestSeed = hasTestSeed
        self.errors = errors
        self.quiet = quiet
        self.showQR = showQR
        self.keepsWithoutAsking = keepsWithoutAsking
    }

    /// Where a two-factor code read before its step asked goes, and how the attempt ends when that step finds
    /// standard input at its end.
    func takesCodes(enter: @escaping @Sendable (String) -> Void, giveUp: @escaping @Sendable () -> Void) {
        shown.withLock {
            $0.enterCode = enter
            $0.giveUp = giveUp
        }
    }

    /// Keeps a line that came before any step asked for one, for the two-factor step.
    func hold(_ line: String) {
        shown.withLock { $0.held.append(line) }
    }

    /// Whether the attempt ended because the two-factor step found standard input at its end.
    var codeInputEnded: Bool { shown.withLock { $0.codeInputEnded } }

    /// Where the answer to "keep this session?" goes (the controller's `answerIdentity`).
    func answersIdentity(with answer: @escaping @Sendable (Bool) -> Void) {
        shown.withLock { $0.answerIdentity = answer }
    }

    func say(_ text: String) {
        if !quiet { errors.write(text + "\n") }
    }

    /// The controller's report (its `report` callback, on its queue).
    func show(_ progress: SignInProgress) {
        switch progress {
        case .began(let attempt, let prompt, let receivers): attemptBegan(attempt, prompt: prompt, receivers: receivers)
        case .stateChanged(let state): stateChanged(state)
        case .notice(let error): notice(error)
        case .callbackArrived(let source, let refusal):
            if let refusal, source != "paste" { say("authdeck: refused a \(source) redirect: \(refusal)") }
        case .finished(let result): finished(result)
        case .replayed: break
        case .redirectUnreachable(let reason): redirectUnreachable(reason)
        case .note(let text): say("authdeck: " + text)
        }
    }

    /// A QR code as the terminal can show it: half blocks, or where the locale is not UTF-8 (`LANG=C`) the TUI's
    /// ASCII drawing, blanks in reverse video. Its bytes are ours alone (blanks, blocks and SGR 7/27), so they are
    /// written as they are; the sanitiser would drop the reverse video.
    private func printQR(_ code: QRCode) {
        guard !quiet else { return }
        var text =
            ASCIIDrawing.environmentLocaleIsUTF8()
            ? code.terminalText() : QRBlock(modules: code.modules, ascii: true).reversedText
        text += "\n"
        text.withUTF8 { _ = errors.write(bytes: $0) }
    }

    private func attemptBegan(_ attempt: Attempt, prompt: AttemptPrompt, receivers: [String]) {
        switch prompt {
        case .browser(let url):
            say("Sign in with \(attempt.provider) in your browser:\n\n  \(url)\n")
            if showQR, let code = QRCode(url) { printQR(code) }
            say("Waiting for the redirect (\(receivers.joined(separator: ", "))).")
            say("If the browser is on another machine, paste the final URL here and press Enter. Ctrl-C cancels.")
        case .device(let authorization):
            say("Go to \(authorization.verificationURI) and enter the code:\n\n  \(authorization.userCode)\n")
            if let code = QRCode(authorization.verificationURIComplete ?? authorization.verificationURI) {
                printQR(code)
            }
            say("Waiting for approval. Ctrl-C cancels.")
        case .codeSent(let otpID):
            guard case .oneTimeCode(let contact, let format, _) = attempt.method else { return }
            shown.withLock { $0.lastOTPID = otpID }
            let alphabet = format.alphanumeric ? "letters and digits" : "digits"
            say("A code was sent to \(contact). Type it (\(format.length) \(alphabet)) and press Enter.")
            say("Type 'resend' for a new code (after \(Int(SignInStateMachine.resendCooldown)) s). Ctrl-C cancels.")
        case .backchannel(let authorization):
            let hint = TerminalText.sanitized(authorization.loginHint)
            say("The provider asks \(hint) to approve this sign-in on their own device.")
            if let message = authorization.bindingMessage {
                say("They should see this binding message:\n\n  \(TerminalText.sanitized(message))\n")
            }
            let now = Date()
            let expiry = now.addingTimeInterval(TimeInterval(authorization.expiresIn))
            say(
                "Waiting for approval: \(SessionTable.expiresIn(expiry, now: now)) left (until "
                    + "\(SessionJSON.iso8601(expiry))). Ctrl-C cancels.")
        case .tokenRequest(let grant):
            say("Asking the token endpoint for tokens (\(grant)); no one needs to approve.")
        case .linkSent(let contact):
            say("Check your email: a sign-in link was sent to \(contact).")
            say("Waiting for the redirect it leads to (\(receivers.joined(separator: ", "))).")
            say("Opened on another machine? Paste the address it leads to here and press Enter. Ctrl-C cancels.")
        }
    }

    private func stateChanged(_ state: SignInStateMachine.State) {
        let waits: Bool
        if case .totpRequired(_, _, .waiting) = state { waits = true } else { waits = false }
        shown.withLock { $0.waitsForCode = waits }
        switch state {
        case .awaitingCallback(let attempt, .waiting):
            guard case .oneTimeCode(let contact, _, let otpID?) = attempt.method else { return }
            let (isNew, verifiesNewAccount) = shown.withLock { shown in
                let isNew = shown.lastOTPID != otpID
                let verifiesNewAccount = shown.lastOTPID == nil  // no code was sent at the start: a redirect came first
                shown.lastOTPID = otpID
                shown.resendAvailableAt = attempt.resendAvailableAt
                return (isNew, verifiesNewAccount)
            }
            if isNew && verifiesNewAccount {
                say("New account: verify the email. A code was sent to \(contact): type it and press Enter.")
            } else if isNew {
                say("A new code was sent to \(contact). Type it and press Enter.")
            }
        case .totpRequired(_, let challenge, .waiting):
            let firstPrompt = shown.withLock { shown in
                let firstPrompt = !shown.totpPrompted
                shown.totpPrompted = true
                shown.attemptsLeft = challenge.attemptsLeft
                return firstPrompt
            }
            // Back to waiting after a wrong code: the prompt is shown once, the wrong code's notice says the rest.
            guard firstPrompt else {
                takeCodeFromInput()
                return
            }
            if let link = challenge.enrolmentLink, let code = QRCode(link) {
                // The link carries the TOTP secret: only the QR code is shown, never the text.
                say("Not enrolled yet? Scan this with your authenticator app:")
                printQR(code)
            }
            let who = challenge.shownUser.map { " for \($0)" } ?? ""
            say("Two-factor code required\(who) (\(challenge.attemptsLeft) attempts left). Type the 6-digit code.")
            if hasTestSeed(challenge) {
                say("A test-account TOTP seed is stored for this user: type seed to use its current code.")
            }
            takeCodeFromInput()
        case .awaitingCallback(_, .confirming(let issued)), .totpRequired(_, _, .confirming(let issued)):
            askIdentity(issued.session.record)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            break
        }
    }

    /// A session that came without state (Portal) is shown before it is stored: a web page or another program may
    /// have sent its own account's. The answer is the next line typed (`answered`), or `--yes`.
    private func askIdentity(_ record: SessionRecord) {
        let who = "\(record.userLabel) (\(record.provider) via \(record.backend))"
        let (answer, ended) = shown.withLock { shown in
            shown.asksIdentity = !keepsWithoutAsking && !shown.inputHasEnded
            return (shown.answerIdentity, shown.inputHasEnded)
        }
        if keepsWithoutAsking {
            say("authdeck: keeping the session for \(who) (--yes).")
            answer?(true)
        } else if ended {
            errors.write(
                "authdeck: nothing is stored: the session for \(who) needs a yes, and input has ended "
                    + "(pass --yes to keep it without asking)\n")
            answer?(false)
        } else {
            errors.write(
                "The browser came back signed in as \(who). The redirect carried no proof that this sign-in asked "
                    + "for it: a web page or another program could have sent it. Keep this session? [y/N] ")
        }
    }

    /// A line typed while "keep this session?" waits; anything but y or yes is no.
    func answered(_ line: String) {
        let answer = shown.withLock { shown in
            let answer = shown.asksIdentity ? shown.answerIdentity : nil
            shown.asksIdentity = false
            return answer
        }
        answer?(Confirmation.isYes(line))
    }

    /// Standard input ended: a question that waits for it is answered no, and a two-factor step that waits for a
    /// code ends the attempt.
    func inputEnded() {
        let (answer, waitsForCode) = shown.withLock { shown in
            shown.inputHasEnded = true
            let answer = shown.asksIdentity ? shown.answerIdentity : nil
            shown.asksIdentity = false
            return (answer, shown.waitsForCode)
        }
        if answer != nil { errors.write("\nauthdeck: input ended: the session is not kept\n") }
        answer?(false)
        if waitsForCode { takeCodeFromInput() }
    }

    /// The two-factor step asks: a line read before it is the code; with none and standard input at its end, the
    /// attempt ends at once rather than waiting for a code that cannot come.
    private func takeCodeFromInput() {
        // What to do is chosen under the lock and done outside it: the controller reports back on its queue.
        let step: (@Sendable () -> Void)? = shown.withLock { shown in
            if !shown.held.isEmpty, let enter = shown.enterCode {
                let code = shown.held.removeFirst()
                return { enter(code) }
            }
            guard shown.inputHasEnded, shown.waitsForCode, !shown.codeInputEnded else { return nil }
            shown.codeInputEnded = true
            return shown.giveUp  // the command says why (`codeInputEnded`), in one line
        }
        step?()
    }

    private func redirectUnreachable(_ reason: String) {
        say(
            "authdeck: warning: \(reason). Paste the final URL here if it comes; `authdeck doctor` checks the "
                + "redirect URI.")
    }

    private func notice(_ error: SignInError) {
        if case .sessionStorageFailure = error {
            say("authdeck: \(error.message) Press Enter to retry saving, Ctrl-C to give up.")
        } else if case .rateLimited = error, let wait = secondsUntilResend() {
            say("authdeck: a new code can be sent in \(wait) s.")
        } else if case .invalidCode = error {
            let left = shown.withLock { shown in
                shown.totpPrompted ? shown.attemptsLeft.map { " (\($0) attempts left)" } ?? "" : ""
            }
            say("authdeck: \(error.message) Try again\(left).")
        } else if error.refusesCode {
            say("authdeck: \(error.message) Type the code again, or resend for a new one.")
        } else {
            say("authdeck: \(error.message)")
        }
    }

    /// While a code's resend cooldown runs, the seconds left (the machine refuses a resend as `rateLimited`).
    private func secondsUntilResend() -> Int? {
        guard let resendAvailableAt = shown.withLock({ $0.resendAvailableAt }) else { return nil }
        let left = resendAvailableAt.timeIntervalSinceNow
        return left > 0 ? Int(left.rounded(.up)) : nil
    }

    func pasted(_ verdict: CallbackVerdict) {
        if case .refused(let reason) = verdict { say("authdeck: \(reason)") }
    }

    private func finished(_ result: Result<SignInOutcome, SignInError>) {
        if case .success(let outcome) = result {
            let record = outcome.record
            if outcome.kind == .oidcTokenOnly {
                say("Got \(record.userLabel)'s OIDC token from \(record.provider); no session is stored, only its key.")
            } else {
                let verb = outcome.kind == .signup ? "Account created and signed in" : "Signed in"
                say("\(verb) with \(record.provider) as \(record.userLabel) (session \(record.key)).")
            }
        }
        shown.withLock { $0.result = result }
        done.signal()
    }

    func waitForResult() -> Result<SignInOutcome, SignInError> {
        done.wait()
        return shown.withLock { $0.result } ?? .failure(.closed)
    }
}
