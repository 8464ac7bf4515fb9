/// The config.json `authdeck sandbox --config-out FILE` writes, pointing every backend at this sandbox.
/// The executable's config loader reads it, so the shape is kept small and stable:
///
///     {
///       "defaultBackend": "sandbox",
///       "backends": {
///         "sandbox":         {"type": "sandbox", "baseURL": B,
///                             "proxyBaseURL": B/turnkey, "configID": C,
///                             "portalBaseURL": B/portal, "environmentID": E},
///         "sandbox-turnkey": {"type": "turnkey", "baseURL": B/turnkey, "configID": C,
///                             "oauthOriginURL": B/turnkey/oauth-origin},
///         "sandbox-portal":  {"type": "portal", "baseURL": B/portal, "environmentID": E,
///                             "redirectURL": "authdeck://callback"}
///       },
///       "providers": {
///         "google": {"clientID", "issuer", "discovery", "authorizationEndpoint", "tokenEndpoint", "jwksURI",
///                    "userEndpoint", "revocationEndpoint", "deviceAuthorizationEndpoint", "scopes",
///                    "redirect": "loopback"},
///         "apple":  {… as google, without deviceAuthorizationEndpoint, plus "responseMode": "form_post"},
///         "discord", "x": {"clientID", "issuer", "authorizationEndpoint", "tokenEndpoint", "userEndpoint",
///                          "revocationEndpoint", "scopes", "redirect"},
///         "oidc":   {… as google: the generic OpenID Connect profile}
///       }
///     }
///
/// Both turnkey-speaking backends get `"totpExtension": true` when the sandbox runs its TOTP extension.
/// B is the base URL (`http://127.0.0.1:PORT`). The `sandbox` backend runs social providers as the `direct`
/// backend does (straight at the profiles) and email/SMS codes through the proxy at `proxyBaseURL`.
/// Provider field names follow Resources/providers.json, so an entry overrides a preset field by field.
enum SandboxConfigFile {
    static func document(context: SandboxContext) -> [UInt8] {
        let base = context.baseURL
        let configuration = context.configuration
        let configID = configuration.writtenProxyConfigID
        let environmentID = configuration.writtenPortalEnvironmentID
        var backends: [String: [String: Any]] = [
            "sandbox": ["type": "sandbox", "baseURL": base, "proxyBaseURL": base + "/turnkey", "configID": configID,
                        "portalBaseURL": base + "/portal", "environmentID": environmentID],
            "sandbox-turnkey": ["type": "turnkey", "baseURL": base + "/turnkey", "configID": configID,
                                "oauthOriginURL": base + "/turnkey/oauth-origin", "usesSandbox": true],
            "sandbox-portal": ["type": "portal", "baseURL": base + "/portal", "environmentID": environmentID,
                               "redirectURL": configuration.portalRedirectURLs.first ?? "authdeck://callback",
                               "usesSandbox": true],
        ]
        if configuration.turnkeyTOTPExtension {
            backends["sandbox"]?["totpExtension"] = true
            backends["sandbox-turnkey"]?["totpExtension"] = true
        }
        var providers: [String: Any] = [:]
        for profile in OIDCProfile.allCases {
            providers[profile.providerName] = provider(profile, context: context)
        }
        return JSONText.encode(["defaultBackend": "sandbox", "backends": backends, "providers": providers])
    }

    private static func provider(_ profile: OIDCProfile, context: SandboxContext) -> [String: Any] {
        let issuer = context.issuer(profile)
        var entry: [String: Any] = [
            "clientID": context.configuration.clientID(for: profile),
            "issuer": issuer,
            "authorizationEndpoint": issuer + "/authorize",
            "tokenEndpoint": issuer + "/token",
            "userEndpoint": issuer + profile.userEndpointPath,
            "revocationEndpoint": issuer + "/revoke",
            "scopes": profile.defaultScopes,
            // The sandbox takes loopback redirects for every profile, Apple included.
            "redirect": "loopback",
        ]
        if profile.issuesIDToken {
            entry["discovery"] = issuer + "/.well-known/openid-configuration"
            entry["jwksURI"] = issuer + "/jwks"
        }
        if profile.supportsDeviceGrant { entry["deviceAuthorizationEndpoint"] = issuer + "/device/code" }
        if profile.defaultResponseMode == "form_post" { entry["responseMode"] = "form_post" }
        return entry
    }
}
