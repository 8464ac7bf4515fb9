import AuthCore
import Foundation

extension ClientAuthentication {
    /// What a client authentication method needs, read from the files config.json (or the sign-in) names: the one
    /// place a chosen method (`ClientAuthMethod.choose`) becomes the authentication every endpoint's request carries,
    /// at sign-in and again for a stored session's refresh and revocation.
    /// - Parameters:
    ///   - signingAlgorithms: discovery's `token_endpoint_auth_signing_alg_values_supported`; an assertion whose
    ///     algorithm it leaves out is refused here, before anything is sent.
    ///   - certificateFile: mutual TLS's certificate, with `certificateKeyFile` its private key (checked as of `now`).
    public static func configured(
        _ method: ClientAuthMethod, secretFile: String?, keyFile: String?, keyID: String?, signingAlg: String?,
        audience: ClientAssertion.Audience, signingAlgorithms: [String]? = nil, certificateFile: String? = nil,
        certificateKeyFile: String? = nil, now: Date = Date()
    ) throws(SignInError) -> ClientAuthentication {
        switch method {
        case .none:
            return .none
        case .clientSecretBasic, .clientSecretPost, .clientSecretJWT:
            guard let secretFile else {
                throw .unavailable(
                    reason: "\(method.rawValue) needs a client secret (clientSecretFile or --client-secret-file)")
            }
            let secret = try ProviderResolver.readClientSecret(secretFile)
            guard method == .clientSecretJWT else { return ClientAuthentication.secret(secret).using(method) }
            try check("HS256", against: signingAlgorithms, method: method)
            return .assertion(ClientAssertion(signer: .secret(secret), audience: audience))
        case .privateKeyJWT:
            guard let keyFile else {
                throw .unavailable(reason: "private_key_jwt needs a private key (privateKeyFile or --private-key-file)")
            }
            let (key, algorithm) = try ClientAssertion.loadKey(file: keyFile, keyID: keyID, signingAlg: signingAlg)
            try check(algorithm, against: signingAlgorithms, method: method)
            return .assertion(
                ClientAssertion(signer: .key(key, algorithm: algorithm, file: keyFile), audience: audience))
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            guard let certificateFile, let certificateKeyFile else {
                throw .unavailable(
                    reason: "\(method.rawValue) needs a client certificate and its key (clientCertificateFile and "
                        + "clientCertificateKeyFile, or --client-certificate and --client-certificate-key)")
            }
            return .certificate(
                try ClientCertificate.load(
                    method: method, certificateFile: certificateFile, keyFile: certificateKeyFile, now: now))
        }
    }

    /// An algorithm the provider does not list for client assertions would only be refused there.
    private static func check(
        _ algorithm: String, against supported: [String]?, method: ClientAuthMethod
    ) throws(SignInError) {
        guard let supported, !supported.isEmpty, !supported.contains(algorithm) else { return }
        let listed = supported.prefix(8).map { OAuthErrorResponse.printable($0) }.joined(separator: ", ")
        throw .unavailable(
            reason: "the provider takes \(method.rawValue) assertions signed with \(listed), not \(algorithm): "
                + "set signingAlg or use a key of a listed kind")
    }
}

extension SessionEndpoints {
    /// Records what a `private_key_jwt` sign-in signed with, so the session's refresh and revocation sign the same
    /// way (the key is read from its file again then; it is never stored).
    mutating func keepAssertion(of authentication: ClientAuthentication) {
        guard case .assertion(let assertion) = authentication else { return }
        if case .issuer(let issuer) = assertion.audience { assertionAudience = issuer }
        guard case .key(let key, let algorithm, let file) = assertion.signer else { return }
        privateKeyFile = file
        keyID = key.keyID
        signingAlg = algorithm
        clientSecretFileFromSignIn = true
    }

    /// Records the certificate files a mutual TLS sign-in presented, so the session's refresh, revocation and
    /// UserInfo requests present the same certificate (read again then; the key is never stored).
    mutating func keepCertificate(of authentication: ClientAuthentication) {
        guard let certificate = authentication.certificate else { return }
        clientCertificateFile = certificate.certificateFile
        clientCertificateKeyFile = certificate.keyFile
        clientSecretFileFromSignIn = true
    }

    /// Whether this session's own sign-in read a secret, key or certificate file that its later requests follow.
    var hasOwnClientFiles: Bool {
        clientSecretFileFromSignIn == true
            && (clientSecretFile != nil || privateKeyFile != nil || clientCertificateFile != nil)
    }

    /// How this session's own client authenticates at the token or revocation endpoint, from its files as its
    /// sign-in read them; sessions stored before the method was recorded sent their secret in the body.
    func authentication(revocation: Bool) throws(SignInError) -> ClientAuthentication {
        let recorded = revocation ? revocationAuthMethod ?? tokenAuthMethod : tokenAuthMethod
        let method = recorded.flatMap(ClientAuthMethod.init(rawValue:)) ?? .clientSecretPost
        return try ClientAuthentication.configured(
            method, secretFile: clientSecretFile, keyFile: privateKeyFile, keyID: keyID,
            signingAlg: signingAlg, audience: assertionAudience.map { .issuer($0) } ?? .endpoint,
            certificateFile: clientCertificateFile, certificateKeyFile: clientCertificateKeyFile)
    }
}
