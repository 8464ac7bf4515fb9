import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization

/// Portal's Client Auth routes (SPEC 3.5) under `/portal/api/v3/auth`, in the shapes portal-hq/PortalSwift's
/// `PortalAuthApi` and `PortalAuthWireTypes` read; every call with the `x-portal-auth-environment-id` header of the
/// configured environment (another, or none, is 401). Refusals carry `{"error": message}` for people reading them;
/// PortalSwift reads them by status (`PortalRequests`: every 401 is unauthorized, whatever its body).
/// - `GET /methods` → `{"data": {"allowedAuthMethods": ["GOOGLE", "APPLE"], "autoCreateWallet": false}}`.
/// - `GET /oauth/urls?redirectUrl=URL[&isAccountAbstracted=true|false]` → `{"data": {"google": URL,
///   "apple": URL}}`. The URLs go through the sandbox's own consent page and come back to the portal's callback,
///   which exchanges the code and redirects to `redirectUrl?token=<one-time>&login_type=GOOGLE|APPLE`, or
///   `?error=oauth_failed` (the only error Portal sends). No app-side state goes in or comes back. Both URLs
///   share one single-use state. `redirectUrl` is matched byte for byte against the environment's allow-list
///   (`portalRedirectURLs`, then `extraRedirectURIs`; a loopback URL with another port is refused) in the form
///   Portal's SDKs send it (`PortalRedirectForm`): one sent unencoded is refused, not decoded into a match. 401,
///   as Portal answers a redirect URL that is not allow-listed.
/// - `POST /oauth/tokens {"token"}` → `{"data": {endUserId, clientId, isAccountAbstracted, clientSessionToken}}`,
///   or `{"data": {endUserId, clientId, isAccountAbstracted, userJwt, totpLink?}}` when a TOTP code is due.
/// - `POST /totps/validations {"code"}` with `Authorization: Bearer <userJwt>` →
///   `{"data": {clientSessionToken, clientId, isAccountAbstracted}}` (no endUserId: it is the userJwt's
///   `endUserId` claim); 401 for a wrong code, 429 after five.
final class PortalRoutes: Sendable {
    let context: SandboxContext
    let oidc: OIDCRoutes
    let state: Mutex<PortalState>

    static let prefix = "/api/v3/auth"
    static let portalClient = "sandbox-portal-client"

    init(context: SandboxContext, oidc: OIDCRoutes) {
        self.context = context
        self.oidc = oidc
        state = Mutex(PortalState(maximumAttempts: context.configuration.otpMaximumAttempts))
    }

    /// Where the provider leg of a portal login comes back to.
    static func callbackURL(base: String, provider: OIDCProfile) -> String {
        "\(base)/portal\(prefix)/oauth/callback/\(provider.rawValue)"
    }

    /// `path` is what follows `/portal`.
    func handle(_ request: HTTPRequest, path: String) -> HTTPResponse {
        guard path.hasPrefix(Self.prefix + "/") else { return PortalError.notFound("no such path").response }
        let route = String(path.dropFirst(Self.prefix.count))
        // The provider's redirect comes from the browser, which knows nothing of the environment header.
        if route.hasPrefix("/oauth/callback/") {
            guard let profile = OIDCProfile(rawValue: String(route.dropFirst("/oauth/callback/".count))),
                context.configuration.portalMethods.contains(profile)
            else {
                return PortalError.notFound("no such path").response
            }
            guard request.method == "GET" || request.method == "POST" else {
                return Self.methodNotAllowed("GET, POST")
            }
            return callback(request, profile: profile)
        }
        // The magic link in the email is opened by a browser, which knows nothing of the environment header either.
        if route.hasPrefix(Self.openLinkRoute), context.configuration.portalMagicLinks {
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return openMagicLink(id: String(route.dropFirst(Self.openLinkRoute.count)))
        }
        let expectations: [String: String] = [
            "/methods": "GET", "/oauth/urls": "GET", "/oauth/tokens": "POST",
            "/totps/validations": "POST", "/magic-links": "POST", "/magic-links/validations": "POST",
        ]
        guard let method = expectations[route] else { return PortalError.notFound("no such path").response }
        guard request.method == method || (method == "GET" && request.method == "HEAD") else {
            return Self.methodNotAllowed(method)
        }
        let environment = request.headers["x-portal-auth-environment-id"] ?? ""
        guard !environment.isEmpty else {
            return PortalError.unauthorized("the x-portal-auth-environment-id header is required").response
        }
        guard ConstantTime.equals(environment, context.configuration.writtenPortalEnvironmentID) else {
            return PortalError.unauthorized("unknown auth environment").response
        }
        do throws(PortalError) {
            switch route {
            case "/methods": return .json(200, object: ["data": methods()])
            case "/oauth/urls": return .json(200, object: ["data": try urls(request)])
            case "/oauth/tokens": return .json(200, object: ["data": try tokens(request)])
            case "/magic-links": return .json(200, object: try sendMagicLink(request))
            case "/magic-links/validations": return .json(200, object: ["data": try validateMagicLink(request)])
            default: return .json(200, object: ["data": try validations(request)])
            }
        } catch {
            return error.response
        }
    }

