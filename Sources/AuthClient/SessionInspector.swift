import AuthCore
import Foundation

/// Inspects a stored session's tokens against its issuer's published keys (`TokenInspection`), for `authdeck
/// inspect` and the TUI's inspector. The keys come through the metadata cache from the JWKS that discovery names:
/// today's config.json provider when it resolves to the session's issuer, else the issuer's own discovery document;
/// a `kid` the cached set lacks fetches it once more, as at sign-in.
public struct SessionInspector: Sendable {
    public let metadata: ProviderMetadataCache
    /// What the current configuration says of a session's provider; nil when it cannot be resolved now.
    public let currentProvider: (@Sendable (SessionRecord) -> CurrentProvider?)?

    public init(
        metadata: ProviderMetadataCache, currentProvider: (@Sendable (SessionRecord) -> CurrentProvider?)? = nil
    ) {
        self.metadata = metadata
        self.currentProvider = currentProvider
    }

    /// The session's issuer's endpoints: the configured provider's when it is that issuer, else its discovery's.
    public func endpoints(_ record: SessionRecord, now: Date) throws(SignInError) -> ProviderEndpoints {
        if let current = currentProvider?(record), current.endpoints.issuer == record.issuer {
            return current.endpoints
        }
        return try metadata.endpoints(
            issuer: record.issuer, discoveryURL: ProviderPreset.discoveryURL(issuer: record.issuer), now: now)
    }

    /// The session's tokens decoded and checked. A session without an ID or access token (an auth proxy's, a
    /// Portal one) says what it holds; one whose tokens are all opaque needs no network.
    /// - Throws: when the issuer's discovery or keys cannot be fetched, so no signature could be checked.
    public func inspect(_ session: Session, now: Date) throws(SignInError) -> TokenInspection {
        let record = session.record
        let secrets = session.secrets
        guard secrets.idToken != nil || secrets.accessToken != nil else {
            return .holding(Self.holdings(session, now: now), key: record.key, issuer: record.issuer, now: now)
        }
        let clientID = secrets.endpoints?.clientID ?? currentProvider?(record)?.clientID
        func inspect(jwks: String?) -> TokenInspection {
            TokenInspection.inspect(
                key: record.key, issuer: record.issuer, clientID: clientID, idToken: secrets.idToken,
                accessToken: secrets.accessToken, jwks: jwks, now: now)
        }
        let tokens = [secrets.idToken, secrets.accessToken].compactMap { $0 }
        guard tokens.contains(where: TokenInspection.looksLikeJWT) else { return inspect(jwks: nil) }
        guard let jwksURL = try endpoints(record, now: now).jwks else { return inspect(jwks: nil) }
        let first = inspect(jwks: try metadata.jwks(jwksURL, refresh: false, now: now))
        guard first.needsFreshKeys else { return first }
        return inspect(jwks: try metadata.jwks(jwksURL, refresh: true, now: now))
    }

    /// What a session without OAuth tokens holds, in the words `inspect` prints.
    static func holdings(_ session: Session, now: Date) -> [String] {
        let secrets = session.secrets
        var holds: [String] = []
        if secrets.sessionJwt != nil {
            holds.append(
                secrets.portalClient != nil
                    ? "a Portal client session token (Portal publishes no keys to check it with)"
                    : "a session JWT from the \(session.record.backend) auth proxy (checked by the proxy, not here)")
        }
        if secrets.privateKeyHex != nil { holds.append("a P-256 session key (authdeck stamp signs with it)") }
        if secrets.refreshToken != nil { holds.append("a refresh token") }
        if let expiresAt = session.record.expiresAt {
            holds.append("expiring " + TokenInspection.time(.number(expiresAt.timeIntervalSince1970), now: now))
        }
        if holds.isEmpty { holds.append("no token") }
        return holds
    }
}
