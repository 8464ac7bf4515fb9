import AuthCore
import AuthCrypto
import Foundation

/// What `authdeck login` options can set over the configuration.
public struct ProviderOverrides: Equatable, Sendable {
    public var issuer: String?
    public var clientID: String?
    public var clientSecretFile: String?
    public var scopes: [String]?
    /// `--dpop`: DPoP-bound tokens for this sign-in whatever config.json says.
    public var dpop: Bool?
    /// `--par`: push the authorization request first.
    public var pushedAuthorizationRequests: Bool?
    /// `--request-object`: `signed`; `none` turns config.json's `signed` off for one sign-in (New sign-in's choice).
    public var requestObject: String?
    /// New sign-in's response mode for one sign-in, over config.json's `responseMode`.
    public var responseMode: String?
    /// `--auth-method`, `--private-key-file`, `--key-id`: config.json's `tokenEndpointAuthMethod`, `privateKeyFile`
    /// and `keyID` for one sign-in.
    public var authMethod: String?
    public var privateKeyFile: String?
    public var keyID: String?
    /// `--client-certificate`, `--client-certificate-key`: config.json's `clientCertificateFile` and
    /// `clientCertificateKeyFile` for one sign-in.
    public var clientCertificateFile: String?
    public var clientCertificateKeyFile: String?
    /// `--prompt`, `--login-hint`, `--max-age`, `--acr-values`, `--claims`, `--resource`, `--authorization-details`
    /// and `--param`: over config.json's request shaping for one sign-in.
    public var authorization: AuthorizationOptions

    /// Every field is given here or left nil (config.json's then applies).
    public init(
        issuer: String? = nil, clientID: String? = nil, clientSecretFile: String? = nil, scopes: [String]? = nil,
        dpop: Bool? = nil, pushedAuthorizationRequests: Bool? = nil, requestObject: String? = nil,
        responseMode: String? = nil, authMethod: String? = nil, privateKeyFile: String? = nil, keyID: String? = nil,
        clientCertificateFile: String? = nil, clientCertificateKeyFile: String? = nil,
        authorization: AuthorizationOptions = AuthorizationOptions()
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecretFile = clientSecretFile
        self.scopes = scopes
        self.dpop = dpop
        self.pushedAuthorizationRequests = pushedAuthorizationRequests
        self.requestObject = requestObject
        self.responseMode = responseMode
        self.authMethod = authMethod
        self.privateKeyFile = privateKeyFile
        self.keyID = keyID
        self.clientCertificateFile = clientCertificateFile
        self.clientCertificateKeyFile = clientCertificateKeyFile
        self.authorization = authorization
    }
}

/// Turns a provider name and a backend name into everything a direct sign-in needs: preset, then config.json
/// (top level, then the backend's own), then command-line options; discovery fills in what is still missing.
public struct ProviderResolver: Sendable {
    public let catalog: ProviderCatalog
    public let configuration: Configuration
    public let metadata: ProviderMetadataCache
    public let clock: @Sendable () -> Date

    public init(
        catalog: ProviderCatalog, configuration: Configuration, metadata: ProviderMetadataCache,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.catalog = catalog
        self.configuration = configuration
        self.metadata = metadata
        self.clock = clock
    }

    /// The sandbox's profile for a provider name (`oidc` is its `generic` profile).
    public static func sandboxProfile(_ provider: String) -> String {
        provider == "oidc" ? "generic" : provider
    }

