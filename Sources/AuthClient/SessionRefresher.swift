import AuthCore
import Foundation

/// What the server says about a session's access token.
public enum RemoteTokenStatus: Equatable, Sendable {
    /// The user endpoint accepted the token.
    case valid
    /// The user endpoint refused it (revoked or expired at the server).
    case refused(Int)
    /// Nothing to ask: the session has no user endpoint.
    case unknown
}

/// What today's config.json (and discovery) say of a stored session's provider: its endpoints and the client
/// configured for it there, with the secret read from config.json's file.
public struct CurrentProvider: Sendable {
    public var endpoints: ProviderEndpoints
    /// The configured client id; nil when only the endpoints are known.
    public var clientID: String?
    public var authentication: ClientAuthentication
    /// How the client authenticates at the revocation endpoint; nil means as at the token endpoint.
    public var revocationAuthentication: ClientAuthentication?
    /// Where refreshed ID tokens are checked against the issuer's keys (the JWKS cache).
    public var metadata: ProviderMetadataCache?
    /// config.json's `requestHeaders` and `tokenParameters` for the provider: what its refresh, revocation and
    /// introspection requests carry as its sign-ins' do.
    public var requestHeaders: [(String, String)] = []
    public var tokenParameters: [(String, String)] = []

    public init(
        endpoints: ProviderEndpoints, clientID: String? = nil, authentication: ClientAuthentication = .none,
        revocationAuthentication: ClientAuthentication? = nil, metadata: ProviderMetadataCache? = nil
    ) {
        self.endpoints = endpoints
        self.clientID = clientID
        self.authentication = authentication
        self.revocationAuthentication = revocationAuthentication
        self.metadata = metadata
    }

    public init(_ resolved: ResolvedProvider, metadata: ProviderMetadataCache?) {
        self.init(
            endpoints: resolved.endpoints, clientID: resolved.clientID, authentication: resolved.authentication,
            revocationAuthentication: resolved.revocationAuthentication, metadata: metadata)
        requestHeaders = resolved.authorizationOptions.requestHeaders
        tokenParameters = resolved.authorizationOptions.tokenParameters
    }
}

/// Refresh, revocation and server checks of stored direct sessions, with the endpoints kept in their secrets.
///
/// A client secret goes only to the issuer it was configured for: a session signed in here keeps the secret file
/// its sign-in read (and its endpoints); a session without one (imported: imports never carry a secret file; or
/// stored before sign-ins marked the file as theirs) takes
/// its secret from today's config.json entry for its provider and backend, only when that entry resolves to the
/// session's issuer, and then sends it to that entry's endpoints, never to the ones stored with the session.
public struct SessionRefresher: Sendable {
    public let transport: HTTPTransport
    public let clock: @Sendable () -> Date
    /// What the current configuration and discovery say of a session's provider; nil when it cannot be resolved now.
    public let currentProvider: (@Sendable (SessionRecord) -> CurrentProvider?)?

    public init(
        transport: HTTPTransport, clock: @escaping @Sendable () -> Date = { Date() },
        currentProvider: (@Sendable (SessionRecord) -> CurrentProvider?)? = nil
    ) {
        self.transport = transport
        self.clock = clock
        self.currentProvider = currentProvider
    }

    /// The client that authenticates a request of `session`, and the endpoint it goes to: the session's own
    /// (secret file, method and endpoint as at sign-in; sessions stored before the method was recorded sent their
    /// secret in the body, and keep doing so), or the configured client's for a session with no secret file of its
    /// own. `configured` is `current(session)`, looked up once per call. Nil endpoint: neither names one.
    private func client(
        _ endpoints: SessionEndpoints, configured: CurrentProvider?, revocation: Bool = false
    ) throws(SignInError) -> (OAuthClient, endpoint: String?) {
        let stored = revocation ? endpoints.revocation : endpoints.token
        // config.json's headers for the provider, which `current` named only for the session's own issuer.
        var transport = self.transport
        if let headers = configured?.requestHeaders, !headers.isEmpty {
            transport = ProviderHeadersTransport(inner: transport, headers: headers)
        }
        // A file is followed only when this session's sign-in read it here. One stored before sign-ins marked
        // their files (imports used to keep the path a line named) is treated as no file of its own: the
        // configured client for its issuer, at that client's endpoints, or none.
        if endpoints.hasOwnClientFiles {
            let authentication = try endpoints.authentication(revocation: revocation)
            let oauth = OAuthClient(transport: transport, clientID: endpoints.clientID, authentication: authentication)
            return (oauth, stored ?? (revocation ? configured?.endpoints.revocation : nil))
        }
        if let configured, configured.authentication != .none {
            let authentication =
                revocation
                ? configured.revocationAuthentication ?? configured.authentication : configured.authentication
            let oauth = OAuthClient(
                transport: transport, clientID: configured.clientID ?? endpoints.clientID,
                authentication: authentication)
            return (oauth, revocation ? configured.endpoints.revocation : configured.endpoints.token)
        }
        let oauth = OAuthClient(transport: transport, clientID: endpoints.clientID, authentication: .none)
        return (oauth, stored ?? (revocation ? configured?.endpoints.revocation : nil))
    }

