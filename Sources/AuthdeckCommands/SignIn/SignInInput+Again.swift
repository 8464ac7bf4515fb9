import AuthClient
import AuthCore

extension SignInInput {
    /// The same sign-in again for a stored session: its provider, backend and key (replaced on success), its
    /// scopes, DPoP and browser command, and its client where config.json would now pick another one. `login
    /// --step-up` starts here and adds what the resource asked for.
    static func again(_ session: Session, configuration: Configuration) -> SignInInput {
        let record = session.record
        var input = SignInInput(
            request: SignInRequest(
                provider: Provider(record.provider), backendName: record.backend, sessionKey: record.key,
                replace: true, scopes: record.scopes.isEmpty ? nil : record.scopes))
        input.browser = session.secrets.browser
        if session.secrets.dpopKeyHex != nil { input.dpop = true }
        input.request.passkey = session.secrets.passkey?.kind
        guard let endpoints = session.secrets.endpoints else { return input }
        let configured = configuration.provider(record.provider, backend: record.backend)
        let sandboxClient = configuration.backend(named: record.backend)?.type == .sandbox && configured.clientID == nil
        if !sandboxClient, configured.clientID != endpoints.clientID {
            // Signed in with `--issuer` and `--client-id`: that client again, with what its sign-in read.
            input.issuer = record.issuer
            input.clientID = endpoints.clientID
            if endpoints.clientSecretFileFromSignIn == true {
                input.clientSecretFile = endpoints.clientSecretFile
                input.privateKeyFile = endpoints.privateKeyFile
                input.clientCertificateFile = endpoints.clientCertificateFile
                input.clientCertificateKeyFile = endpoints.clientCertificateKeyFile
            }
            input.keyID = endpoints.keyID
            input.authMethod = endpoints.tokenAuthMethod
        }
        return input
    }
}