    public func resolve(
        provider name: String, backend backendName: String,
        overrides: ProviderOverrides = ProviderOverrides()
    ) throws(SignInError) -> ResolvedProvider {
        guard let preset = catalog[name] else {
            let known = catalog.providers.map(\.name).joined(separator: ", ")
            throw .unavailable(reason: "unknown provider '\(name)' (\(known))")
        }
        guard let backend = configuration.backend(named: backendName) else {
            throw .unavailable(reason: "no backend named '\(backendName)' in config.json")
        }
        var settings = configuration.provider(name, backend: backendName)
        if backend.type == .sandbox {
            guard let base = backend.baseURL else {
                throw .unavailable(reason: "backend '\(backendName)' has no baseURL")
            }
            let sandboxDefaults = ProviderConfiguration(
                clientID: "authdeck-\(Self.sandboxProfile(name))",
                issuer: base.trimmingSuffix("/") + "/oidc/" + Self.sandboxProfile(name))
            settings = sandboxDefaults.overridden(by: settings)
        } else if backend.type != .direct {
            throw .authMethodUnavailable(method: "\(preset.title) through the \(backend.type.rawValue) backend")
        }
        if let issuer = overrides.issuer {
            // config.json's client (id, secret, key, method, redirect) is registered with the issuer config.json
            // names; another issuer gets only the client given with it, or the secret would go to that issuer.
            guard let clientID = overrides.clientID, !clientID.isEmpty else {
                throw .unavailable(reason: "--issuer needs --client-id: config.json's client is for its own issuer")
            }
            settings = ProviderConfiguration(
                clientID: clientID, clientSecretFile: overrides.clientSecretFile, issuer: issuer,
                scopes: overrides.scopes ?? settings.scopes, keyID: overrides.keyID,
                privateKeyFile: overrides.privateKeyFile, tokenEndpointAuthMethod: overrides.authMethod,
                caFile: settings.caFile)
            settings.clientCertificateFile = overrides.clientCertificateFile
            settings.clientCertificateKeyFile = overrides.clientCertificateKeyFile
        } else {
            var given = ProviderConfiguration(
                clientID: overrides.clientID, clientSecretFile: overrides.clientSecretFile,
                scopes: overrides.scopes, keyID: overrides.keyID, privateKeyFile: overrides.privateKeyFile,
                tokenEndpointAuthMethod: overrides.authMethod)
            given.clientCertificateFile = overrides.clientCertificateFile
            given.clientCertificateKeyFile = overrides.clientCertificateKeyFile
            settings = settings.overridden(by: given)
        }

        guard let clientID = settings.clientID, !clientID.isEmpty else {
            throw .unavailable(
                reason: "no client id for \(preset.title): pass --client-id or set "
                    + "providers.\(name).clientID in config.json")
        }
        // `--issuer` names the provider: its discovery gives every endpoint (config.json's were dropped above: they
        // may sit on another host, which would then receive the code). Presets' endpoints are not used either.
        let issuerGiven = overrides.issuer != nil
        var endpoints = try endpoints(
            preset: preset, settings: settings, sandbox: backend.type == .sandbox,
            discoverOnly: issuerGiven)
        let authentication = try authentication(
            preset: preset, settings: settings, clientID: clientID,
            endpoints: endpoints)
        if authentication.certificate != nil {
            // RFC 8705 5: a client presenting its certificate uses the provider's mTLS aliases, except where
            // config.json names an endpoint itself.
            let named: [(String, String?)] = [
                ("token_endpoint", settings.tokenEndpoint), ("revocation_endpoint", settings.revocationEndpoint),
                ("userinfo_endpoint", settings.userEndpoint),
                ("device_authorization_endpoint", settings.deviceAuthorizationEndpoint),
            ]
            endpoints = endpoints.usingMTLSAliases(keep: Set(named.filter { $0.1 != nil }.map(\.0)))
        }
        var resolved = ResolvedProvider(
            preset: preset, clientID: clientID, authentication: authentication,
            scopes: settings.scopes ?? preset.scopes, endpoints: endpoints,
            registeredRedirectURI: settings.redirectURI, backendName: backendName)
        resolved.clientSecretFile = settings.clientSecretFile
        resolved.dpop = overrides.dpop ?? settings.dpop ?? false
        resolved.revocationAuthentication = try revocationAuthentication(
            authentication, preset: preset, settings: settings, endpoints: endpoints)
        resolved.shape = try shape(settings: settings, overrides: overrides, endpoints: endpoints)
        resolved.authorizationOptions = try Self.authorizationOptions(settings, provider: name)
            .overridden(by: overrides.authorization)
        return resolved
    }

    /// config.json's request shaping for the provider (`prompt`, `resources`, `requestHeaders`…), each field checked
    /// before anything is sent.
    public static func authorizationOptions(
        _ settings: ProviderConfiguration, provider: String
    ) throws(SignInError) -> AuthorizationOptions {
        do {
            return try settings.authorizationOptions()
        } catch {
            throw .unavailable(reason: "config.json providers.\(provider).\(error.description)")
        }
    }

