/// What the user must act on once an attempt has begun, with its QR code already encoded by the event loop
/// (the encoder lives outside TerminalUI).
public enum SignInPrompt: Equatable, Sendable {
    /// Open this URL in a browser, or paste the final redirect back.
    case browser(url: String, qr: [[Bool]]?)
    /// Approve on another device: go to the URL and type the code.
    case device(userCode: String, verificationURL: String, qr: [[Bool]]?)
    /// A one-time code was sent to the contact.
    case codeSent
}
