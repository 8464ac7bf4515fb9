import AuthClient
import AuthCore
import TerminalUI

extension SignInDetail {
    /// What the TUI shows beside a controller's report that TerminalUI cannot work out itself: the QR codes of the
    /// prompt's URL and of a TOTP enrolment link (AuthClient encodes them), and whether a stored test-account seed
    /// can answer a TOTP prompt (the store knows). Posted just before the report, so its frame has them.
    static func accompanying(_ progress: SignInProgress, hasTestSeed: (TOTPChallenge) -> Bool) -> [SignInDetail] {
        switch progress {
        case .began(_, .browser(let url), _):
            return QRCode(url).map { [.promptCode($0.modules)] } ?? []
        case .began(_, .device(let authorization), _):
            let target = authorization.verificationURIComplete ?? authorization.verificationURI
            return QRCode(target).map { [.promptCode($0.modules)] } ?? []
        case .stateChanged(.totpRequired(_, let challenge, .waiting)):
            var details: [SignInDetail] = []
            if let link = challenge.enrolmentLink, let code = QRCode(link) {
                details.append(.enrolmentCode(code.modules))
            }
            if hasTestSeed(challenge) {
                details.append(.testAccountCodeOffered)
            }
            return details
        default:
            return []
        }
    }
}
