import AuthCore
import AuthCrypto
import LoopbackHTTP

/// What a successful code redemption yields, for the token endpoint and for the proxies that exchange codes
/// at their own profiles (Turnkey's oauth2_authenticate, the portal's callback).
struct RedeemedCode {
    let code: String
    let value: OIDCGrants.Code
    let user: SandboxUser
}

extension OIDCRoutes {
    func token(_ request: HTTPRequest, profile: OIDCProfile) -> HTTPResponse {
        do throws(OAuthError) {
            guard let form = request.formParameters else {
                throw .invalidRequest("send an application/x-www-form-urlencoded body")
            }
            let clientID = try authenticateClient(request, form: form, profile: profile)
            let jkt = try dpopKey(request, url: endpoint(profile, "/token"))
            let answer: [String: Any]
            switch form["grant_type"] {
            case "authorization_code":
                answer = try authorizationCodeGrant(form, profile: profile, clientID: clientID, jkt: jkt)
            case "refresh_token":
                answer = try refreshGrant(form, profile: profile, clientID: clientID, jkt: jkt)
            case Self.deviceGrantType where profile.supportsDeviceGrant:
                answer = try deviceGrant(form, profile: profile, clientID: clientID, jkt: jkt)
            case nil:
                throw .invalidRequest("grant_type is required")
            case .some:
                throw OAuthError(
                    status: 400, code: "unsupported_grant_type",
                    description: "the \(profile.rawValue) profile does not offer this grant type")
            }
            return .json(200, object: answer)
        } catch {
            return error.response
        }
    }

    /// The client a signed assertion proves (`assertedClient`), or the client id from the body or from Basic
    /// authentication (never both disagreeing). Secrets are not
    /// checked (the sandbox registers public clients) except Apple's, whose client secret must at least be an
    /// ES256 JWT naming the client, as Apple's is.
    func authenticateClient(
        _ request: HTTPRequest, form: [String: String],
        profile: OIDCProfile, endpoints paths: [String] = ["/token"]
    ) throws(OAuthError) -> String {
        if form["client_assertion"] != nil || form["client_assertion_type"] != nil {
            guard !ClientCredentials.hasBasic(request), form["client_secret"] == nil else {
                throw .invalidRequest("a client authenticates one way only (RFC 6749 2.3)")
            }
            return try assertedClient(form, profile: profile, endpoints: paths.map { endpoint(profile, $0) })
        }
        let basic = ClientCredentials.basic(request)
        if ClientCredentials.hasBasic(request) && basic == nil {
            throw .invalidClient("the Basic authorization header is malformed")
        }
        if let basic, let bodyID = form["client_id"], bodyID != basic.clientID {
            throw .invalidRequest("client_id in the body and in the Authorization header differ")
        }
        guard let clientID = basic?.clientID ?? form["client_id"], !clientID.isEmpty else {
            throw .invalidClient("client authentication failed: no client_id")
        }
        guard accepts(clientID: clientID, at: profile) else {
            throw .invalidClient("the client is not registered with the \(profile.rawValue) profile")
        }
        guard context.configuration.assertionClients[clientID] == nil else {
            throw .invalidClient("this client authenticates with a signed JWT (client_assertion)")
        }
        if profile == .apple, let secret = basic?.secret ?? form["client_secret"] {
            guard let parts = try? JWS.decodeUnverified(secret), let header = JSONText.object(parts.header),
                let claims = JSONText.object(parts.payload), header["alg"] as? String == "ES256",
                claims["sub"] as? String == clientID
            else {
                throw .invalidClient("client_secret must be an ES256 JWT whose sub is the client id")
            }
        }
        return clientID
    }

    /// The thumbprint of the key of the request's DPoP proof, checked (RFC 9449 4.3) and spent; nil without one.
    func dpopKey(_ request: HTTPRequest, url: String, accessToken: String? = nil) throws(OAuthError) -> String? {
        guard
            let proof = try DPoPProofCheck.verify(
                request, url: url, accessToken: accessToken, now: Int64(context.clock.seconds))
        else { return nil }
        guard grants.withLock({ $0.spendProof(jti: proof.jti) }) else {
            throw DPoPProofCheck.invalid("the DPoP proof's jti was used before")
        }
        return proof.jkt
    }

