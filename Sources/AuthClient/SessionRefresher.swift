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

/// Refresh, revocation and server checks of stored direct sessions, with the endpoints kept in their secrets.
public struct SessionRefresher: Sendable {
    public let transport: HTTPTransport
    public let clock: @Sendable () -> Date
    /// What the current configuration and discovery say of a session's provider, for endpoints its stored ones
    /// lack (a revocation endpoint added after it signed in); nil when the provider cannot be resolved now.
    public let currentEndpoints: (@Sendable (SessionRecord) -> ProviderEndpoints?)?

    public init(
        transport: HTTPTransport, clock: @escaping @Sendable () -> Date = { Date() },
        currentEndpoints: (@Sendable (SessionRecord) -> ProviderEndpoints?)? = nil
    ) {
        self.transport = transport
        self.clock = clock
        self.currentEndpoints = currentEndpoints
    }

    /// The client as the session authenticated at sign-in; sessions stored before the method was recorded sent
    /// their secret in the body, and keep doing so.
    private func client(_ endpoints: SessionEndpoints, revocation: Bool = false) throws(SignInError) -> OAuthClient {
        var authentication = ClientAuthentication.none
        if let file = endpoints.clientSecretFile {
            let stored =
                revocation
                ? endpoints.revocationAuthMethod ?? endpoints.tokenAuthMethod
                : endpoints.tokenAuthMethod
            let method = stored.flatMap(ClientAuthMethod.init(rawValue:)) ?? .clientSecretPost
            if method != .none {
                authentication = ClientAuthentication.secret(try ProviderResolver.readClientSecret(file)).using(method)
            }
        }
        return OAuthClient(transport: transport, clientID: endpoints.clientID, authentication: authentication)
    }

    /// The current provider's endpoints, only when it is still the issuer the session signed in with: tokens are
    /// never sent to a server the session did not come from.
    private func current(_ session: Session) -> ProviderEndpoints? {
        guard let found = currentEndpoints?(session.record), found.issuer == session.record.issuer else { return nil }
        return found
    }

    /// A refreshed copy of the session: new access token and expiry; the refresh token rotated when the provider
    /// rotates it, kept otherwise; a new ID token when one comes.
    public func refresh(_ session: Session) throws(SignInError) -> Session {
        guard let refreshToken = session.secrets.refreshToken else {
            throw .unavailable(reason: "session '\(session.record.key)' has no refresh token; sign in again")
        }
        guard let endpoints = session.secrets.endpoints else {
            throw .unavailable(
                reason: "session '\(session.record.key)' does not say where to refresh it; sign in again")
        }
        let tokens = try client(endpoints).refresh(refreshToken, endpoint: endpoints.token)
        let now = clock()
        var refreshed = session
        refreshed.secrets.accessToken = tokens.accessToken
        if let rotated = tokens.refreshToken { refreshed.secrets.refreshToken = rotated }
        if let idToken = tokens.idToken { refreshed.secrets.idToken = idToken }
        refreshed.record.expiresAt = tokens.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
        refreshed.record.refreshable = refreshed.secrets.refreshToken != nil
        if let scope = tokens.scope { refreshed.record.scopes = scope }
        return refreshed
    }

    /// Revokes the refresh token (which ends the grant at most providers) and the access token (RFC 7009).
    public func revoke(_ session: Session) throws(SignInError) {
        guard let endpoints = session.secrets.endpoints,
            let revocation = endpoints.revocation ?? current(session)?.revocation
        else {
            throw .unavailable(reason: "the provider of session '\(session.record.key)' has no revocation endpoint")
        }
        let oauth = try client(endpoints, revocation: true)
        if let refreshToken = session.secrets.refreshToken {
            try oauth.revoke(refreshToken, hint: "refresh_token", endpoint: revocation)
        }
        if let accessToken = session.secrets.accessToken {
            try oauth.revoke(accessToken, hint: "access_token", endpoint: revocation)
        }
    }

    /// Asks the user endpoint whether the access token still works.
    public func check(_ session: Session) throws(SignInError) -> RemoteTokenStatus {
        guard let token = session.secrets.bearer,
            let endpoint = session.secrets.endpoints?.user ?? current(session)?.userinfo
        else { return .unknown }
        let response = try transport.send(
            OutgoingRequest(
                url: endpoint,
                headers: [
                    ("Authorization", "Bearer " + token), ("Accept", "application/json"),
                ]))
        if (200..<300).contains(response.status) { return .valid }
        if response.status == 401 || response.status == 403 { return .refused(response.status) }
        throw OAuthErrorResponse.error(from: response, endpoint: endpoint)
    }
}
