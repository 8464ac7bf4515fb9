import AuthCore
import Foundation

/// Picks the backend object for one sign-in from the configured backend's type, for the command line and the TUI
/// alike: `direct` (and the sandbox's social logins) run `DirectSignIn`; `turnkey` (and the sandbox's email and SMS
/// codes, through its proxy) run `TurnkeySignIn`; `portal` runs `PortalSignIn`.
public enum SignInBackendFactory {
    /// The auth proxy the sandbox answers on when its configuration names none.
    static let sandboxProxyPath = "/turnkey"
    static let sandboxConfigID = "sandbox-config"
    /// The WebAuthn relying party the sandbox answers on, for Para's passkey step.
    static let sandboxWebAuthnPath = "/webauthn"

    /// - Parameters:
    ///   - request: provider, backend name and options; email and SMS need `contact`, validated by the caller.
    ///   - transport: every request of the attempt goes through it (a `TracingTransport` records them).
    ///   - metadata: discovery and JWKS for the provider leg.
    ///   - overrides: `--issuer`, `--client-id`, `--client-secret-file`, `--scope`.
    public static func make(
        request: SignInRequest, configuration: Configuration, catalog: ProviderCatalog,
        transport: HTTPTransport, metadata: ProviderMetadataCache,
        overrides: ProviderOverrides = ProviderOverrides(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(SignInError) -> SignInBackend {
        let name = request.backendName
        guard let backend = configuration.backend(named: name) else {
            throw .unavailable(reason: "no backend named '\(name)' in config.json")
        }
        let kind = request.provider
        let sendsCode = kind.sendsCode
        if kind.needsContact, request.contact == nil { throw .invalidContact }
        if kind == .emailLink, backend.type != .portal { throw .authMethodUnavailable(method: kind.title) }
        if request.passkey != nil, backend.type != .sandbox || sendsCode || catalog[kind.name]?.idToken != true {
            // Para's branch needs the provider's ID token to tell a known account from a new one.
            throw .unavailable(
                reason: "--passkey is Para's step after a social sign-in (google, apple) on a sandbox backend")
        }
        var transport = transport
        var metadata = metadata
        if backend.type == .sandbox {
            // The sandbox signs anyone in: it is only ever reached on this machine.
            for url in [backend.baseURL, backend.proxyBaseURL, backend.portalBaseURL].compactMap({ $0 }) {
                guard let host = URLComponents(string: url)?.host, URLPolicy.isLoopbackHost(host) else {
                    throw .unavailable(
                        reason: "backend '\(name)' is a sandbox, but \(URLPolicy.redacted(url)) is not "
                            + "on this machine (127.0.0.1)")
                }
            }
        } else if backend.usesSandbox != true {
            transport = SandboxGuardTransport(inner: transport, backend: name)
            metadata = metadata.using(transport)
        }
        // Turnkey's completeOAuth split in two belongs to the Auth Proxy's social sign-in only.
        if request.oidcStep != nil, backend.type != .turnkey || sendsCode {
            throw .authMethodUnavailable(method: "an OIDC token step through backend '\(name)' (a turnkey one only)")
        }
        switch backend.type {
        case .direct:
            if let code = kind.codeTitle { throw .authMethodUnavailable(method: code) }
            return try direct(request, configuration, catalog, transport, metadata, overrides, clock)
        case .sandbox:
            let proxy = backend.proxyBaseURL ?? backend.baseURL.map { $0.trimmingSuffix("/") + sandboxProxyPath }
            let base = try required(proxy, "baseURL", backend: name)
            let client = TurnkeyProxyClient(
                baseURL: base, configID: backend.configID ?? sandboxConfigID,
                transport: transport, totpExtension: backend.totpExtension ?? false,
                otpSignerPublicKey: backend.otpSignerPublicKey)
            guard sendsCode else {
                // Social logins run as direct ones, then Para's branch: a new identity verifies its email first.
                let inner = try direct(request, configuration, catalog, transport, metadata, overrides, clock)
                let root = backend.baseURL ?? base.trimmingSuffix(sandboxProxyPath)
                let passkey = request.passkey.map { kind in
                    PasskeyStep(
                        baseURL: root.trimmingSuffix("/") + sandboxWebAuthnPath, transport: transport,
                        authenticator: kind, known: request.passkeys)
                }
                return SandboxAccountSignIn(inner: inner, proxy: client, passkey: passkey)
            }
            return TurnkeySignIn(request: request, client: client, clock: clock)
        case .turnkey:
            let base = try required(backend.baseURL, "baseURL", backend: name)
            let configID = try required(backend.configID, "configID", backend: name)
            let client = TurnkeyProxyClient(
                baseURL: base, configID: configID, transport: transport,
                totpExtension: backend.totpExtension ?? false, otpSignerPublicKey: backend.otpSignerPublicKey)
            if sendsCode { return TurnkeySignIn(request: request, client: client, clock: clock) }
            guard kind.isOfferedByAuthProxy else {
                throw .authMethodUnavailable(method: "\(request.provider) through the turnkey backend")
            }
            // The provider leg runs as a direct sign-in would (endpoints, client, redirect), so the resolver sees
            // this backend as a direct one. As in the SDK, a client id in config.json (or --client-id) wins; the one
            // the proxy names in wallet_kit_config fills in when there is none.
            var asDirect = configuration
            asDirect.backends?[name] = BackendConfiguration(type: .direct, providers: backend.providers)
            let resolver = ProviderResolver(
                catalog: catalog, configuration: asDirect, metadata: metadata,
                clock: clock)
            let configuredClientID = asDirect.provider(request.provider.name, backend: name).clientID
            let leg: TurnkeySignIn.ProviderLeg = { (proxyClientID) throws(SignInError) -> ResolvedProvider in
                var chosen = overrides
                if chosen.clientID == nil, configuredClientID == nil {
                    chosen.clientID = proxyClientID
                }
                return try resolver.resolve(provider: request.provider.name, backend: name, overrides: chosen)
            }
            // As the SDK does, Google and Apple go through the proxy's hosted pages unless a client secret of one's own
            // is configured (the code exchange needs it) or oauthFlow says otherwise.
            let settings = asDirect.provider(request.provider.name, backend: name)
            let hasSecret = [
                overrides.clientSecretFile, overrides.privateKeyFile, overrides.clientCertificateFile,
                settings.clientSecretFile, settings.privateKeyFile, settings.clientCertificateFile,
            ].contains { $0 != nil }
            let flow = backend.oauthFlow ?? (hasSecret ? "code" : "hosted")
            let reason =
                backend.oauthFlow != nil
                ? "set in config.json"
                : hasSecret ? "a client secret is configured" : "no client secret is configured"
            let hosted: String?
            switch flow {
            case "code": hosted = nil
            case "hosted": hosted = backend.oauthOriginURL ?? TurnkeySignIn.defaultOAuthOrigin
            default:
                throw .unavailable(reason: "backend '\(name)': oauthFlow must be code or hosted")
            }
            return TurnkeySignIn(
                request: request, client: client, provider: leg, metadata: metadata,
                hostedOrigin: hosted, oauthFlowReason: reason, secondaryClientIDs: settings.secondaryClientIDs ?? [],
                additionalState: try TurnkeySignIn.checkedAdditionalState(
                    settings.additionalState, provider: request.provider.name), clock: clock)
        case .portal:
            if let code = kind.codeTitle { throw .authMethodUnavailable(method: code) }
            let base = try required(backend.baseURL, "baseURL", backend: name)
            let environmentID = try required(backend.environmentID, "environmentID", backend: name)
            let client = PortalClient(baseURL: base, environmentID: environmentID, transport: transport)
            var link: PortalSignIn.MagicLink?
            if let sender = backend.magicLinkFromEmail, let template = backend.magicLinkTemplateID {
                link = PortalSignIn.MagicLink(fromEmail: sender, templateID: template)
            }
            return PortalSignIn(
                request: request, client: client, redirectURL: backend.redirectURL, magicLink: link, clock: clock)
        }
    }

    private static func direct(
        _ request: SignInRequest, _ configuration: Configuration, _ catalog: ProviderCatalog,
        _ transport: HTTPTransport, _ metadata: ProviderMetadataCache,
        _ overrides: ProviderOverrides,
        _ clock: @escaping @Sendable () -> Date
    ) throws(SignInError) -> SignInBackend {
        var transport = transport
        var metadata = metadata
        // config.json's headers go to its own provider only: `--issuer` names another, which gets none.
        if overrides.issuer == nil {
            let settings = configuration.provider(request.provider.name, backend: request.backendName)
            let headers = try ProviderResolver.authorizationOptions(settings, provider: request.provider.name)
                .requestHeaders
            if !headers.isEmpty {
                transport = ProviderHeadersTransport(inner: transport, headers: headers)
                metadata = metadata.using(transport)
            }
        }
        let resolver = ProviderResolver(
            catalog: catalog, configuration: configuration, metadata: metadata,
            clock: clock)
        let resolved = try resolver.resolve(
            provider: request.provider.name, backend: request.backendName,
            overrides: overrides)
        return DirectSignIn(
            provider: resolved, request: request, transport: transport, metadata: metadata,
            clock: clock)
    }

    private static func required(_ value: String?, _ field: String, backend: String) throws(SignInError) -> String {
        guard let value, !value.isEmpty else {
            throw .unavailable(reason: "backend '\(backend)' has no \(field) in config.json")
        }
        return value
    }
}