    /// The current provider, only when it is still the issuer the session signed in with: tokens and secrets are
    /// never sent to a server the session did not come from.
    private func current(_ session: Session) -> CurrentProvider? {
        guard let found = currentProvider?(session.record), found.endpoints.issuer == session.record.issuer else {
            return nil
        }
        return found
    }

    /// A refreshed copy of the session: new access token and expiry; the refresh token rotated when the provider
    /// rotates it, kept otherwise; a new ID token when one comes and it passes OIDC Core 12.2's checks against
    /// the issuer's keys (one that cannot be checked, the issuer's keys being unknown here, is not kept).
    /// A machine session (client credentials) has no refresh token: it is renewed by asking again with the client's
    /// credentials, for the scopes it holds.
    public func refresh(_ session: Session) throws(SignInError) -> Session {
        guard let endpoints = session.secrets.endpoints else {
            throw .unavailable(
                reason: "session '\(session.record.key)' does not say where to refresh it; sign in again")
        }
        let refreshToken = session.secrets.refreshToken
        guard refreshToken != nil || endpoints.isMachineSession else {
            throw .unavailable(reason: "session '\(session.record.key)' has no refresh token; sign in again")
        }
        let configured = current(session)
        var (oauth, endpoint) = try client(endpoints, configured: configured)
        let prover = try DPoPProver(session: session.secrets, clock: clock)
        oauth.dpop = prover
        let tokens: TokenResponse
        if let refreshToken {
            tokens = try oauth.refresh(
                refreshToken, endpoint: endpoint ?? endpoints.token, extra: configured?.tokenParameters ?? [])
        } else {
            tokens = try oauth.clientCredentials(scopes: session.record.scopes, endpoint: endpoint ?? endpoints.token)
        }
        let now = clock()
        var refreshed = session
        if let prover {
            do throws(SignInError) {
                try DPoPProver.checkBound(tokens)
            } catch {
                throw error.adding("the session was kept as it was")
            }
            refreshed.secrets.dpopNonce = prover.nonce
        }
        refreshed.secrets.accessToken = tokens.accessToken
        if let rotated = tokens.refreshToken { refreshed.secrets.refreshToken = rotated }
        if let idToken = tokens.idToken,
            try verified(idToken, of: session, configured: configured, clientID: oauth.clientID, now: now)
        {
            refreshed.secrets.idToken = idToken
        }
        refreshed.record.expiresAt = tokens.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
        refreshed.record.refreshable = refreshed.secrets.refreshToken != nil || endpoints.isMachineSession
        if let scope = tokens.scope { refreshed.record.scopes = scope }
        return refreshed
    }

    /// Whether a refreshed ID token may be stored: true when it verifies as at sign-in and names the same issuer
    /// and subject (OIDC Core 12.2), false when the issuer's keys are unknown here; a token that fails is an error.
    private func verified(
        _ idToken: String, of session: Session, configured: CurrentProvider?, clientID: String, now: Date
    ) throws(SignInError) -> Bool {
        guard let configured, let metadata = configured.metadata,
            let jwks = configured.endpoints.jwks
        else { return false }
        let verifier = IDTokenVerifier(issuer: session.record.issuer, clientID: clientID, nonce: nil)
        let kept = "the session was kept as it was"
        let claims: IDTokenClaims
        do {
            claims = try metadata.verify(idToken, with: verifier, jwksURL: jwks, now: now)
        } catch {
            throw error.adding(kept)
        }
        guard claims.subject == session.record.subject else {
            throw .invalidIdToken(reason: "the refreshed one names another subject; \(kept)")
        }
        return true
    }

