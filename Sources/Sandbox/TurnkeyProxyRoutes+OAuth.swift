import AuthCore
import AuthCrypto

/// A social identity proven by an ID token (or oidcToken) this sandbox signed.
struct VerifiedIdentity {
    let profile: OIDCProfile?
    let issuer: String
    let subject: String
    let email: String?
    let nonce: String?
    /// The token's `aud`, one or several client ids.
    var audiences: [String] = []

    /// How accounts link the identity.
    var key: String { "\(issuer) \(subject)" }
}

extension TurnkeyProxyRoutes {
    /// Discord and X have no ID token: the proxy exchanges the code at the provider itself (here, the sandbox's
    /// own profile, in process) and hands back an oidcToken it signs, carrying the client's nonce.
    func oauth2Authenticate(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let providerName = try Self.required(body, "provider")
        let profile: OIDCProfile
        // The contract's v1Oauth2Provider, spelled exactly (the schema check already refused anything else).
        switch providerName {
        case "OAUTH2_PROVIDER_DISCORD": profile = .discord
        case "OAUTH2_PROVIDER_X": profile = .x
        default: throw .invalidArgument("provider must be OAUTH2_PROVIDER_X or OAUTH2_PROVIDER_DISCORD")
        }
        let code = try Self.required(body, "authCode")
        let redirectURI = try Self.required(body, "redirectUri")
        let verifier = try Self.required(body, "codeVerifier")
        let clientID = try Self.required(body, "clientId")
        let nonce = JSONText.string(body, "nonce")
        let redeemed: RedeemedCode
        do {
            redeemed = try oidc.redeem(
                code: code, profile: profile, clientID: clientID, redirectURI: redirectURI,
                verifier: verifier)
        } catch {
            throw .unauthenticated("the \(profile.rawValue) code exchange failed: \(error.description)")
        }
        do {
            return [
                "oidcToken": try oidc.idToken(
                    profile: profile, audience: clientID, user: redeemed.user,
                    nonce: nonce)
            ]
        } catch {
            throw .internal("the sandbox could not sign the oidcToken")
        }
    }

    /// Logs in with an ID token whose nonce binds it to the session key: `nonce == hex(sha256(publicKey))`.
    func oauthLogin(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let token = try Self.required(body, "oidcToken")
        let publicKey = try Self.sessionPublicKey(body)
        let identity = try verifiedOIDCToken(token)
        let expected = AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: publicKey)
        guard let nonce = identity.nonce, ConstantTime.equals(nonce, expected) else {
            throw .unauthenticated("the oidcToken's nonce is not sha256(publicKey)")
        }
        let tokenHash = Hex.encode(SHA256.hash(token))
        let account = try state.withLock { (accounts) throws(ProxyError) -> ProxyAccounts.Account in
            guard let found = accounts.account(identity: identity.key) else {
                throw .notFound("no account for this identity; sign up first")
            }
            // The sub-organization's OIDC providers are issuer, subject and audience: a token for a client id
            // signup did not register (as the primary or a secondary one) is another provider.
            if let registered = found.audiences[identity.key], registered.isDisjoint(with: identity.audiences) {
                throw .unauthenticated("the oidcToken's audience is not a client id this account registered")
            }
            guard accounts.spentOIDCTokens.insert(tokenHash).inserted else {
                throw .unauthenticated("the oidcToken was already used to log in")
            }
            return found
        }
        if let organizationID = JSONText.string(body, "organizationId"), organizationID != account.organizationID {
            throw .permissionDenied("the account belongs to another organization")
        }
        return try sessionOrChallenge(account: account, publicKey: publicKey)
    }

    /// Checks signature, issuer (one of the profiles, or a trusted outside issuer), expiry and audience of an ID
    /// token or oidcToken.
    func verifiedOIDCToken(_ token: String) throws(ProxyError) -> VerifiedIdentity {
        if let outside = try outsideIssuerClaims(token) { return try identity(outside, profile: nil) }
        guard let claims = context.keys.verifiedClaims(token) ?? context.faults.claimsSignedByRotatedKeys(token) else {
            throw .unauthenticated("the oidcToken's signature does not verify")
        }
        guard let issuer = claims["iss"] as? String, let profile = context.profile(issuer: issuer) else {
            throw .unauthenticated("the oidcToken's issuer is not a sandbox profile")
        }
        return try identity(claims, profile: profile)
    }

    /// The claims of a token whose `iss` names a trusted outside issuer, verified against that issuer's JWKS (RFC
    /// 7515 with the keys of RFC 7517, as OpenID Connect Core 3.1.3.7 checks an ID token); nil for any other token.
    private func outsideIssuerClaims(_ token: String) throws(ProxyError) -> [String: Any]? {
        let trusted = context.configuration.trustedIssuers
        guard !trusted.isEmpty, token.utf8.count <= 8192, let parts = try? JWS.decodeUnverified(token),
            let claimed = JSONText.object(parts.payload), let issuer = claimed["iss"] as? String,
            let jwks = trusted[issuer]
        else { return nil }
        guard let verified = try? JWS.verify(token, jwks: jwks),
            let claims = JSONText.object(verified.payload), claims["iss"] as? String == issuer
        else {
            throw .unauthenticated("the oidcToken's signature does not verify with \(issuer)'s keys")
        }
        return claims
    }

    /// Expiry, subject and audience, the checks every issuer's token gets.
    private func identity(_ claims: [String: Any], profile: OIDCProfile?) throws(ProxyError) -> VerifiedIdentity {
        let issuer = claims["iss"] as? String ?? ""
        guard let expiry = claims["exp"] as? Int, Double(expiry) > context.clock.now else {
            throw .unauthenticated("the oidcToken has expired")
        }
        guard let subject = claims["sub"] as? String, !subject.isEmpty else {
            throw .unauthenticated("the oidcToken has no subject")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard !audiences.isEmpty else { throw .unauthenticated("the oidcToken has no audience") }
        if let profile, let configured = context.configuration.clientIDs?[profile], !audiences.contains(configured) {
            // A secondary client id signup registered for this identity is as good as the configured one.
            let key = "\(issuer) \(subject)"
            let registered = state.withLock { $0.account(identity: key)?.audiences[key] ?? [] }
            guard !registered.isDisjoint(with: audiences) else {
                throw .unauthenticated("the oidcToken was issued to another client")
            }
        }
        return VerifiedIdentity(
            profile: profile, issuer: issuer, subject: subject, email: claims["email"] as? String,
            nonce: claims["nonce"] as? String, audiences: audiences)
    }
}
