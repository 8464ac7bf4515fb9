import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization

/// The five imitation providers under `/oidc/<profile>/…`: discovery, authorize (consent page or scripted
/// approval), token (code + PKCE, refresh with rotation, device code), JWKS, userinfo or the Discord/X user
/// endpoints, revoke, and the device grant for google and generic. It checks requests the way the real
/// providers do and answers errors in their shapes.
final class OIDCRoutes: Sendable {
    let context: SandboxContext
    let grants: Mutex<OIDCGrants>
    /// Pushed authorization requests by `request_uri` (RFC 9126), kept in memory only: they live for seconds.
    let pushedRequests = Mutex<[String: PushedRequest]>([:])
    /// The client assertions seen (client id and jti) until they expire, so none is accepted twice.
    let usedAssertions = Mutex<[String: Double]>([:])
    /// Browsers signed in at a profile, by their session cookie's value (`/signin`); in memory only.
    let browserSessions = Mutex<[String: BrowserSession]>([:])

    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    init(context: SandboxContext) {
        self.context = context
        let folder = context.configuration.dataFolder
        grants = Mutex(OIDCGrants(saved: folder.flatMap { $0.read($0.grantsFile) }))
    }

    /// Writes the tokens to the data folder, if the sandbox has one; called with the grants' lock held.
    func keep(_ current: OIDCGrants) {
        guard let folder = context.configuration.dataFolder else { return }
        folder.save(current.saved, to: folder.grantsFile)
    }

    /// `path` is what follows `/oidc/<profile>`, already percent-decoded.
    func handle(_ request: HTTPRequest, profile: OIDCProfile, path: String) -> HTTPResponse {
        switch path {
        case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server":
            return only(["GET", "HEAD"], request) { discovery(profile) }
        case "/authorize":
            return only(["GET", "HEAD", "POST"], request) { authorize(request, profile: profile) }
        case "/token":
            return only(["POST"], request) { token(request, profile: profile) }
        case "/signin":
            return only(["GET", "HEAD", "POST"], request) { signInPage(request, profile: profile) }
        case "/par":
            return only(["POST"], request) { pushAuthorization(request, profile: profile) }
        case "/jwks":
            return only(["GET", "HEAD"], request) { .json(200, Array(context.keys.jwksJSON.utf8)) }
        case "/revoke":
            return only(["POST"], request) { revoke(request, profile: profile) }
        case "/end_session" where profile.issuesIDToken:
            return only(["GET", "HEAD", "POST"], request) { endSession(request, profile: profile) }
        case profile.userEndpointPath:
            return only(["GET", "HEAD", "POST"], request) { user(request, profile: profile) }
        case "/device/code" where profile.supportsDeviceGrant:
            return only(["POST"], request) { deviceAuthorization(request, profile: profile) }
        case "/device" where profile.supportsDeviceGrant:
            return only(["GET", "HEAD", "POST"], request) { devicePage(request, profile: profile) }
        default:
            return .json(
                404,
                object: [
                    "error": "not_found",
                    "error_description": "the \(profile.rawValue) profile has no \(path)",
                ])
        }
    }

    /// 405 with `Allow` for a method the endpoint does not take.
    private func only(_ methods: [String], _ request: HTTPRequest, _ body: () -> HTTPResponse) -> HTTPResponse {
        guard methods.contains(request.method) else {
            var answer = OAuthError(
                status: 405, code: "invalid_request",
                description: "use \(methods.joined(separator: " or "))"
            ).response
            answer.headers.append(("Allow", methods.joined(separator: ", ")))
            return answer
        }
        return body()
    }

    // MARK: - Discovery and keys

    func endpoint(_ profile: OIDCProfile, _ path: String) -> String {
        context.issuer(profile) + path
    }

