import AuthCore
import AuthCrypto
import LoopbackHTTP

/// A client registered to authenticate with a signed JWT instead of a secret in the request: by its public keys
/// (`private_key_jwt`) or by a secret both sides hold (`client_secret_jwt`, HS256).
public enum SandboxAssertionClient: Sendable, Equatable {
    /// The client's public JWKS (`{"keys": [...]}`).
    case jwks(String)
    case secret(String)
}

extension OIDCRoutes {
    /// RFC 7523 2.2's `client_assertion_type` for a JWT.
    static let jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion may live: a leaked one is worth little.
    static let assertionLifetime = 600.0

    /// The client a `client_assertion` proves, checked as RFC 7523 section 3 and OpenID Connect Core 9 say: the
    /// assertion type; iss and sub both the client id (and the body's `client_id`, when sent, the same); `aud`
    /// naming this server (one of `endpoints`: the URL it was sent to, and at the PAR endpoint the token endpoint's too
    /// as RFC 9126 section 2 says, or the issuer); `exp` in the future
    /// and at most `assertionLifetime` ahead, `nbf` and `iat` not ahead; a `jti` never seen before; and the signature,
    /// verified with the client's registered keys (never `none`, never a key the assertion brings along).
    func assertedClient(
        _ form: [String: String], profile: OIDCProfile, endpoints: [String]
    ) throws(OAuthError) -> String {
        guard form["client_assertion_type"] == Self.jwtBearerAssertion else {
            throw .invalidClient("client_assertion_type must be \(Self.jwtBearerAssertion)")
        }
        guard let assertion = form["client_assertion"], !assertion.isEmpty,
            let parts = try? JWS.decodeUnverified(assertion), let claims = JSONText.object(parts.payload)
        else { throw .invalidClient("client_assertion is not a JWT") }
        guard let issuer = claims["iss"] as? String, claims["sub"] as? String == issuer else {
            throw .invalidClient("the assertion's iss and sub must both be the client id")
        }
        if let bodyID = form["client_id"], bodyID != issuer {
            throw .invalidClient("client_id and the assertion's iss differ")
        }
        guard accepts(clientID: issuer, at: profile), let registered = context.configuration.assertionClients[issuer]
        else {
            throw .invalidClient("the client is not registered for JWT client authentication")
        }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        guard audiences.contains(where: endpoints.contains) || audiences.contains(context.issuer(profile)) else {
            throw .invalidClient("the assertion's aud must be \(endpoints.joined(separator: " or ")) or the issuer")
        }
        let now = context.clock.now
        guard let expiry = Self.seconds(claims["exp"]), expiry > now else {
            throw .invalidClient("the assertion has no exp or has expired")
        }
        guard expiry - now <= Self.assertionLifetime else {
            throw .invalidClient("the assertion lives longer than \(Int(Self.assertionLifetime)) seconds")
        }
        if let notBefore = Self.seconds(claims["nbf"]), notBefore > now + 60 {
            throw .invalidClient("the assertion is not valid yet (nbf)")
        }
        if let issued = Self.seconds(claims["iat"]), issued > now + 60 {
            throw .invalidClient("the assertion was issued in the future (iat)")
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty else {
            throw .invalidClient("the assertion has no jti")
        }
        do {
            switch registered {
            case .jwks(let jwks): _ = try JWS.verify(assertion, jwks: jwks)
            case .secret(let secret): _ = try JWS.verifyHS256(assertion, secret: secret)
            }
        } catch {
            throw .invalidClient("the assertion's signature does not verify with the client's registered key")
        }
        let fresh = usedAssertions.withLock { used in
            used = used.filter { $0.value > now }
            return used.updateValue(expiry, forKey: issuer + " " + jti) == nil
        }
        guard fresh else { throw .invalidClient("the assertion's jti was already used") }
        return issuer
    }

    private static func seconds(_ value: Any?) -> Double? {
        if let number = value as? Int { return Double(number) }
        return value as? Double
    }
}
