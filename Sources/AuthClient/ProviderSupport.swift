import AuthCore

/// Which providers a backend cannot sign in with, and why, known from config.json alone (no request): the New
/// sign-in screen greys those buttons with the reason instead of letting a start fail with "check config.json".
/// The rules are the ones `SignInBackendFactory.make` enforces.
public enum ProviderSupport {
    /// Why `provider` cannot sign in through the backend named `name`, or nil when it may (the sign-in itself can
    /// still be refused, by the provider's settings or the server).
    public static func refusal(provider: Provider, backend name: String, in configuration: Configuration) -> String? {
        guard let backend = configuration.backend(named: name) else {
            return "no backend named '\(name)' in config.json"
        }
        let sendsCode = provider.sendsCode
        let what = provider.codeTitle.map { $0 + "s" } ?? provider.name
        if provider == .emailLink, backend.type != .portal { return "email links are Portal's: use a portal backend" }
        switch backend.type {
        case .sandbox:
            return nil
        case .direct:
            if sendsCode { return "\(what) need a turnkey or sandbox backend" }
            // OIDC takes an issuer and client id typed on the form; a preset needs config.json's client.
            let clientID = configuration.provider(provider.name, backend: name).clientID ?? ""
            return provider != .oidc && clientID.isEmpty
                ? "no client id in config.json (providers.\(provider.name).clientID)" : nil
        case .portal:
            return sendsCode ? "Portal signs in with social providers and email links only, not \(what)" : nil
        case .turnkey:
            if provider.isOfferedByAuthProxy { return nil }
            return "the auth proxy signs in with email, SMS, Google, Apple, Discord, X and OIDC issuers only"
        }
    }
}
