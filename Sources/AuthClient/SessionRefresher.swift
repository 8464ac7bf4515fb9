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

    public init(transport: HTTPTransport, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.transport = transport
        self.clock = clock
    }


    private func client(_ endpoints: SessionEndpoints) throws(SignInError) -> OAuthClient {
        let authentication: ClientAuthentication
        if let file = endpoints.clientSecretFile {
            authentication = .secret(try ProviderResolver.readClientSecret(file))
        } else {
            authentication = .none
        }
        return OAuthClient(transport: transport, clientID: endpoints.clientID, authentication: authentication)
    }

    /// A refreshed copy of the session: new access token and expiry; the refresh token rotated when the provider
    /// rotates it, kept otherwise; a new ID token when one comes.
    public func refresh(_ session: Session) throws(SignInError) -> Session {
        guard let refreshToken = session.secrets.refreshToken else {
            throw .unavailable(reason: "session '\(session.record.key)' has no refresh token; sign in again")
        }
        guard let endpoints = session.secrets.endpoints else {
            throw .unavailable(reason: "session '\(session.record.key)' does not say where to refresh it; sign in again")
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
        guard let endpoints = session.secrets.endpoints, let revocation = endpoints.revocation else {
            throw .unavailable(reason: "the provider of session '\(session.record.key)' has no revocation endpoint")
        }
        let oauth = try client(endpoints)
        if let refreshToken = session.secrets.refreshToken {
            try oauth.revoke(refreshToken, hint: "refresh_token", endpoint: revocation)
        }
        if let accessToken = session.secrets.accessToken {
            try oauth.revoke(accessToken, hint: "access_token", endpoint: revocation)
        }
    }

    /// Asks the user endpoint whether the access token still works.
    public func check(_ session: Session) throws(SignInError) -> RemoteTokenStatus {
        guard let endpoint = session.secrets.endpoints?.user, let token = session.secrets.bearer else { return .unknown }
        let response = try transport.send(OutgoingRequest(url: endpoint, headers: [
            ("Authorization", "Bearer " + token), ("Accept", "application/json"),
        ]))
        if (200..<300).contains(response.status) { return .valid }
        if response.status == 401 || response.status == 403 { return .refused(response.status) }
        throw .network(message: "HTTP \(response.status) from \(URLSessionTransport.redacted(endpoint))")
    }
}
