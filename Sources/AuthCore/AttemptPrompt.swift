/// What the user must act on once an attempt has begun.
public enum AttemptPrompt: Equatable, Sendable {
    /// Open this URL in a browser (or paste the final redirect back).
    case browser(url: String)
    /// Approve on another device: go to the URL and enter the code.
    case device(DeviceAuthorization)
    /// A one-time code was sent to the contact.
    case codeSent(otpID: String)
}