    private func discovery(_ profile: OIDCProfile) -> HTTPResponse {
        var grantTypes = ["authorization_code", "refresh_token"]
        if profile.supportsDeviceGrant { grantTypes.append(Self.deviceGrantType) }
        var document: [String: Any] = [
            "issuer": context.issuer(profile),
            "authorization_endpoint": endpoint(profile, "/authorize"),
            "token_endpoint": endpoint(profile, "/token"),
            "jwks_uri": endpoint(profile, "/jwks"),
            "revocation_endpoint": endpoint(profile, "/revoke"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query", "form_post", "jwt", "query.jwt"],
            "pushed_authorization_request_endpoint": endpoint(profile, "/par"),
            "request_parameter_supported": true,
            "request_object_signing_alg_values_supported": ["ES256", "RS256", "PS256"],
            "authorization_signing_alg_values_supported": [profile.signingAlgorithm],
            "grant_types_supported": grantTypes,
            "code_challenge_methods_supported": ["S256"],
            "dpop_signing_alg_values_supported": ["ES256", "ES384", "RS256"],
            "token_endpoint_auth_methods_supported": [
                "none", "client_secret_post", "client_secret_basic", "client_secret_jwt", "private_key_jwt",
            ],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256", "PS256", "ES256", "HS256"],
            "scopes_supported": profile.defaultScopes,
            // RFC 9207 3: every authorization response carries `iss`, so a client may refuse one without it.
            "authorization_response_iss_parameter_supported": true,
        ]
        if profile.issuesIDToken {
            document["userinfo_endpoint"] = endpoint(profile, profile.userEndpointPath)
            document["end_session_endpoint"] = endpoint(profile, "/end_session")
            document["subject_types_supported"] = ["public"]
            document["id_token_signing_alg_values_supported"] = [profile.signingAlgorithm]
            document["claims_supported"] = [
                "iss", "aud", "azp", "sub", "iat", "exp", "nonce", "email",
                "email_verified", "name", "auth_time", "acr",
            ]
        }
        if profile.supportsDeviceGrant {
            document["device_authorization_endpoint"] = endpoint(profile, "/device/code")
        }
        return .json(200, object: document)
    }

    // MARK: - Clients and redirects

    /// Any non-empty printable id (a public client of any name), or only the configured one; the portal's own
    /// client is always known to the profiles it uses.
    func accepts(clientID: String, at profile: OIDCProfile) -> Bool {
        if clientID == SandboxConfiguration.portalClientID {
            return context.configuration.portalMethods.contains(profile)
        }
        if let configured = context.configuration.clientIDs { return configured[profile] == clientID }
        return !clientID.isEmpty && clientID.utf8.count <= 256
            && clientID.unicodeScalars.allSatisfy {
                $0.value > 0x20 && $0.value < 0x7F
            }
    }

    /// Loopback (`http://127.0.0.1:PORT/…` or `[::1]`), the `authdeck://` scheme, an exactly configured URI, or
    /// the portal's own callback for the portal's client. Nothing else is ever redirected to.
    func accepts(redirectURI uri: String, clientID: String, at profile: OIDCProfile) -> Bool {
        guard uri.utf8.count <= 2048, uri.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
            !uri.contains("#")
        else { return false }
        if clientID == SandboxConfiguration.portalClientID {
            return uri == PortalRoutes.callbackURL(base: context.baseURL, provider: profile)
        }
        if context.configuration.extraRedirectURIs.contains(uri) { return true }
        if uri == TurnkeyProxyRoutes.hostedCallbackURL(base: context.baseURL, profile: profile) { return true }
        if uri.hasPrefix("authdeck://") { return uri.count > "authdeck://".count }
        guard let parts = URLComponents(string: uri), parts.scheme == "http", parts.user == nil,
            parts.password == nil, let port = parts.port, (1...65535).contains(port),
            let host = parts.host, ["127.0.0.1", "::1", "[::1]"].contains(host)
        else { return false }
        return parts.path.hasPrefix("/")
    }

    // MARK: - User endpoints

    private func user(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        let now = context.clock.now
        let token = request.bearerToken ?? request.dpopToken
        guard let token, let grant = grants.withLock({ $0.access(token, now: now) }),
            grant.profile == profile, let user = context.user(named: grant.userName)
        else {
            return Self.unauthorized(profile)
        }
        // RFC 9449 7.1: a bound token comes with the DPoP scheme and a proof of its key for this request and token.
        if let bound = grant.jkt {
            let proven: String?
            do throws(OAuthError) {
                proven = try dpopKey(request, url: endpoint(profile, profile.userEndpointPath), accessToken: token)
            } catch {
                return Self.dpopRefused(error.description)
            }
            guard request.dpopToken != nil, proven == bound else {
                return Self.dpopRefused("the token is bound to a DPoP key: present it as DPoP with a proof of that key")
            }
        }
        let subject = user.subject(at: profile)
        switch profile {
        case .google, .apple, .generic:
            var claims: [String: Any] = ["sub": subject, "name": user.displayName]
            if let email = user.email {
                claims["email"] = email
                claims["email_verified"] = true
            }
            return .json(200, object: claims)
        case .discord:
            let email: Any = user.email ?? NSNull()
            return .json(
                200,
                object: [
                    "id": subject, "username": user.name, "global_name": user.displayName,
                    "email": email, "verified": user.email != nil, "avatar": NSNull(),
                    "discriminator": "0",
                ])
        case .x:
            return .json(200, object: ["data": ["id": subject, "name": user.displayName, "username": user.name]])
        }
    }

    /// A refused bearer token, in each provider's own shape.
    private static func unauthorized(_ profile: OIDCProfile) -> HTTPResponse {
        var answer: HTTPResponse
        switch profile {
        case .google, .apple, .generic:
            answer = .json(
                401,
                object: [
                    "error": "invalid_token",
                    "error_description": "the access token is missing, expired or revoked",
                ])
        case .discord:
            answer = .json(401, object: ["message": "401: Unauthorized", "code": 0])
        case .x:
            answer = .json(
                401,
                object: [
                    "title": "Unauthorized", "type": "about:blank", "status": 401,
                    "detail": "Unauthorized",
                ])
        }
        answer.headers.append(("WWW-Authenticate", "Bearer error=\"invalid_token\""))
        return answer
    }

    /// RFC 9449 7.1: a DPoP-bound token refused, with the DPoP challenge.
    private static func dpopRefused(_ description: String) -> HTTPResponse {
        var answer = HTTPResponse.json(401, object: ["error": "invalid_token", "error_description": description])
        answer.headers.append(("WWW-Authenticate", "DPoP error=\"invalid_token\", algs=\"ES256 ES384 RS256\""))
        return answer
    }

    // MARK: - Revocation

    /// RFC 7009: 200 for any token, known or not, once the request itself is well-formed.
    private func revoke(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        guard let form = request.formParameters else {
            return OAuthError.invalidRequest("send an application/x-www-form-urlencoded body").response
        }
        guard let token = form["token"], !token.isEmpty else {
            return OAuthError.invalidRequest("token is required").response
        }
        var clientID = form["client_id"] ?? ClientCredentials.basic(request)?.clientID
        if form["client_assertion"] != nil || form["client_assertion_type"] != nil {
            do throws(OAuthError) {
                clientID = try assertedClient(form, profile: profile, endpoints: [endpoint(profile, "/revoke")])
            } catch {
                return error.response
            }
        } else if let clientID, context.configuration.assertionClients[clientID] != nil {
            return OAuthError.invalidClient("this client authenticates with a signed JWT (client_assertion)").response
        }
        grants.withLock {
            $0.revoke(token: token, clientID: clientID)
            keep($0)
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}".utf8))
    }
}
