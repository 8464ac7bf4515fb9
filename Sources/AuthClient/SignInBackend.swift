import AuthCore
import Foundation

/// What the user must act on once an attempt has begun.
public enum AttemptPrompt: Equatable, Sendable {
    /// Open this URL in a browser (or paste the final redirect back).
    case browser(url: String)
    /// Approve on another device: go to the URL and enter the code.
    case device(DeviceAuthorization)
    /// A one-time code was sent to the contact.
    case codeSent(otpID: String)
}

/// A backend's answer to an exchange or verification.
public enum BackendAnswer: Equatable, Sendable {
    case issued(IssuedSession)
    case totpRequired(TOTPChallenge)
}

/// What the user asked for: provider, backend, and the options of `authdeck login`.
public struct SignInRequest: Equatable, Sendable {
    public var provider: String
    public var backendName: String
    public var sessionKey: String?
    public var replace: Bool
    public var scopes: [String]?
    public var contact: Contact?
    public var useDevice: Bool
    public var timeout: TimeInterval

    public init(provider: String, backendName: String, sessionKey: String? = nil, replace: Bool = false,
                scopes: [String]? = nil, contact: Contact? = nil, useDevice: Bool = false, timeout: TimeInterval = 300) {
        self.provider = provider
        self.backendName = backendName
        self.sessionKey = sessionKey
        self.replace = replace
        self.scopes = scopes
        self.contact = contact
        self.useDevice = useDevice
        self.timeout = timeout
    }
}

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
}

/// Session keys authdeck makes up when the user names none: provider and user, in characters safe for a shell.
public enum SessionKeyName {
    public static func generated(provider: String, user: String) -> String {
        let allowed = user.lowercased().unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-@".unicodeScalars.contains(scalar))
                ? Character(scalar) : "-"
        }
        let cleaned = String(allowed.prefix(48))
        return provider + "-" + (cleaned.isEmpty ? "user" : cleaned)
    }
}
