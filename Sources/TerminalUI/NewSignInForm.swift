/// The New sign-in screen's state: the provider buttons, the backend chooser, the session-key field, and which
/// of them has the keyboard.
public struct NewSignInForm: Equatable, Sendable {
    /// What Tab moves between.
    public enum Focus: Equatable, Sendable {
        case providers
        case backend
        case sessionKey
    }

    public var providers: [ProviderChoice]
    /// The provider button the arrows are on; Enter starts it.
    public var providerIndex: Int
    public var backends: [String]
    public var backendIndex: Int
    public var sessionKey: TextField
    public var focus: Focus
    /// Why the last Enter did not start anything (a key that breaks the key rule, or one that is taken).
    public var error: String?
    /// A taken key the user was warned about: starting again with it unchanged replaces that session.
    public var replaceKey: String?
    /// `m`: browser providers sign in with the device grant (a code typed on any device) instead of a redirect.
    public var useDevice: Bool

    public init(providers: [ProviderChoice], backends: [String], defaultBackend: String) {
        self.providers = providers
        providerIndex = 0
        self.backends = backends.isEmpty ? [defaultBackend] : backends
        backendIndex = self.backends.firstIndex(of: defaultBackend) ?? 0
        sessionKey = TextField(placeholder: "made up from provider and user", maxLength: 128)
        focus = .providers
        error = nil
        replaceKey = nil
        useDevice = false
    }

    public var backend: String { backends[backendIndex] }
    public var provider: ProviderChoice { providers[providerIndex] }
}
