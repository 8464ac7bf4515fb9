/// What a session's Details screen says about its token beyond the clear-text record: how it is bound and how the
/// client authenticated. The event loop reads it from the session's sealed half when Details opens.
public struct SessionBinding: Equatable, Sendable {
    /// The session it describes.
    public var key: String
    /// The access token's type as the token endpoint named it (`DPoP`, `Bearer`).
    public var tokenType: String
    /// DPoP (RFC 9449): the RFC 7638 thumbprint of the session's key, the `jkt` its tokens are bound to.
    public var dpopThumbprint: String?
    /// Mutual TLS (RFC 8705): the SHA-256 thumbprint of the client certificate (`x5t#S256`) the tokens are bound
    /// to, when the session holds one.
    public var certificateThumbprint: String?
    /// How the client authenticated at the token endpoint (`private_key_jwt`, `client_secret_basic`…); nil when
    /// the session does not say (an auth proxy's, or one stored before authdeck recorded it).
    public var clientAuthMethod: String?
    /// The grant the tokens came from when no user signed in through a browser or device (client credentials,
    /// CIBA, token exchange), and for a token exchange the session it was derived from.
    public var grant: String?
    public var parentSession: String?

    public init(
        key: String, tokenType: String, dpopThumbprint: String? = nil, certificateThumbprint: String? = nil,
        clientAuthMethod: String? = nil
    ) {
        self.key = key
        self.tokenType = tokenType
        self.dpopThumbprint = dpopThumbprint
        self.certificateThumbprint = certificateThumbprint
        self.clientAuthMethod = clientAuthMethod
    }

    /// The Details screen's "Grant" line: how a session that was not a browser or device sign-in came to be; nil
    /// for those.
    public var grantLine: String? {
        if let parentSession { return "token exchange of session '\(parentSession)' (its parent)" }
        switch grant {
        case "client_credentials": return "client credentials: a machine session, no user (renewed by asking again)"
        case "urn:openid:params:grant-type:ciba": return "CIBA: approved on the user's own device"
        case let other?: return other
        case nil: return nil
        }
    }

    /// The Details screen's "Token" line: the type and what binds it (whole: a thumbprint is compared by eye).
    public var tokenLine: String {
        var parts = [tokenType]
        if let dpopThumbprint { parts.append("jkt " + dpopThumbprint) }
        if let certificateThumbprint { parts.append("x5t#S256 " + certificateThumbprint) }
        if dpopThumbprint == nil, certificateThumbprint == nil { return tokenType + " (not bound to a key)" }
        return parts.joined(separator: " · ")
    }
}
