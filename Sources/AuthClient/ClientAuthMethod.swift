import AuthCore

/// The client authentication methods authdeck speaks, by their names in discovery documents
/// (`token_endpoint_auth_methods_supported`, RFC 8414 section 2) and in config.json's `tokenEndpointAuthMethod`.
public enum ClientAuthMethod: String, Equatable, Sendable, Codable, CaseIterable {
    /// HTTP Basic: the default for a confidential client (RFC 6749 2.3.1, OIDC Discovery's default too).
    case clientSecretBasic = "client_secret_basic"
    /// The secret in the request body.
    case clientSecretPost = "client_secret_post"
    /// An HS256 JWT keyed with the client secret (OpenID Connect Core 9).
    case clientSecretJWT = "client_secret_jwt"
    /// A JWT signed with the client's private key (RFC 7523 2.2, OpenID Connect Core 9).
    case privateKeyJWT = "private_key_jwt"
    /// Mutual TLS with a certificate a CA issued (RFC 8705 2.1).
    case tlsClientAuth = "tls_client_auth"
    /// Mutual TLS with a self-signed certificate (RFC 8705 2.2).
    case selfSignedTLSClientAuth = "self_signed_tls_client_auth"
    /// A public client: the id only, PKCE binds the code.
    case none

    /// The method to use: the operator's choice when set; `private_key_jwt` when a private key file is given;
    /// with a client certificate `tls_client_auth`, or `self_signed_tls_client_auth` when the provider lists only
    /// that; without a secret `none`; with one `client_secret_basic` unless the provider lists methods without it,
    /// then `client_secret_post` if listed.
    /// - Parameters:
    ///   - configured: config.json's `tokenEndpointAuthMethod` (or `--auth-method`).
    ///   - supported: what discovery lists for the endpoint; nil when it says nothing (the default then is Basic).
    ///   - hasSecret: whether a client secret is configured.
    ///   - hasKey: whether a private key file is configured.
    ///   - hasCertificate: whether a client certificate and its key file are configured.
    ///   - endpoint: for the message, "token endpoint" or "revocation endpoint".
    public static func choose(
        configured: String?, supported: [String]?, hasSecret: Bool, hasKey: Bool = false,
        hasCertificate: Bool = false, endpoint: String
    ) throws(SignInError) -> ClientAuthMethod {
        if let configured {
            guard let method = ClientAuthMethod(rawValue: configured) else {
                let names = allCases.map(\.rawValue).joined(separator: ", ")
                throw .unavailable(
                    reason:
                        "tokenEndpointAuthMethod '\(OAuthErrorResponse.printable(configured))' is not one of \(names)")
            }
            switch method {
            case .tlsClientAuth where !hasCertificate, .selfSignedTLSClientAuth where !hasCertificate:
                throw .unavailable(
                    reason: "tokenEndpointAuthMethod \(configured) needs a client certificate and its key "
                        + "(clientCertificateFile and clientCertificateKeyFile, or --client-certificate and "
                        + "--client-certificate-key)")
            case .privateKeyJWT where !hasKey:
                throw .unavailable(
                    reason: "tokenEndpointAuthMethod private_key_jwt needs a private key "
                        + "(privateKeyFile or --private-key-file)")
            case .clientSecretBasic, .clientSecretPost, .clientSecretJWT:
                if !hasSecret {
                    throw .unavailable(
                        reason: "tokenEndpointAuthMethod \(configured) needs a client secret "
                            + "(clientSecretFile or --client-secret-file)")
                }
            case .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth, .none: break
            }
            return method
        }
        if hasKey { return .privateKeyJWT }
        if hasCertificate {
            let selfSignedOnly =
                supported?.contains(selfSignedTLSClientAuth.rawValue) == true
                && supported?.contains(tlsClientAuth.rawValue) == false
            return selfSignedOnly ? .selfSignedTLSClientAuth : .tlsClientAuth
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