    // MARK: - Grants

    private func authorizationCodeGrant(
        _ form: [String: String], profile: OIDCProfile,
        clientID: String, jkt: String?
    ) throws(OAuthError) -> [String: Any] {
        guard let code = form["code"], !code.isEmpty else { throw .invalidRequest("code is required") }
        guard let redirectURI = form["redirect_uri"] else { throw .invalidRequest("redirect_uri is required") }
        guard let verifier = form["code_verifier"] else {
            throw .invalidRequest("code_verifier is required (PKCE)")
        }
        let grantID = try random()
        let redeemed = try redeem(
            code: code, profile: profile, clientID: clientID, redirectURI: redirectURI,
            verifier: verifier, grantID: grantID)
        if let bound = redeemed.value.dpopJKT, bound != jkt {
            throw .invalidGrant("the DPoP proof's key is not the one dpop_jkt named in the authorization request")
        }
        return try issueTokens(
            profile: profile, clientID: clientID, user: redeemed.user, scope: redeemed.value.scope,
            nonce: redeemed.value.nonce, grantID: grantID, jkt: jkt, acr: redeemed.value.acr)
    }

    /// Redeems a code once: it is gone after this call whether or not the checks pass, and a second redemption
    /// revokes whatever the first one issued (`grantID`, the grant its tokens will belong to), or is still issuing.
    func redeem(
        code: String, profile: OIDCProfile, clientID: String, redirectURI: String,
        verifier: String, grantID: String? = nil
    ) throws(OAuthError) -> RedeemedCode {
        let now = context.clock.now
        let value: OIDCGrants.Code
        switch grants.withLock({ $0.redeem(code: code, now: now, grantID: grantID) }) {
        case .redeemed(let found): value = found
        case .replayed: throw .invalidGrant("the authorization code was already used")
        case .unknown: throw .invalidGrant("the authorization code is unknown")
        }
        guard now - value.issuedAt <= Double(context.configuration.codeLifetime) else {
            throw .invalidGrant("the authorization code has expired")
        }
        guard value.profile == profile, value.clientID == clientID else {
            throw .invalidGrant("the authorization code was issued to another client")
        }
        guard value.redirectURI == redirectURI else {
            throw .invalidGrant("redirect_uri does not match the one of the authorization request")
        }
        guard Self.isVerifier(verifier) else {
            throw .invalidGrant("code_verifier must be 43 to 128 unreserved characters")
        }
        guard ConstantTime.equals(PublishedChecks.s256Challenge(of: verifier), value.challenge) else {
            throw .invalidGrant("code_verifier does not match the code_challenge")
        }
        guard let user = context.user(named: value.userName) else { throw .invalidGrant("the user is gone") }
        return RedeemedCode(code: code, value: value, user: user)
    }

    private func refreshGrant(
        _ form: [String: String], profile: OIDCProfile,
        clientID: String, jkt: String?
    ) throws(OAuthError) -> [String: Any] {
        guard let refreshToken = form["refresh_token"], !refreshToken.isEmpty else {
            throw .invalidRequest("refresh_token is required")
        }
        let found: OIDCGrants.Token
        let rotation = grants.withLock { current in
            let result = current.rotate(refreshToken: refreshToken, profile: profile, clientID: clientID)
            keep(current)
            return result
        }
        switch rotation {
        case .rotated(let token): found = token
        case .mismatched: throw .invalidGrant("the refresh token was issued to another client")
        case .replayed: throw .invalidGrant("the refresh token was already used; the grant is revoked")
        case .unknown: throw .invalidGrant("the refresh token is unknown or revoked")
        }
        // RFC 9449 section 5: a public client's refresh token is bound to the key it was issued with.
        if let bound = found.jkt, bound != jkt {
            throw .invalidGrant("the refresh token is bound to a DPoP key this request did not prove")
        }
        var scope = found.scope
        if let asked = form["scope"] {
            let granted = Set(found.scope.split(separator: " "))
            guard Set(asked.split(separator: " ")).isSubset(of: granted) else {
                throw .invalidScope("a refresh cannot widen the scope")
            }
            scope = asked
        }
        guard let user = context.user(named: found.userName) else { throw .invalidGrant("the user is gone") }
        return try issueTokens(
            profile: profile, clientID: clientID, user: user, scope: scope, nonce: nil,
            grantID: found.grantID, jkt: jkt)
    }

