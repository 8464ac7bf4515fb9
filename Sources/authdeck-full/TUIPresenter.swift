import AuthClient
import AuthCore
import Synchronization
import TerminalUI

/// Hands one flow's controller reports to the event loop, tagged with the flow, so that the reports of a flow the
/// user already left are told apart from the current one's. Called on the controller's queue: it only posts.
final class TUIPresenter: SignInPresenter, Sendable {
    private let flow: Int
    private let inbox: TUIInbox
    private let enrolmentShown = Mutex(false)
    private let seedOffered = Mutex(false)
    /// Whether a test-account TOTP seed is stored for a user a backend names.
    private let hasTestSeed: @Sendable (String?) -> Bool

    init(flow: Int, inbox: TUIInbox, hasTestSeed: @escaping @Sendable (String?) -> Bool = { _ in false }) {
        self.flow = flow
        self.inbox = inbox
        self.hasTestSeed = hasTestSeed
    }

    private func post(_ event: SignInEvent) {
        inbox.post(.signIn(flow: flow, event))
    }

    func attemptBegan(_ attempt: Attempt, prompt: AttemptPrompt, receivers: [String]) {
        let shown: SignInPrompt
        switch prompt {
        case .browser(let url):
            shown = .browser(url: url, qr: QRCode(url)?.modules)
        case .device(let authorization):
            let target = authorization.verificationURIComplete ?? authorization.verificationURI
            shown = .device(userCode: authorization.userCode, verificationURL: authorization.verificationURI,
                            qr: QRCode(target)?.modules)
        case .codeSent:
            shown = .codeSent
        }
        post(.began(attempt, shown, receivers: receivers))
    }

    func stateChanged(_ state: SignInStateMachine.State) {
        post(.stateChanged(state))
        if case .totpRequired(_, let challenge, _) = state, let link = challenge.enrolmentLink,
           !enrolmentShown.withLock({ shown in defer { shown = true }; return shown }),
           let modules = QRCode(link)?.modules {
            post(.enrolmentCode(modules))
        }
        if case .totpRequired(_, let challenge, .waiting) = state,
           !seedOffered.withLock({ offered in defer { offered = true }; return offered }),
           hasTestSeed(challenge.user) || hasTestSeed(OTPAuthAccount.account(in: challenge.enrolmentLink)) {
            post(.testAccountCodeOffered)
        }
    }

    func notice(_ error: SignInError) {
        post(.notice(error))
    }

    func redirectUnreachable(_ reason: String) {
        post(.redirectUnreachable(reason))
    }

    func callbackArrived(source: String, verdict: CallbackVerdict) {
        switch verdict {
        case .accepted: post(.callbackArrived(source: source, refusal: nil))
        case .refused(let reason): post(.callbackArrived(source: source, refusal: reason))
        }
    }

    func finished(_ result: Result<SignInOutcome, SignInError>) {
        post(.finished(result))
    }

    func replayed(_ outcome: SignInOutcome) {
        post(.replayed(outcome))
    }
}
