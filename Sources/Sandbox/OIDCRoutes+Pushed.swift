import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP

/// One pushed authorization request (RFC 9126): its parameters, for whom, and until when its `request_uri` is good.
struct PushedRequest: Sendable {
    let clientID: String
    let parameters: [String: String]
    /// Seconds since 1970, as the sandbox clock counts.
    let expires: Double
}

/// Why an authorization request is refused before its redirect URI can be trusted: shown as a page.
struct AuthorizationRefusal: Error {
    let problem: String
    /// An error response sent to the client instead, where its redirect URI is already known to be good.
    var redirect: HTTPResponse?
}

extension OIDCRoutes {
    /// How long a `request_uri` is good for: RFC 9126 2.2's example, a minute and a half.
    static let pushedLifetime = 90
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

    /// The PAR endpoint (RFC 9126 section 2): the client authenticates as at the token endpoint, the parameters (or a
    /// signed request object, RFC 9101) are checked as the authorization endpoint would, and a one-time
    /// `request_uri` comes back with 201.
    func pushAuthorization(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        guard request.contentType == "application/x-www-form-urlencoded", let form = request.formParameters else {
            return OAuthError.invalidRequest("send an application/x-www-form-urlencoded body").response
        }
        do {
            // RFC 9126 section 2: an assertion here may name the PAR endpoint, the token endpoint or the issuer.
            let clientID = try authenticateClient(request, form: form, profile: profile, endpoints: ["/par", "/token"])
            // Section 2.1: a request_uri cannot itself be pushed.
            guard form["request_uri"] == nil else {
                throw OAuthError.invalidRequest("request_uri is not allowed at the PAR endpoint")
            }
            var parameters = form
            if let object = form["request"] {
                parameters = try requestObjectParameters(object, clientID: clientID, profile: profile)
            }
            guard parameters["client_id"] == nil || parameters["client_id"] == clientID else {
                throw OAuthError.invalidRequest("client_id differs from the authenticated client")
            }
            guard let redirectURI = parameters["redirect_uri"],
                accepts(redirectURI: redirectURI, clientID: clientID, at: profile)
            else {
                throw OAuthError.invalidRequest("redirect_uri is missing or not registered")
            }
            parameters["client_id"] = clientID
            let requestURI = Self.requestURIPrefix + (try context.randomToken())
            let now = context.clock.now
            let pushed = PushedRequest(
                clientID: clientID, parameters: parameters,
                expires: now + Double(Self.pushedLifetime))
            pushedRequests.withLock { requests in
                requests = requests.filter { $0.value.expires > now }
                requests[requestURI] = pushed
            }
            return .json(201, object: ["request_uri": requestURI, "expires_in": Self.pushedLifetime])
        } catch let error as OAuthError {
            return error.response
        } catch {
            return OAuthError(status: 500, code: "server_error", description: "no random bytes").response
        }
    }

    /// The authorization request's parameters: pushed ones by `request_uri` (for the client that pushed them, before
    /// they expire), a request object's own claims (RFC 9101 section 5: nothing outside it counts), or the query.
    func authorizationParameters(_ query: [String: String], profile: OIDCProfile) -> Result<
        [String: String], AuthorizationRefusal
    > {
        if let requestURI = query["request_uri"] {
            let now = context.clock.now
            guard let pushed = pushedRequests.withLock({ $0[requestURI] }) else {
                return .failure(AuthorizationRefusal(problem: "The request_uri is unknown or was used already."))
            }
            guard pushed.expires > now else {
                // The pushed redirect URI was checked when it was pushed, so the client hears why (RFC 9101 7).
                let reply = AuthorizationReply(
                    redirectURI: pushed.parameters["redirect_uri"] ?? "", state: pushed.parameters["state"],
                    mode: "query", issuer: context.issuer(profile))
                return .failure(
                    AuthorizationRefusal(
                        problem: "The request_uri has expired; sign in again.",
                        redirect: reply.error("invalid_request_uri", "the request_uri has expired")))
            }
            guard query["client_id"] == pushed.clientID else {
                return .failure(AuthorizationRefusal(problem: "The request_uri belongs to another client."))
            }
            return .success(pushed.parameters)
        }
        if let object = query["request"] {
            guard let clientID = query["client_id"] else {
                return .failure(AuthorizationRefusal(problem: "The request has no client_id."))
            }
            do {
                var parameters = try requestObjectParameters(object, clientID: clientID, profile: profile)
                parameters["client_id"] = clientID
                return .success(parameters)
            } catch {
                return .failure(AuthorizationRefusal(problem: "The request object is refused: \(error.description)."))
            }
        }
        return .success(query)
    }

    /// A pushed request's `request_uri` is used up once the user answered (RFC 9126 section 4): false when another
    /// answer used it up first (two answers can arrive at once), true when it was still there or none was pushed.
    @discardableResult
    func consumePushed(_ query: [String: String]) -> Bool {
        guard let requestURI = query["request_uri"] else { return true }
        return pushedRequests.withLock { $0.removeValue(forKey: requestURI) } != nil
    }

    /// RFC 9101: the object is a JWS by the client's registered key (none registered, none accepted), `iss` the
    /// client (section 10.2's mix-up defence), `aud` this issuer, not expired, not used before `nbf`, and its
    /// `client_id` the request's; its claims are the request's parameters.
    func requestObjectParameters(
        _ object: String, clientID: String, profile: OIDCProfile
    ) throws(OAuthError) -> [String: String] {
        guard let jwks = context.configuration.requestObjectKeys[clientID] else {
            throw OAuthError(
                status: 400, code: "invalid_request_object", description: "the client has no registered key")
        }
        guard let verified = try? JWS.verify(object, jwks: jwks),
            ["ES256", "RS256", "PS256"].contains(verified.algorithm),
            let claims = JSONText.object(verified.payload)
        else {
            throw OAuthError(status: 400, code: "invalid_request_object", description: "the signature does not verify")
        }
        let now = context.clock.now
        let audience = claims["aud"] as? String ?? (claims["aud"] as? [String])?.first { $0 == context.issuer(profile) }
        guard claims["iss"] as? String == clientID, audience == context.issuer(profile) else {
            throw OAuthError(status: 400, code: "invalid_request_object", description: "iss or aud is wrong")
        }
        guard let exp = claims["exp"] as? Double, exp > now, (claims["nbf"] as? Double ?? 0) <= now + 60 else {
            throw OAuthError(status: 400, code: "invalid_request_object", description: "expired or not yet valid")
        }
        guard claims["client_id"] as? String == clientID else {
            throw OAuthError(status: 400, code: "invalid_request_object", description: "client_id differs")
        }
        guard claims["request"] == nil, claims["request_uri"] == nil else {
            throw OAuthError(status: 400, code: "invalid_request_object", description: "nested request")
        }
        var parameters: [String: String] = [:]
        for (name, value) in claims where !["iss", "aud", "exp", "iat", "nbf", "jti"].contains(name) {
            if let text = value as? String { parameters[name] = text }
        }
        return parameters
    }

    /// A JWT-secured authorization response (JARM section 4.1): the parameters plus iss, aud = the client, and exp
    /// ten minutes on, signed with the profile's key.
    func signedResponse(_ parameters: [(String, String)], clientID: String, profile: OIDCProfile) -> String? {
        var claims: [String: Any] = [:]
        for (name, value) in parameters { claims[name] = value }
        claims["iss"] = context.issuer(profile)
        claims["aud"] = clientID
        claims["exp"] = Int(context.clock.now) + 600
        return try? context.keys.sign(claims, algorithm: profile.signingAlgorithm)
    }
}
