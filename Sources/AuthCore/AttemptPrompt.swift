/// What the user must act on once an attempt has begun.
public enum AttemptPrompt: Equatable, Sendable {
    /// Open this URL in a browser (or paste the final redirect back).
    case browser(url: String)
    /// Approve on another device: go to the URL and enter the code.
    case device(DeviceAuthorization)
    /// A one-time code was sent to the contact.
    case codeSent(otpID: String)
    /// CIBA: the provider asks the user on a device of theirs; the binding message shows on both sides.
    case backchannel(BackchannelAuthorization)
    /// No one approves (client credentials, token exchange): the token endpoint is asked at once; `grant` names
    /// the grant type sent.
    case tokenRequest(grant: String)
    /// A sign-in link was sent to `contact` (Portal's magic link); the redirect it leads to, opened in a browser or
    /// pasted, comes back as a browser sign-in's does.
    case linkSent(contact: Contact)

    /// Whether the attempt waits for a redirect to its receivers.
    public var waitsForRedirect: Bool {
        switch self {
        case .browser, .linkSent: return true
        case .device, .codeSent, .backchannel, .tokenRequest: return false
        }
    }
}