    /// PAR when asked for or when discovery requires it; JAR with the client's key; the response mode. Every
    /// setting the provider cannot honour is one line here, before anything is sent.
    private func shape(
        settings: ProviderConfiguration, overrides: ProviderOverrides, endpoints: ProviderEndpoints
    ) throws(SignInError) -> AuthorizationShape {
        var shape = AuthorizationShape()
        let asked = overrides.pushedAuthorizationRequests ?? settings.pushedAuthorizationRequests ?? false
        shape.pushed = asked || endpoints.requiresPushedAuthorizationRequests == true
        if shape.pushed, endpoints.pushedAuthorizationRequest == nil {
            throw .unavailable(
                reason: "pushedAuthorizationRequests is on but \(endpoints.issuer) names no "
                    + "pushed_authorization_request_endpoint in its discovery; turn it off or drop --par")
        }
        switch overrides.requestObject ?? settings.requestObject {
        case nil, "none"?: break
        case "signed"?:
            guard let file = settings.privateKeyFile else {
                throw .unavailable(reason: "requestObject signed needs privateKeyFile (an owner-only PEM key)")
            }
            shape.requestObject = try RequestObjectSigner.load(
                file: file, keyID: settings.keyID, signingAlg: settings.signingAlg)
        case .some(let other):
            throw .unavailable(reason: "requestObject '\(OAuthErrorResponse.printable(other))' is not signed")
        }
        if let mode = overrides.responseMode ?? settings.responseMode {
            shape.responseMode = try AuthorizationShape.ResponseMode.parse(mode)
            if shape.responseMode == .jwt, endpoints.jwks == nil {
                throw .unavailable(reason: "responseMode jwt needs the provider's JWKS (jwks_uri) to check responses")
            }
        }
        return shape
    }

    private func endpoints(
        preset: ProviderPreset, settings: ProviderConfiguration, sandbox: Bool,
        discoverOnly: Bool = false
    ) throws(SignInError) -> ProviderEndpoints {
        let issuer = settings.issuer ?? preset.issuer
        var found: ProviderEndpoints?
        let usePreset = !sandbox && !discoverOnly
        let explicit = (
            settings.authorizationEndpoint ?? (usePreset ? preset.authorizationEndpoint : nil),
            settings.tokenEndpoint ?? (usePreset ? preset.tokenEndpoint : nil)
        )
        if let authorization = explicit.0, let token = explicit.1, let issuer {
            found = ProviderEndpoints(
                issuer: issuer, authorization: authorization, token: token,
                jwks: preset.jwksURI, userinfo: preset.userEndpoint,
                revocation: preset.revocationEndpoint)
        } else {
            guard let issuer else {
                throw .unavailable(reason: "no issuer for \(preset.title): pass --issuer URL")
            }
            let discovery =
                settings.issuer == nil
                ? (preset.discoveryURL ?? ProviderPreset.discoveryURL(issuer: issuer))
                : ProviderPreset.discoveryURL(issuer: issuer)
            found = try metadata.endpoints(issuer: issuer, discoveryURL: discovery, now: clock())
        }
        guard var endpoints = found else { throw .unavailable(reason: "no endpoints for \(preset.title)") }
        if let value = settings.authorizationEndpoint { endpoints.authorization = value }
        if let value = settings.tokenEndpoint { endpoints.token = value }
        if let value = settings.jwksURI { endpoints.jwks = value }
        let presetUserinfo = endpoints.userinfo == nil && !discoverOnly ? preset.userEndpoint : nil
        if let value = settings.userEndpoint ?? presetUserinfo {
            endpoints.userinfo = value
        }
        if let value = settings.revocationEndpoint { endpoints.revocation = value }
        if let value = settings.deviceAuthorizationEndpoint { endpoints.deviceAuthorization = value }
        return endpoints
    }

