import AuthCore

/// What the New sign-in screen asks the event loop to start.
public struct SignInChoice: Equatable, Sendable {
    public var provider: Provider
    public var backend: String
    /// The key to store the session under; nil lets authdeck make one up.
    public var sessionKey: String?
    /// Where the one-time code goes (email and SMS only).
    public var contact: Contact?
    /// Whether the session under `sessionKey` may be replaced (the user confirmed it).
    public var replace: Bool
    /// How tokens are asked for: the browser's redirect, the device grant (a code to type on any device), CIBA or
    /// client credentials.
    public var method: GrantChoice
    /// The device grant instead of a browser redirect.
    public var useDevice: Bool { method == .device }
    /// OIDC: the issuer that replaces config.json's (every endpoint from its discovery), as `--issuer`.
    public var issuer: String?
    /// OIDC: the client id that replaces config.json's, as `--client-id`.
    public var clientID: String?
    /// OIDC: the protocol choices New sign-in showed (config.json's, maybe changed for this sign-in); nil leaves
    /// every one to config.json.
    public var options: SignInOptions?

    public init(
        provider: Provider, backend: String, sessionKey: String? = nil,
        contact: Contact? = nil, replace: Bool = false, useDevice: Bool = false, method: GrantChoice? = nil
    ) {
        self.provider = provider
        self.backend = backend
        self.sessionKey = sessionKey
        self.contact = contact
        self.replace = replace
        self.method = method ?? (useDevice ? .device : .browser)
    }

    /// Whether this sign-in goes by a one-time code rather than a browser.
    public var usesCode: Bool { provider.sendsCode }

    /// What the sign-in screens call the provider (`Google via sandbox`).
    public var title: String { provider.title }
}
