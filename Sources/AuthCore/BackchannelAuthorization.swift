import Foundation

/// A CIBA backchannel authentication request the provider accepted (OpenID CIBA Core 1.0 section 7.3): the
/// `auth_req_id` polled for at the token endpoint, until when, how often, and the binding message the user sees on
/// their device.
public struct BackchannelAuthorization: Equatable, Sendable {
    public let authRequestID: String
    public let expiresIn: Int
    public var interval: Int
    public let bindingMessage: String?
    /// Whom the request was sent to (`login_hint` as given).
    public let loginHint: String

    public init(authRequestID: String, expiresIn: Int, interval: Int, bindingMessage: String?, loginHint: String) {
        self.authRequestID = authRequestID
        self.expiresIn = expiresIn
        self.interval = interval
        self.bindingMessage = bindingMessage
        self.loginHint = loginHint
    }
}
