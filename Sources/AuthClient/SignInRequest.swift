import AuthCore
import Foundation

/// A backend's answer to an exchange or verification.
public enum BackendAnswer: Equatable, Sendable {
    case issued(IssuedSession)
    case totpRequired(TOTPChallenge)
    /// Identity is proven, but the contact must be verified with the code just sent (a new account).
    case codeRequired(contact: Contact, format: OTPCodeFormat, otpID: String)
}

/// What the user asked for: provider, backend, and the options of `authdeck login`.
public struct SignInRequest: Equatable, Sendable {
    public var provider: Provider
    public var backendName: String
    public var sessionKey: String?
    public var replace: Bool
    public var scopes: [String]?
    public var contact: Contact?
    public var useDevice: Bool
    public var timeout: TimeInterval

    public init(
        provider: Provider, backendName: String, sessionKey: String? = nil, replace: Bool = false,
        scopes: [String]? = nil, contact: Contact? = nil, useDevice: Bool = false, timeout: TimeInterval = 300
    ) {
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