    private static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var answer = PortalError(status: 405, message: "use \(allowed)").response
        answer.headers.append(("Allow", allowed))
        return answer
    }

    // MARK: - Routes

    private func methods() -> [String: Any] {
        let magicLink = context.configuration.portalMagicLinks ? [Self.magicLinkMethod] : []
        return [
            "allowedAuthMethods": magicLink + context.configuration.portalMethods.map { $0.rawValue.uppercased() },
            "autoCreateWallet": false,
        ]
    }

    private func urls(_ request: HTTPRequest) throws(PortalError) -> [String: Any] {
        guard let query = request.queryParameters else { throw .badRequest("the query has a broken escape") }
        guard let redirectURL = query["redirectUrl"], !redirectURL.isEmpty else {
            throw .badRequest("redirectUrl is required")
        }
        let allowList = context.configuration.portalRedirectURLs + context.configuration.extraRedirectURIs
        guard allowList.contains(redirectURL), PortalRedirectForm.isSent(request.query, as: redirectURL) else {
            throw .unauthorized("redirectUrl is not allow-listed for this environment")
        }
        var abstracted: Bool?
        switch query["isAccountAbstracted"] {
        case nil: abstracted = nil
        case "true": abstracted = true
        case "false": abstracted = false
        default: throw .badRequest("isAccountAbstracted must be true or false")
        }
        guard let loginState = try? context.randomToken(), let verifier = try? context.randomToken() else {
            throw .server("the sandbox could not draw random bytes")
        }
        let now = context.clock.now
        let pending = PortalState.PendingLogin(
            redirectURL: redirectURL, accountAbstracted: abstracted,
            verifier: verifier, expiresAt: now + 600)
        state.withLock {
            $0.prune(now: now)
            $0.pending[loginState] = pending
        }
        var urls: [String: Any] = [:]
        for profile in context.configuration.portalMethods {
            var parameters = [
                ("client_id", SandboxConfiguration.portalClientID),
                ("redirect_uri", Self.callbackURL(base: context.baseURL, provider: profile)),
                ("response_type", "code"),
                ("scope", profile == .apple ? "name email" : "openid email profile"),
                ("state", loginState),
                ("code_challenge", PublishedChecks.s256Challenge(of: verifier)),
                ("code_challenge_method", "S256"),
            ]
            if profile == .apple { parameters.append(("response_mode", "form_post")) }
            urls[profile.rawValue] = oidc.endpoint(profile, "/authorize") + "?" + FormEncoding.encode(parameters)
        }
        return urls
    }

    /// The provider's answer: exchange the code (in process), then send the browser on to the client's
    /// redirect URL with a one-time token, or with the error.
    private func callback(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        let fields = request.method == "POST" ? request.formParameters : request.queryParameters
        guard let fields, let loginState = fields["state"],
            let pending = state.withLock({ $0.pending.removeValue(forKey: loginState) }),
            pending.expiresAt > context.clock.now
        else {
            return OIDCRoutes.errorPage(400, "This sign-in link is unknown, expired or already used. Start again.")
        }
        var answer: [(String, String)]
        if fields["error"] != nil {
            answer = [("error", "oauth_failed")]
        } else if let code = fields["code"] {
            do throws(OAuthError) {
                let redeemed = try oidc.redeem(
                    code: code, profile: profile,
                    clientID: SandboxConfiguration.portalClientID,
                    redirectURI: Self.callbackURL(base: context.baseURL, provider: profile),
                    verifier: pending.verifier)
                let token = try oidc.random()
                let result = PortalState.Result(
                    userName: redeemed.user.name, profile: profile,
                    accountAbstracted: pending.accountAbstracted ?? false,
                    expiresAt: context.clock.now + 120)
                state.withLock { $0.results[token] = result }
                answer = [("token", token), ("login_type", profile.rawValue.uppercased())]
            } catch {
                answer = [("error", "oauth_failed")]
            }
        } else {
            answer = [("error", "oauth_failed")]
        }
        let separator = pending.redirectURL.contains("?") ? "&" : "?"
        return .redirect(to: pending.redirectURL + separator + FormEncoding.encode(answer))
    }

    private func tokens(_ request: HTTPRequest) throws(PortalError) -> [String: Any] {
        guard let body = request.jsonObject else {
            throw .badRequest("the body must be a JSON object sent as application/json")
        }
        guard let token = body["token"] as? String, !token.isEmpty else { throw .badRequest("token is required") }
        let now = context.clock.now
        guard let result = state.withLock({ $0.results.removeValue(forKey: token) }), result.expiresAt > now,
            let user = context.user(named: result.userName)
        else {
            throw .unauthorized("the token is unknown, expired or already used")
        }
        return try grant(
            user: user, endUserID: Self.endUserID(user, profile: result.profile),
            accountAbstracted: result.accountAbstracted)
    }

    /// A grant exchange's answer for `user`: a client session token, or a userJwt and the TOTP link when the user
    /// has a second factor.
    func grant(user: SandboxUser, endUserID: String, accountAbstracted: Bool) throws(PortalError) -> [String: Any] {
        let now = context.clock.now
        guard let challengeID = try? context.randomToken(bytes: 16) else {
            throw .server("the sandbox could not draw random bytes")
        }
        let seconds = context.clock.seconds
        var data: [String: Any] = [
            "endUserId": endUserID, "clientId": Self.portalClient,
            "isAccountAbstracted": accountAbstracted,
        ]
        if let seed = user.totpSeed, let secret = user.totpSecret {
            data["userJwt"] = try sign([
                "iss": context.baseURL + "/portal", "purpose": Purpose.portalUser, "jti": challengeID,
                "sub": endUserID, "endUserId": endUserID, "isAccountAbstracted": accountAbstracted,
                "iat": seconds, "exp": seconds + 600,
            ])
            state.withLock { $0.totp.add(id: challengeID, seed: seed, expiresAt: Double(seconds + 600), now: now) }
            data["totpLink"] = TOTPLink.make(secret: secret, account: user.email ?? user.name)
        } else {
            data["clientSessionToken"] = try clientSessionToken()
        }
        return data
    }

    private func validations(_ request: HTTPRequest) throws(PortalError) -> [String: Any] {
        guard let userJwt = request.bearerToken else {
            throw .unauthorized("Authorization: Bearer <userJwt> is required")
        }
        guard let claims = context.keys.verifiedClaims(userJwt),
            claims["iss"] as? String == context.baseURL + "/portal",
            claims["purpose"] as? String == Purpose.portalUser, let challengeID = claims["jti"] as? String,
            claims["endUserId"] is String
        else {
            throw .unauthorized("the userJwt is not valid")
        }
        guard let expiry = claims["exp"] as? Int, Double(expiry) > context.clock.now else {
            throw .unauthorized("the userJwt has expired")
        }
        guard let body = request.jsonObject else {
            throw .badRequest("the body must be a JSON object sent as application/json")
        }
        guard let code = body["code"] as? String else { throw .badRequest("code is required") }
        let now = context.clock.now
        switch state.withLock({ $0.totp.check(id: challengeID, code: code, now: now) }) {
        case .accepted:
            return [
                "clientSessionToken": try clientSessionToken(), "clientId": Self.portalClient,
                "isAccountAbstracted": claims["isAccountAbstracted"] as? Bool ?? false,
            ]
        case .wrongCode(let left):
            if left == 0 { throw .tooMany("invalid TOTP code; too many attempts, sign in again") }
            throw .unauthorized("invalid TOTP code (\(left) attempts left)")
        case .tooManyAttempts:
            throw .tooMany("too many attempts; sign in again")
        case .unknown:
            throw .badRequest("no TOTP validation is pending for this userJwt")
        }
    }

    // MARK: - Pieces

    /// Portal identifies an end user by email; a user without one by the provider's subject.
    static func endUserID(_ user: SandboxUser, profile: OIDCProfile) -> String {
        let seed = user.email.map { "end user \($0)" } ?? "end user \(profile.rawValue) \(user.subject(at: profile))"
        return ProxyAccounts.stableID(seed)
    }

    private func clientSessionToken() throws(PortalError) -> String {
        do {
            return try context.randomToken()
        } catch {
            throw .server("the sandbox could not draw random bytes")
        }
    }

    private func sign(_ claims: [String: Any]) throws(PortalError) -> String {
        do {
            return try context.keys.sign(claims, algorithm: "ES256")
        } catch {
            throw .server("the sandbox could not sign a token")
        }
    }
}
