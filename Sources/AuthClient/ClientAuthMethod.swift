import AuthCore

/// The client authentication methods authdeck speaks, by their names in discovery documents
/// (`token_endpoint_auth_methods_supported`, RFC 8414 section 2) and in config.json's `tokenEndpointAuthMethod`.
public enum ClientAuthMethod: String, Equatable, Sendable, Codable, CaseIterable {
    /// HTTP Basic: the default for a confidential client (RFC 6749 2.3.1, OIDC Discovery's default too).
    case clientSecretBasic = "client_secret_basic"
    /// The secret in the request body.
    case clientSecretPost = "client_secret_post"
    /// A public client: the id only, PKCE binds the code.
    case none

    /// The method to use: the operator's choice when set; without a secret `none`; with one `client_secret_basic`
    /// unless the provider lists methods without it, then `client_secret_post` if listed.
    /// - Parameters:
    ///   - configured: config.json's `tokenEndpointAuthMethod`.
    ///   - supported: what discovery lists for the endpoint; nil when it says nothing (the default then is Basic).
    ///   - hasSecret: whether a client secret is configured.
    ///   - endpoint: for the message, "token endpoint" or "revocation endpoint".
    public static func choose(
        configured: String?, supported: [String]?, hasSecret: Bool,
        endpoint: String
    ) throws(SignInError) -> ClientAuthMethod {
        if let configured {
            guard let method = ClientAuthMethod(rawValue: configured) else {
                let names = allCases.map(\.rawValue).joined(separator: ", ")
                throw .unavailable(reason: "tokenEndpointAuthMethod '\(configured)' is not one of \(names)")
            }
            if method != .none, !hasSecret {
                throw .unavailable(
                    reason: "tokenEndpointAuthMethod \(configured) needs a client secret "
                        + "(clientSecretFile or --client-secret-file)")
            }
            return method
        }
        guard hasSecret else { return .none }
        guard let supported, !supported.isEmpty else { return .clientSecretBasic }
        if supported.contains(ClientAuthMethod.clientSecretBasic.rawValue) { return .clientSecretBasic }
        if supported.contains(ClientAuthMethod.clientSecretPost.rawValue) { return .clientSecretPost }
        let listed = supported.prefix(6).map { OAuthErrorResponse.printable($0) }.joined(separator: ", ")
        throw .unavailable(
            reason: "the provider's \(endpoint) takes neither client_secret_basic nor "
                + "client_secret_post (it lists \(listed)); set tokenEndpointAuthMethod or drop the client secret")
    }
}