    /// Apple's ES256 client-secret JWT always goes in the body, as Apple takes it; any other secret is sent the way
    /// `tokenEndpointAuthMethod` or discovery says, HTTP Basic by default (RFC 6749 2.3.1).
    private func authentication(
        preset: ProviderPreset, settings: ProviderConfiguration, clientID: String,
        endpoints: ProviderEndpoints
    ) throws(SignInError) -> ClientAuthentication {
        if preset.clientSecret == "es256-jwt", let teamID = settings.teamID, let keyID = settings.keyID,
            let keyFile = settings.privateKeyFile
        {
            return .secret(
                try AppleClientSecret.make(
                    teamID: teamID, clientID: clientID, keyID: keyID,
                    privateKeyFile: keyFile, now: clock()))
        }
        let hasKey = preset.clientSecret != "es256-jwt" && settings.privateKeyFile != nil
        if (settings.clientCertificateFile == nil) != (settings.clientCertificateKeyFile == nil) {
            throw .unavailable(
                reason: "a client certificate needs both clientCertificateFile and clientCertificateKeyFile "
                    + "(--client-certificate and --client-certificate-key)")
        }
        let method = try ClientAuthMethod.choose(
            configured: settings.tokenEndpointAuthMethod,
            supported: endpoints.tokenAuthMethods,
            hasSecret: settings.clientSecretFile != nil, hasKey: hasKey,
            hasCertificate: settings.clientCertificateFile != nil, endpoint: "token endpoint")
        return try ClientAuthentication.configured(
            method, secretFile: settings.clientSecretFile, keyFile: hasKey ? settings.privateKeyFile : nil,
            keyID: settings.keyID, signingAlg: settings.signingAlg,
            audience: try ClientAssertion.audience(settings.assertionAudience, issuer: endpoints.issuer),
            signingAlgorithms: endpoints.tokenAuthSigningAlgs, certificateFile: settings.clientCertificateFile,
            certificateKeyFile: settings.clientCertificateKeyFile, now: clock())
    }

    /// The revocation endpoint takes the token endpoint's method unless its own list (RFC 8414
    /// `revocation_endpoint_auth_methods_supported`) leaves that out.
    private func revocationAuthentication(
        _ token: ClientAuthentication, preset: ProviderPreset,
        settings: ProviderConfiguration,
        endpoints: ProviderEndpoints
    ) throws(SignInError) -> ClientAuthentication {
        guard preset.clientSecret != "es256-jwt", settings.tokenEndpointAuthMethod == nil, token != .none,
            let supported = endpoints.revocationAuthMethods, !supported.isEmpty,
            !supported.contains(token.method.rawValue)
        else { return token }
        let method = try ClientAuthMethod.choose(
            configured: nil, supported: supported, hasSecret: true,
            endpoint: "revocation endpoint")
        return token.using(method)
    }

    /// Reads a client secret file: the whole file, trimmed; an empty or unreadable file is an error.
    public static func readClientSecret(_ file: String) throws(SignInError) -> String {
        guard let data = FileManager.default.contents(atPath: (file as NSString).expandingTildeInPath),
            let text = String(data: data, encoding: .utf8)
        else {
            throw .unavailable(reason: "cannot read the client secret file \(file)")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty else { throw .unavailable(reason: "the client secret file \(file) is empty") }
        return secret
    }
}

/// Apple's client secret: an ES256 JWT signed with the operator's key (.p8), valid for a few minutes.
public enum AppleClientSecret {
    public static func make(
        teamID: String, clientID: String, keyID: String, privateKeyFile: String,
        now: Date
    ) throws(SignInError) -> String {
        guard let data = FileManager.default.contents(atPath: (privateKeyFile as NSString).expandingTildeInPath),
            let pem = String(data: data, encoding: .utf8)
        else {
            throw .unavailable(reason: "cannot read the Apple key file \(privateKeyFile)")
        }
        do {
            let key = try JWK(p256: try P256PrivateKey(pemRepresentation: pem), keyID: keyID)
            let issued = Int(now.timeIntervalSince1970)
            let claims: [String: JSONValue] = [
                "iss": .string(teamID), "iat": .number(Double(issued)), "exp": .number(Double(issued + 300)),
                "aud": .string("https://appleid.apple.com"), "sub": .string(clientID),
            ]
            let payload = try JSONEncoder().encode(JSONValue.object(claims))
            return try JWS.sign(payload: Array(payload), key: key, algorithm: "ES256", type: nil)
        } catch let error as CryptoError {
            throw .unavailable(reason: "the Apple key \(privateKeyFile) cannot sign: \(error.description)")
        } catch {
            throw .unavailable(reason: "the Apple client secret cannot be built")
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