    /// Revokes the refresh token (which ends the grant at most providers) and the access token (RFC 7009).
    public func revoke(_ session: Session) throws(SignInError) {
        guard let endpoints = session.secrets.endpoints else {
            throw .unavailable(reason: "the provider of session '\(session.record.key)' has no revocation endpoint")
        }
        var (oauth, endpoint) = try client(endpoints, configured: current(session), revocation: true)
        oauth.dpop = try DPoPProver(session: session.secrets, clock: clock)
        guard let revocation = endpoint else {
            throw .unavailable(reason: "the provider of session '\(session.record.key)' has no revocation endpoint")
        }
        if let refreshToken = session.secrets.refreshToken {
            try oauth.revoke(refreshToken, hint: "refresh_token", endpoint: revocation)
        }
        if let accessToken = session.secrets.accessToken {
            try oauth.revoke(accessToken, hint: "access_token", endpoint: revocation)
        }
    }

    /// Asks the introspection endpoint about the access token (RFC 7662), the client authenticating as at the token
    /// endpoint (with its DPoP key and certificate as configured). The endpoint is today's configured provider's for
    /// the session's issuer, else `discovered`'s (the issuer's own discovery, at its mutual TLS alias for a client
    /// that presents a certificate). Returns the answer's members as they came.
    public func introspect(_ session: Session, discovered: ProviderEndpoints?) throws(SignInError) -> [String:
        JSONValue]
    {
        guard let token = session.secrets.accessToken else {
            throw .unavailable(reason: "session '\(session.record.key)' holds no access token to ask about")
        }
        let configured = current(session)
        var oauth: OAuthClient
        if let endpoints = session.secrets.endpoints {
            oauth = try client(endpoints, configured: configured).0
        } else if let configured, let clientID = configured.clientID {
            oauth = OAuthClient(transport: transport, clientID: clientID, authentication: configured.authentication)
        } else {
            throw .unavailable(reason: "session '\(session.record.key)' does not say which client it belongs to")
        }
        let fallback = oauth.authentication.certificate == nil ? discovered : discovered?.usingMTLSAliases()
        guard let endpoint = configured?.endpoints.introspection ?? fallback?.introspection else {
            throw .unavailable(
                reason: "the provider of session '\(session.record.key)' has no introspection endpoint "
                    + "(none in its discovery or RFC 8414 metadata)")
        }
        oauth.dpop = try DPoPProver(session: session.secrets, clock: clock)
        return try oauth.introspect(token, hint: "access_token", endpoint: endpoint)
    }

    /// Asks the user endpoint whether the access token still works.
    public func check(_ session: Session) throws(SignInError) -> RemoteTokenStatus {
        guard let token = session.secrets.bearer,
            let endpoint = session.secrets.endpoints?.user ?? current(session)?.endpoints.userinfo
        else { return .unknown }
        let prover = session.secrets.isDPoPBound ? try DPoPProver(session: session.secrets, clock: clock) : nil
        var request = OutgoingRequest(url: endpoint)
        request.clientCertificate = try certificate(of: session)
        let response = try UserEndpoint.send(request, accessToken: token, dpop: prover, via: transport)
        if (200..<300).contains(response.status) { return .valid }
        if response.status == 401 || response.status == 403 { return .refused(response.status) }
        throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
    }

    /// The certificate a mutual TLS session's tokens are bound to (RFC 8705 3), presented with them wherever they
    /// go; nil for a session of another client authentication method.
    private func certificate(of session: Session) throws(SignInError) -> ClientCertificate? {
        guard let endpoints = session.secrets.endpoints,
            let method = endpoints.tokenAuthMethod.flatMap(ClientAuthMethod.init(rawValue:)),
            method == .tlsClientAuth || method == .selfSignedTLSClientAuth
        else { return nil }
        return try client(endpoints, configured: current(session)).0.authentication.certificate
    }
}
