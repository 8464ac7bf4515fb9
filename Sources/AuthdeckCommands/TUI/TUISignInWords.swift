import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SessionStorage
import TerminalUI

/// What the TUI says about a sign-in's protocol beyond its progress: config.json's choices New sign-in starts
/// from, the features a prepared sign-in uses (the waiting screen's "PAR · DPoP · private_key_jwt"), and how a
/// stored session's token is bound (Details).
enum TUISignInWords {
    /// config.json's OIDC choices on each backend, as New sign-in shows them before any is changed.
    static func configuredOptions(_ configuration: Configuration, backends: [String]) -> [String: SignInOptions] {
        var options: [String: SignInOptions] = [:]
        for backend in backends {
            let settings = configuration.provider(Provider.oidc.name, backend: backend)
            options[backend] = SignInOptions(
                authMethod: settings.tokenEndpointAuthMethod, privateKeyFile: settings.privateKeyFile,
                pushed: settings.pushedAuthorizationRequests ?? false,
                signedRequest: settings.requestObject == "signed", responseMode: settings.responseMode,
                dpop: settings.dpop ?? false)
            options[backend]?.prompt = settings.prompt
            options[backend]?.loginHint = settings.loginHint
            options[backend]?.maxAge = settings.maxAge
            options[backend]?.acrValues = settings.acrValues
            options[backend]?.resources = settings.resources ?? []
        }
        return options
    }

    /// New sign-in's choices laid over `input`, as `login`'s options would be.
    static func apply(_ options: SignInOptions, to input: inout SignInInput) {
        input.authMethod = options.authMethod
        input.privateKeyFile = options.privateKeyFile
        input.pushedAuthorizationRequests = options.pushed
        input.requestObject = options.signedRequest ? "signed" : "none"
        input.responseMode = options.responseMode
        input.dpop = options.dpop
        // Checked on the form already (`NewSignInForm.shapingProblem`); empty fields leave config.json's.
        input.prompt = options.prompt.flatMap { try? AuthorizationOptions.prompt($0) }
        input.loginHint = options.loginHint
        input.maxAge = options.maxAge
        input.acrValues = options.acrValues
        input.resources = options.resources
    }

    /// The provider a prepared sign-in resolved, for the backends that sign in with one (direct, and the
    /// sandbox's social logins, which wrap a direct one).
    static func resolvedProvider(_ backend: SignInBackend) -> ResolvedProvider? {
        if let direct = backend as? DirectSignIn { return direct.provider }
        if let wrapped = backend as? SandboxAccountSignIn { return resolvedProvider(wrapped.inner) }
        return nil
    }

    /// The features of a resolved sign-in the waiting screen names: how the request travels, how the answer comes
    /// back, DPoP, and how the client authenticates. Empty for a plain sign-in (query response, shared-secret or
    /// public client, no PAR, JAR or DPoP): then there is nothing beyond the usual to say.
    static func protections(_ provider: ResolvedProvider) -> [String] {
        var names: [String] = []
        if provider.shape.pushed { names.append("PAR") }
        if provider.shape.requestObject != nil { names.append("signed request") }
        switch provider.shape.responseMode {
        case .query: break
        case .formPost: names.append("form_post")
        case .jwt: names.append("JARM")
        }
        if provider.dpop { names.append("DPoP") }
        let method = provider.authentication.method
        switch method {
        case .clientSecretBasic, .clientSecretPost, .none:
            guard !names.isEmpty else { return [] }
        case .clientSecretJWT, .privateKeyJWT, .tlsClientAuth, .selfSignedTLSClientAuth:
            break
        }
        names.append(method == .none ? "public client" : method.rawValue)
        return names
    }

    /// How `session`'s token is bound: the DPoP key's RFC 7638 thumbprint worked out from the key the session
    /// stores (the `jkt` its tokens are bound to), and the client authentication its sign-in used.
    static func binding(_ session: Session) -> SessionBinding {
        let secrets = session.secrets
        var binding = SessionBinding(
            key: session.record.key, tokenType: secrets.tokenType ?? "Bearer",
            clientAuthMethod: secrets.endpoints?.tokenAuthMethod)
        binding.grant = secrets.endpoints?.grant
        binding.parentSession = secrets.endpoints?.parentSession
        if secrets.isDPoPBound, let hex = secrets.dpopKeyHex, let raw = Hex.decode(hex),
            let key = try? DPoPKey(rawRepresentation: raw)
        {
            binding.dpopThumbprint = key.thumbprint
        }
        // Mutual TLS: the session keeps the path of the certificate it signed in with; its `x5t#S256` is what the
        // provider binds tokens to (RFC 8705 3.1). Only the public certificate is read, never the key.
        if let file = secrets.endpoints?.clientCertificateFile, let (certificate, _) = try? ClientCertificate.read(file)
        {
            binding.certificateThumbprint = certificate.thumbprint
        }
        return binding
    }
}
