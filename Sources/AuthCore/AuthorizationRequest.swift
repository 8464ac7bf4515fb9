import Foundation

/// The authorize URL of an authorization-code + PKCE request (RFC 6749 4.1.1, RFC 7636, OIDC Core 3.1.2.1).
public struct AuthorizationRequest: Equatable, Sendable {
    public var endpoint: String
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    public var state: String
    public var codeChallenge: String
    public var nonce: String?
    /// `form_post` for Apple; nil leaves the provider's default (query).
    public var responseMode: String?
    /// Provider-specific extras (`prompt`, `access_type`, `sandbox_user`…), appended last in order.
    public var extraParameters: [(String, String)]
    /// What the operator asked for (`prompt`, `max_age`, `resource`, `--param`…), after everything else, so PAR and
    /// request objects carry it too.
    public var options: AuthorizationOptions

    public init(
        endpoint: String, clientID: String, redirectURI: String, scopes: [String], state: String,
        codeChallenge: String, nonce: String? = nil, responseMode: String? = nil,
        extraParameters: [(String, String)] = [], options: AuthorizationOptions = AuthorizationOptions()
    ) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.responseMode = responseMode
        self.extraParameters = extraParameters
        self.options = options
    }

    public var parameters: [(String, String)] {
        var pairs: [(String, String)] = [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI),
            ("scope", scopes.joined(separator: " ")),
            ("state", state),
            ("code_challenge", codeChallenge),
            ("code_challenge_method", PKCE.method),
        ]
        if let nonce { pairs.append(("nonce", nonce)) }
        if let responseMode { pairs.append(("response_mode", responseMode)) }
        return pairs + extraParameters + options.parameters
    }

    /// The endpoint with the parameters appended; an endpoint that already has a query keeps it.
    /// Throws `unavailable` when the endpoint is not an absolute http(s) URL.
    public func url() throws(SignInError) -> String {
        try url(parameters: parameters)
    }

    /// The endpoint with other parameters than these (a request object's or a pushed request's few).
    public func url(parameters: [(String, String)]) throws(SignInError) -> String {
        guard let parsed = URLComponents(string: endpoint), parsed.scheme == "https" || parsed.scheme == "http",
            let host = parsed.host, !host.isEmpty, parsed.fragment == nil
        else {
            throw .unavailable(reason: "the authorize endpoint is not an absolute http(s) URL")
        }
        let separator = endpoint.contains("?") ? (endpoint.hasSuffix("?") || endpoint.hasSuffix("&") ? "" : "&") : "?"
        return endpoint + separator + FormEncoding.encode(parameters)
    }

    public static func == (lhs: AuthorizationRequest, rhs: AuthorizationRequest) -> Bool {
        lhs.endpoint == rhs.endpoint && lhs.clientID == rhs.clientID && lhs.redirectURI == rhs.redirectURI
            && lhs.scopes == rhs.scopes && lhs.state == rhs.state && lhs.codeChallenge == rhs.codeChallenge
            && lhs.nonce == rhs.nonce && lhs.responseMode == rhs.responseMode
            && lhs.extraParameters.elementsEqual(rhs.extraParameters, by: ==) && lhs.options == rhs.options
    }
}
