import AuthCore

/// What the event loop adds to a sign-in on screen beside its controller's `SignInProgress`: the QR codes it
/// encoded (the encoder lives outside TerminalUI), the protocol trace's steps, where the trace was written, and
/// whether a stored test-account seed can answer the TOTP prompt.
public enum SignInDetail: Equatable, Sendable {
    /// The QR code of the URL the prompt names (the authorize URL, or the device verification page).
    case promptCode([[Bool]])
    /// The TOTP enrolment link as QR modules.
    case enrolmentCode([[Bool]])
    /// A protocol step of the flow trace, already redacted (request line, status, timing, claims); `details` are
    /// the step's redacted parameters, bodies and decoded ID-token claims, shown when the step is expanded.
    case protocolStep(
        kind: String, summary: String, elapsedMilliseconds: Double,
        details: [String: JSONValue] = [:])
    /// The trace was written (or could not be): a line for the Trace screen.
    case traceExported(String)
    /// The protocol features that apply to this sign-in, as the provider's settings resolved (`PAR`, `DPoP`,
    /// `private_key_jwt`…): the waiting screen names them.
    case protections([String])
    /// A test-account TOTP seed is stored for the user the backend named: the screen offers its code.
    case testAccountCodeOffered
}
