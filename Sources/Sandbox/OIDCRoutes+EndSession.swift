import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP

extension OIDCRoutes {
    /// The end-session endpoint of OpenID Connect RP-Initiated Logout 1.0 (GET with a query or POST with a form,
    /// section 2). `id_token_hint` must be an ID token this profile signed (its `iss`; an expired one is still
    /// accepted, as the section advises); `client_id`, when given, must be among its `aud`; the
    /// `post_logout_redirect_uri` must be one registered exactly (`postLogoutRedirectURIs`), and redirection
    /// happens only with an ID token naming the client (section 2's rule for confirming the target). The user's
    /// tokens for that client end here, and the browser goes to the URI with `state` unchanged (section 3). A
    /// refused request is a page, never a redirect (section 4).
    func endSession(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        let parameters = request.method == "POST" ? request.formParameters : request.queryParameters
        guard let parameters else { return Self.endSessionRefused("The logout request has a broken escape.") }
        guard let hint = parameters["id_token_hint"], !hint.isEmpty else {
            return Self.endSessionRefused("The logout request names no ID token (id_token_hint).")
        }
        guard let claims = context.keys.verifiedClaims(hint), claims["iss"] as? String == context.issuer(profile)
        else {
            return Self.endSessionRefused("The ID token in the logout request was not issued here.")
        }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard let tokenClient = audience.first, accepts(clientID: tokenClient, at: profile) else {
            return Self.endSessionRefused("The ID token in the logout request names no client of this provider.")
        }
        if let clientID = parameters["client_id"], !audience.contains(clientID) {
            return Self.endSessionRefused("The client_id is not the client the ID token was issued to.")
        }
        let target = parameters["post_logout_redirect_uri"]
        if let target, !context.configuration.postLogoutRedirectURIs.contains(target) {
            return Self.endSessionRefused("The post_logout_redirect_uri is not registered with this provider.")
        }
        // Everything checked: the session ends, then the browser goes on.
        if let subject = claims["sub"] as? String, let user = context.user(subject: subject, at: profile) {
            grants.withLock { grants in
                grants.endSession(userName: user.name, clientID: tokenClient, profile: profile)
                keep(grants)
            }
        }
        guard let target else {
            return .html(200, HTML.page(title: "Signed out", body: "<p>You are signed out.</p>"))
        }
        guard let state = parameters["state"] else { return .redirect(to: target) }
        return .redirect(to: target + (target.contains("?") ? "&" : "?") + FormEncoding.encode([("state", state)]))
    }

    static func endSessionRefused(_ message: String) -> HTTPResponse {
        .html(400, HTML.page(title: "Sign-out request refused", body: "<p>\(HTML.escape(message))</p>"))
    }
}
