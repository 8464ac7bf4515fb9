import AuthCore
import AuthCrypto
import LoopbackHTTP

/// A hosted OAuth login waiting for the provider's answer (the sandbox's stand-in for Turnkey's oauth-origin).
struct HostedLogin {
    let profile: OIDCProfile
    let clientID: String
    let nonce: String
    let scheme: String
    let clientState: String?
    let verifier: String
    let expiresAt: Double
}

extension TurnkeyProxyRoutes {
    /// Where the hosted redirect page lives; wallet_kit_config's `oauthRedirectUrl`.
    static func hostedRedirectURL(base: String) -> String { base + "/turnkey/oauth-redirect" }

    /// The provider leg's own callback, per provider, which the sandbox's profiles accept for any client.
    static func hostedCallbackURL(base: String, profile: OIDCProfile) -> String {
        hostedRedirectURL(base: base) + "/" + profile.rawValue
    }

    /// `GET /oauth-origin?provider&clientId&redirectUri&nonce[&state]` starts the provider leg;
    /// `/oauth-redirect/<provider>` takes its answer and sends an `id_token` on to the app's scheme.
    func hostedPage(_ request: HTTPRequest, path: String) -> HTTPResponse {
        if path == "/oauth-origin" {
            guard request.method == "GET" else { return OIDCRoutes.errorPage(405, "Use GET.") }
            return hostedOrigin(request)
        }
        let name = path.dropFirst("/oauth-redirect/".count)
        guard path.hasPrefix("/oauth-redirect/"), let profile = OIDCProfile(rawValue: String(name)),
            profile == .google || profile == .apple
        else {
            return OIDCRoutes.errorPage(404, "No such page.")
        }
        guard request.method == "GET" || request.method == "POST" else {
            return OIDCRoutes.errorPage(405, "Use GET or POST.")
        }
        return hostedCallback(request, profile: profile)
    }

    private func hostedOrigin(_ request: HTTPRequest) -> HTTPResponse {
        guard let query = request.queryParameters, let providerName = query["provider"],
            let profile = OIDCProfile(rawValue: providerName), profile == .google || profile == .apple,
            let clientID = query["clientId"], oidc.accepts(clientID: clientID, at: profile),
            let nonce = query["nonce"], !nonce.isEmpty, nonce.utf8.count <= 256,
            let redirectURI = query["redirectUri"]
        else {
            return OIDCRoutes.errorPage(
                400,
                "provider (google or apple), clientId, redirectUri and nonce are "
                    + "required.")
        }
        // The redirect URI is the hosted redirect page with the app's scheme, exactly as the SDK builds it.
        let prefix = Self.hostedRedirectURL(base: context.baseURL) + "?scheme="
        let scheme = redirectURI.hasPrefix(prefix) ? String(redirectURI.dropFirst(prefix.count)) : ""
        guard !scheme.isEmpty, scheme.utf8.count <= 32,
            scheme.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else {
            return OIDCRoutes.errorPage(400, "redirectUri must be \(prefix)<app scheme>.")
        }
        guard let loginState = try? context.randomToken(), let verifier = try? context.randomToken() else {
            return OIDCRoutes.errorPage(500, "The sandbox could not draw random bytes.")
        }
        let now = context.clock.now
        let login = HostedLogin(
            profile: profile, clientID: clientID, nonce: nonce, scheme: scheme,
            clientState: query["state"].flatMap { $0.utf8.count <= 512 ? $0 : nil },
            verifier: verifier, expiresAt: now + 600)
        state.withLock { $0.hosted[loginState] = login }
        var parameters = [
            ("client_id", clientID), ("redirect_uri", Self.hostedCallbackURL(base: context.baseURL, profile: profile)),
            ("response_type", "code"), ("scope", profile == .apple ? "name email" : "openid email profile"),
            ("state", loginState), ("code_challenge", PublishedChecks.s256Challenge(of: verifier)),
            ("code_challenge_method", "S256"),
        ]
        if profile == .apple { parameters.append(("response_mode", "form_post")) }
        // The sandbox consent page's scripting hooks ride along, so a scripted browser can start here.
        for hook in ["sandbox_user", "sandbox_auto"] { if let value = query[hook] { parameters.append((hook, value)) } }
        return .redirect(to: oidc.endpoint(profile, "/authorize") + "?" + FormEncoding.encode(parameters))
    }

    private func hostedCallback(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        let fields = request.method == "POST" ? request.formParameters : request.queryParameters
        guard let fields, let loginState = fields["state"],
            let login = state.withLock({ $0.hosted.removeValue(forKey: loginState) }),
            login.profile == profile, login.expiresAt > context.clock.now
        else {
            return OIDCRoutes.errorPage(400, "This sign-in link is unknown, expired or already used. Start again.")
        }
        var answer: [(String, String)]
        if let code = fields["code"] {
            do throws(OAuthError) {
                let redeemed = try oidc.redeem(
                    code: code, profile: profile, clientID: login.clientID,
                    redirectURI: Self.hostedCallbackURL(
                        base: context.baseURL,
                        profile: profile),
                    verifier: login.verifier)
                answer = [
                    (
                        "id_token",
                        try oidc.idToken(
                            profile: profile, audience: login.clientID,
                            user: redeemed.user, nonce: login.nonce)
                    )
                ]
            } catch {
                answer = [("error", "oauth_failed")]
            }
        } else {
            answer = [("error", fields["error"] == "access_denied" ? "access_denied" : "oauth_failed")]
        }
        if let clientState = login.clientState { answer.append(("state", clientState)) }
        return .redirect(to: "\(login.scheme)://callback?" + FormEncoding.encode(answer))
    }
}
