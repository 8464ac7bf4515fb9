import AuthCore
import Foundation

/// One sign-in as the screens show it: exactly the controller's machine state, plus what only the screen
/// needs (the prompt, the fields being typed, the trace).
public struct SignInFlow: Equatable, Sendable {
    /// Where the flow stands, as the controller last reported it.
    public enum Phase: Equatable, Sendable {
        /// The start was asked for; the controller has not reported the attempt yet.
        case starting
        /// The machine's state while the attempt runs (awaiting callback, TOTP required, or their progress).
        case running(SignInStateMachine.State)
        /// The attempt ended: stored and signed in, or failed.
        case finished(Result<SignInOutcome, SignInError>)
    }

    /// Which part of the code-entry screen has the keyboard.
    public enum CodeFocus: Equatable, Sendable {
        case code
        case resend
    }

    /// Tells this flow's controller events apart from a cancelled one's late reports.
    public let id: Int
    public let choice: SignInChoice
    public var phase: Phase
    public var prompt: AttemptPrompt?
    /// The QR code of the prompt's URL, encoded by the event loop.
    public var promptQR: [[Bool]]?
    public var receivers: [String]
    /// The last refusal of an attempt that goes on (a forged callback, a wrong code), in the error colour.
    public var notice: String?
    /// The latest callback a receiver got and its verdict.
    public var lastCallback: String?
    public var pasteField: TextField
    public var codeField: DigitField
    public var codeFocus: CodeFocus
    public var enrolmentQR: [[Bool]]?
    /// A stored test-account seed can answer the TOTP prompt (used only when the user presses `u`).
    public var offersTestAccountCode = false
    /// Where `e` on the Trace screen wrote the trace, or why it could not.
    public var traceExportNote: String?
    public let startedAt: Date
    public var trace: [TraceLine]
    /// When the last resend's new code went out (the screen says so, with the time).
    public var codeResentAt: Date?
    /// How many more tries the backend allows for the code on screen, when its refusal said ("invalid code (4
    /// attempts left)"); nil until a refusal names a number, and again after a new code is sent.
    public var codeAttemptsLeft: Int?
    /// Why the browser cannot come back to any receiver (a redirect URI on another host, port or scheme), told on
    /// the waiting screen as soon as the attempt began.
    public var redirectWarning: String?
    /// What the user must know to finish this sign-in (which flow runs, which redirect URI must be registered),
    /// told on the waiting screen as the attempt began.
    public var notes: [String] = []
    /// The waiting screen leaves the QR code out (`v`), so the URL gets whole rows and a mouse copy takes it whole.
    public var hidesQRCode = false
    /// The protocol features this sign-in uses (`PAR`, `DPoP`, `private_key_jwt`…), named on the waiting screen.
    public var protections: [String] = []
    /// The New sign-in form this flow was started from: a start its settings refused goes back to it, unchanged.
    public var form: NewSignInForm?

    public init(id: Int, choice: SignInChoice, startedAt: Date) {
        self.id = id
        self.choice = choice
        self.startedAt = startedAt
        phase = .starting
        prompt = nil
        receivers = []
        notice = nil
        lastCallback = nil
        pasteField = TextField(placeholder: "press p, or paste the final redirect URL", maxLength: 16_384)
        codeField = DigitField(length: 6)
        codeFocus = .code
        enrolmentQR = nil
        trace = [
            TraceLine(
                time: startedAt, kind: .state,
                text: "start: \(choice.provider) via \(choice.backend)")
        ]
    }

    /// The attempt in flight, when the controller reported one.
    public var attempt: Attempt? {
        guard case .running(let state) = phase else { return nil }
        switch state {
        case .awaitingCallback(let attempt, _), .totpRequired(let attempt, _, _): return attempt
        case .idle, .authenticated: return nil
        }
    }

    /// Whether the attempt still runs (Esc cancels it) rather than having ended.
    public var isActive: Bool {
        switch phase {
        case .starting: return true
        case .running(let state):
            switch state {
            case .awaitingCallback, .totpRequired: return true
            case .idle, .authenticated: return false
            }
        case .finished: return false
        }
    }

    /// A code went to the controller: the flow shows the machine as it will be, checking the code, at once (a second
    /// Enter sends nothing); the controller's report of that state then changes nothing.
    public mutating func codeSubmitted(now: Date) {
        switch phase {
        case .running(.awaitingCallback(let attempt, .waiting)):
            apply(.stateChanged(.awaitingCallback(attempt, .verifying)), now: now)
        case .running(.totpRequired(let attempt, let challenge, .waiting)):
            apply(.stateChanged(.totpRequired(attempt, challenge, .verifying)), now: now)
        default:
            break
        }
    }

    /// Seconds left before the attempt's deadline.
    public func secondsLeft(now: Date) -> Int? {
        attempt.map { max(0, Int($0.deadline.timeIntervalSince(now).rounded(.up))) }
    }
}