    private func deviceGrant(
        _ form: [String: String], profile: OIDCProfile,
        clientID: String, jkt: String?
    ) throws(OAuthError) -> [String: Any] {
        guard let deviceCode = form["device_code"], !deviceCode.isEmpty else {
            throw .invalidRequest("device_code is required")
        }
        let now = context.clock.now
        switch grants.withLock({ $0.poll(deviceCode: deviceCode, profile: profile, clientID: clientID, now: now) }) {
        case .approved(let device, let userName):
            guard let user = context.user(named: userName) else { throw .invalidGrant("the user is gone") }
            return try issueTokens(
                profile: profile, clientID: clientID, user: user, scope: device.scope, nonce: nil,
                grantID: try random(), jkt: jkt)
        case .pending: throw .device("authorization_pending", "the user has not answered yet")
        case .slowDown: throw .device("slow_down", "polling too fast; wait 5 more seconds between polls")
        case .denied: throw .device("access_denied", "the user denied the request")
        case .expired: throw .device("expired_token", "the device code has expired")
        case .mismatched: throw .invalidGrant("the device code was issued to another client")
        case .unknown: throw .invalidGrant("the device code is unknown")
        }
    }

    // MARK: - Issuing

    /// Access and refresh tokens, plus an ID token where the profile issues them: Apple always, Google and
    /// generic when `openid` was asked for.
    private func issueTokens(
        profile: OIDCProfile, clientID: String, user: SandboxUser, scope: String,
        nonce: String?, grantID: String, jkt: String?, acr: String? = nil
    ) throws(OAuthError) -> [String: Any] {
        let accessToken = try random()
        let refreshToken = try random()
        let now = context.clock.now
        let lifetime = context.configuration.tokenLifetime
        let token = OIDCGrants.Token(
            profile: profile, clientID: clientID, userName: user.name, scope: scope,
            grantID: grantID, expiresAt: now + Double(lifetime), jkt: jkt)
        let recorded = grants.withLock { current in
            let recorded = current.add(accessToken: accessToken, refreshToken: refreshToken, token)
            keep(current)
            return recorded
        }
        guard recorded else { throw .invalidGrant("the grant was revoked: its code or refresh token was used twice") }
        var answer: [String: Any] = [
            "access_token": accessToken, "token_type": jkt == nil ? "Bearer" : "DPoP", "expires_in": lifetime,
            "refresh_token": refreshToken, "scope": scope,
        ]
        let wantsIDToken = profile == .apple || scope.split(separator: " ").contains("openid")
        if profile.issuesIDToken && wantsIDToken {
            answer["id_token"] = try idToken(
                profile: profile, audience: clientID, user: user, nonce: nonce, acr: acr)
        }
        return answer
    }

    /// An ID token of `profile`, signed with the profile's algorithm; also what the Turnkey proxy hands out as
    /// the oidcToken of Discord and X logins.
    func idToken(
        profile: OIDCProfile, audience: String, user: SandboxUser,
        nonce: String?, acr: String? = nil
    ) throws(OAuthError) -> String {
        let now = context.clock.seconds
        var claims: [String: Any] = [
            "iss": context.issuer(profile), "aud": audience, "azp": audience, "sub": user.subject(at: profile),
            "iat": now, "exp": now + context.configuration.tokenLifetime, "auth_time": now, "name": user.displayName,
        ]
        if let email = user.email {
            claims["email"] = email
            claims["email_verified"] = true
        }
        if let nonce { claims["nonce"] = nonce }
        if let acr { claims["acr"] = acr }
        do {
            return try context.keys.sign(claims, algorithm: profile.signingAlgorithm)
        } catch {
            throw .serverError("the sandbox could not sign the ID token")
        }
    }

    func random() throws(OAuthError) -> String {
        do {
            return try context.randomToken()
        } catch {
            throw .serverError("the sandbox could not draw random bytes")
        }
    }

    /// RFC 7636 4.1: 43–128 characters of `[A-Za-z0-9-._~]`.
    static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
                    || "-._~".unicodeScalars.contains($0)
            }
    }
}
