import AuthCore
import Foundation

/// The config.json `authdeck sandbox --config-out FILE` writes, pointing every backend at this sandbox: the
/// `Configuration` authdeck's config loader reads, built as that type and encoded, so the two cannot drift.
///
///     {
///       "defaultBackend": "sandbox",
///       "backends": {
///         "sandbox":         {"type": "sandbox", "baseURL": B,
///                             "proxyBaseURL": B/turnkey, "configID": C,
///                             "portalBaseURL": B/portal, "environmentID": E},
///         "sandbox-turnkey": {"type": "turnkey", "baseURL": B/turnkey, "configID": C,
///                             "oauthOriginURL": B/turnkey/oauth-origin, "oauthFlow": "code",
///                             "usesSandbox": true},
///         "sandbox-portal":  {"type": "portal", "baseURL": B/portal, "environmentID": E,
///                             "redirectURL": "authdeck://callback", "usesSandbox": true},
///         "sandbox-jwt":     {"type": "direct", "usesSandbox": true,
///                             "providers": {"oidc": {"clientID": "sandbox-jwt-client", "issuer",
///                                                    "tokenEndpointAuthMethod": "private_key_jwt",
///                                                    "privateKeyFile", "keyID"}}}
///       },
///       "providers": {
///         "google": {"clientID", "issuer", "authorizationEndpoint", "tokenEndpoint", "jwksURI", "userEndpoint",
///                    "revocationEndpoint", "deviceAuthorizationEndpoint", "scopes"},
///         "apple":  {… as google, without deviceAuthorizationEndpoint},
///         "discord", "x": {"clientID", "issuer", "authorizationEndpoint", "tokenEndpoint", "userEndpoint",
///                          "revocationEndpoint", "scopes"},
///         "oidc":   {"clientID", "issuer", "scopes"}
///       }
///     }
///
/// `oidc`, the generic OpenID Connect profile, is configured as a real one usually is, by its issuer: its endpoints
/// (the PAR endpoint among them) come from discovery. `sandbox-jwt` is written when the sandbox registered its JWT
/// client (`SandboxJWTClient`, a key in the data folder): the same profile, signed in with `private_key_jwt`.
/// Both turnkey-speaking backends get `"totpExtension": true` when the sandbox runs its TOTP extension.
/// The three code-sending backends carry `"outbox"`, the file the codes go to, when there is one.
/// B is the base URL (`http://127.0.0.1:PORT`). The `sandbox` backend runs social providers as the `direct`
/// backend does (straight at the profiles) and email/SMS codes through the proxy at `proxyBaseURL`. Each provider
/// entry overrides its preset (Resources/providers.json) field by field; discovery follows from the issuer, and
/// the loopback redirect and Apple's form_post response mode come from the presets, which the sandbox accepts.
enum SandboxConfigFile {
    static func configuration(context: SandboxContext) -> Configuration {
        let base = context.baseURL
        let settings = context.configuration
        let totp: Bool? = settings.turnkeyTOTPExtension ? true : nil
        var sandbox = BackendConfiguration(
            type: .sandbox, baseURL: base, configID: settings.writtenProxyConfigID,
            environmentID: settings.writtenPortalEnvironmentID)
        sandbox.proxyBaseURL = base + "/turnkey"
        sandbox.portalBaseURL = base + "/portal"
        sandbox.totpExtension = totp
        sandbox.otpSignerPublicKey = context.keys.otpSignerPublicKeyHex
        var turnkey = BackendConfiguration(
            type: .turnkey, baseURL: base + "/turnkey",
            configID: settings.writtenProxyConfigID)
        turnkey.oauthOriginURL = base + "/turnkey/oauth-origin"
        // The profiles take public clients, so the code flow needs no secret here; without this line Google and
        // Apple would run the hosted flow, the default when no client secret is configured.
        turnkey.oauthFlow = "code"
        turnkey.usesSandbox = true
        turnkey.totpExtension = totp
        turnkey.otpSignerPublicKey = context.keys.otpSignerPublicKeyHex
        var portal = BackendConfiguration(
            type: .portal, baseURL: base + "/portal",
            environmentID: settings.writtenPortalEnvironmentID)
        portal.redirectURL = settings.portalRedirectURLs.first ?? "authdeck://callback"
        portal.usesSandbox = true
        if settings.portalMagicLinks {
            portal.magicLinkFromEmail = settings.portalMagicLinkSender
            portal.magicLinkTemplateID = settings.portalMagicLinkTemplate
        }
        var providers: [String: ProviderConfiguration] = [:]
        for profile in OIDCProfile.allCases {
            providers[profile.providerName] = provider(profile, context: context)
            if profile.issuesIDToken {
                providers[profile.providerName]?.postLogoutRedirectURI = settings.postLogoutRedirectURIs.first
            }
        }
        var backends = ["sandbox": sandbox, "sandbox-turnkey": turnkey, "sandbox-portal": portal]
        for name in backends.keys { backends[name]?.outbox = settings.outboxPath }
        if let client = settings.jwtClient {
            let oidc = ProviderConfiguration(
                clientID: SandboxJWTClient.clientID, issuer: context.issuer(.generic), keyID: client.keyID,
                privateKeyFile: client.keyFile, tokenEndpointAuthMethod: "private_key_jwt")
            backends[SandboxJWTClient.backendName] = BackendConfiguration(
                type: .direct, providers: [OIDCProfile.generic.providerName: oidc], usesSandbox: true)
        }
        return Configuration(defaultBackend: "sandbox", backends: backends, providers: providers)
    }

    static func document(context: SandboxContext) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a value of plain strings, flags and lists cannot fail; an empty object beats a trap in a server.
        return (try? Array(encoder.encode(configuration(context: context)))) ?? Array("{}".utf8)
    }

    private static func provider(_ profile: OIDCProfile, context: SandboxContext) -> ProviderConfiguration {
        let issuer = context.issuer(profile)
        if profile == .generic {
            return ProviderConfiguration(
                clientID: context.configuration.clientID(for: profile), issuer: issuer, scopes: profile.defaultScopes)
        }
        return ProviderConfiguration(
            clientID: context.configuration.clientID(for: profile), issuer: issuer, scopes: profile.defaultScopes,
            authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
            userEndpoint: issuer + profile.userEndpointPath, revocationEndpoint: issuer + "/revoke",
            deviceAuthorizationEndpoint: profile.supportsDeviceGrant ? issuer + "/device/code" : nil,
            jwksURI: profile.issuesIDToken ? issuer + "/jwks" : nil)
    }
}
