import AuthCore
import Foundation

/// One sign-in's conversation with whoever issues the session. An instance serves one attempt, so it may keep
/// what must not leave it (a session private key) between calls. Calls block; the controller runs them off its
/// event queue.
public protocol SignInBackend: AnyObject, Sendable {
    /// Whether the attempt waits for a browser redirect, so the loopback and scheme receivers must run.
    var waitsForRedirect: Bool { get }
    /// The redirect URI registered with the provider, when not the loopback receiver's own: a loopback one with a
    /// port decides where the receiver listens.
    var registeredRedirectURI: String? { get }
    /// The method the attempt will wait with, given the loopback redirect URI the receivers offer.
    func method(loopbackRedirectURI: String?) throws(SignInError) -> SignInMethod
    /// Draws the attempt's random values and builds it.
    func makeAttempt(id: AttemptID, method: SignInMethod, deadline: Date) throws(SignInError) -> Attempt
    func begin(_ attempt: Attempt) throws(SignInError) -> AttemptPrompt
    func exchange(_ attempt: Attempt, _ grant: Grant) throws(SignInError) -> BackendAnswer
    /// One device-grant poll: nil while pending. `interval` grows on `slow_down`.
    func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer?
    func verifyCode(_ attempt: Attempt, otpID: String, code: String) throws(SignInError) -> BackendAnswer
    func verifyTOTP(_ attempt: Attempt, userJwt: String, code: String) throws(SignInError) -> BackendAnswer
    /// Sends the code again; returns the (possibly new) otpID.
    func resendCode(_ attempt: Attempt) throws(SignInError) -> String
    /// Best effort: revokes a session this attempt issued but will not store (the user cancelled meanwhile).
    func revoke(_ issued: IssuedSession)
    /// The redirect's parameters as the callback checks read them (a JWT-secured response verified and unpacked);
    /// runs on the receiver's thread, before the state machine sees the redirect. A throw ends the attempt.
    func responseParameters(_ callback: Callback) throws(SignInError) -> Callback
    /// What to tell the user as the attempt begins (`SignInProgress.note`); `randomPort`: the loopback receiver
    /// took a free port for this attempt (no `listen`), so a loopback redirect URI changes on every sign-in.
    func notes(for attempt: Attempt, randomPort: Bool) -> [String]
}

extension SignInBackend {
    public var registeredRedirectURI: String? { nil }

    public func pollDevice(_ attempt: Attempt, interval: inout Int) throws(SignInError) -> BackendAnswer? {
        throw .authMethodUnavailable(method: "device")
    }

    public func verifyCode(_ attempt: Attempt, otpID: String, code: String) throws(SignInError) -> BackendAnswer {
        throw .authMethodUnavailable(method: "one-time code")
    }

    public func verifyTOTP(_ attempt: Attempt, userJwt: String, code: String) throws(SignInError) -> BackendAnswer {
        throw .authMethodUnavailable(method: "TOTP")
    }

    public func resendCode(_ attempt: Attempt) throws(SignInError) -> String {
        throw .authMethodUnavailable(method: "one-time code")
    }

    /// Backends whose contract has no revocation (the auth proxies) cannot take a session back.
    public func revoke(_ issued: IssuedSession) {}

    public func responseParameters(_ callback: Callback) throws(SignInError) -> Callback { callback }

    public func notes(for attempt: Attempt, randomPort: Bool) -> [String] { [] }
}
