import AuthCore
import Foundation

/// The New sign-in screen's state: the provider buttons, the backend chooser, the session-key field, and which
/// of them has the keyboard.
public struct NewSignInForm: Equatable, Sendable {
    /// What Tab moves between.
    public enum Focus: Equatable, Sendable {
        case providers
        case backend
        case sessionKey
        /// OIDC only: the issuer and client id that replace config.json's, as `login oidc --issuer --client-id`.
        case issuer
        case clientID
        /// OIDC only: the protocol choices for this sign-in (`SignInOptions`), pre-filled from config.json.
        case authMethod
        case keyFile
        case pushed
        case signedRequest
        case responseMode
        case dpop
        /// OIDC only: how the request is shaped (`--prompt`, `--login-hint`, `--max-age`, `--acr-values`,
        /// `--resource`), pre-filled from config.json.
        case prompt
        case loginHint
        case maxAge
        case acrValues
        case resource
    }

    public var providers: [Provider]
    /// The provider button the arrows are on; Enter starts it.
    public var providerIndex: Int
    public var backends: [String]
    public var backendIndex: Int
    public var sessionKey: TextField
    public var focus: Focus
    /// Why the last Enter did not start anything (a key that breaks the key rule, or one that is taken).
    public var error: String?
    /// A taken key the user was warned about: starting again with it unchanged replaces that session.
    public var replaceKey: String?
    /// `m`: how tokens are asked for (the browser's redirect, the device grant, CIBA or client credentials).
    public var method: GrantChoice
    /// Whether `m` chose the device grant (a code typed on any device) instead of a redirect.
    public var useDevice: Bool { method == .device }
    /// OIDC (the generic provider): an issuer URL instead of config.json's; empty keeps config.json's.
    public var issuer: TextField
    /// OIDC: the client id registered with that issuer; empty keeps config.json's.
    public var clientID: TextField
    /// OIDC: config.json's protocol choices on each backend, as the event loop read them; the form starts from the
    /// chosen backend's and starts again from another's when the backend changes.
    public var configuredOptions: [String: SignInOptions]
    /// OIDC: the protocol choices for this sign-in (the key file's path is `keyFile`'s text).
    public var options: SignInOptions
    /// OIDC: the private key file's path; empty keeps config.json's.
    public var keyFile: TextField
    /// OIDC: the login hint, max age (seconds), acr values (space-separated) and resource; empty sends none.
    public var loginHint = TextField(placeholder: "none (the account to sign in as)", maxLength: 512)
    public var maxAge = TextField(placeholder: "none (seconds)", maxLength: 10)
    public var acrValues = TextField(placeholder: "none (space-separated)", maxLength: 1024)
    public var resource = TextField(placeholder: "none (an absolute URI)", maxLength: 2048)

    public init(
        providers: [Provider], backends: [String], defaultBackend: String,
        options configuredOptions: [String: SignInOptions] = [:]
    ) {
        self.providers = providers
        providerIndex = 0
        self.backends = backends.isEmpty ? [defaultBackend] : backends
        backendIndex = self.backends.firstIndex(of: defaultBackend) ?? 0
        sessionKey = TextField(placeholder: "made up from provider and user", maxLength: 128)
        focus = .providers
        error = nil
        replaceKey = nil
        method = .browser
        issuer = TextField(placeholder: "config.json's (https://id.example.com)", maxLength: 2048)
        clientID = TextField(placeholder: "config.json's", maxLength: 512)
        self.configuredOptions = configuredOptions
        options = SignInOptions()
        keyFile = TextField(placeholder: "none (a PEM file for private_key_jwt or a signed request)", maxLength: 4096)
        resetOptions()
    }

    /// Puts the chosen backend's config.json choices back (the form opened, or the backend changed).
    public mutating func resetOptions() {
        options = configuredOptions[backend] ?? SignInOptions()
        keyFile = TextField(
            text: options.privateKeyFile ?? "", placeholder: keyFile.placeholder, maxLength: keyFile.maxLength)
        func refilled(_ field: TextField, _ text: String) -> TextField {
            TextField(text: text, placeholder: field.placeholder, maxLength: field.maxLength)
        }
        loginHint = refilled(loginHint, options.loginHint ?? "")
        maxAge = refilled(maxAge, options.maxAge.map(String.init) ?? "")
        acrValues = refilled(acrValues, options.acrValues?.joined(separator: " ") ?? "")
        resource = refilled(resource, options.resources.first ?? "")
    }

    /// The choices as the start takes them: the key file as typed (empty: config.json's).
    public var chosenOptions: SignInOptions {
        var chosen = options
        let path = keyFile.text.trimmingCharacters(in: .whitespaces)
        chosen.privateKeyFile = path.isEmpty ? nil : path
        func typed(_ field: TextField) -> String? {
            let text = field.text.trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        chosen.loginHint = typed(loginHint)
        chosen.maxAge = typed(maxAge).flatMap { try? AuthorizationOptions.maxAge($0) }
        chosen.acrValues = typed(acrValues).flatMap { try? AuthorizationOptions.acrValues($0) }
        chosen.resources = typed(resource).map { [$0] } ?? []
        return chosen
    }

    /// Why the typed request shaping cannot be used, in `login`'s words, and the field to fix; nil when it can.
    public var shapingProblem: (focus: Focus, message: String)? {
        let fields: [(Focus, String, TextField)] = [
            (.loginHint, "Login hint", loginHint), (.maxAge, "Max age", maxAge), (.acrValues, "ACR values", acrValues),
            (.resource, "Resource", resource),
        ]
        for (focus, name, field) in fields {
            let text = field.text.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            do throws(AuthorizationOptions.Problem) {
                switch focus {
                case .loginHint: _ = try AuthorizationOptions.loginHint(text)
                case .maxAge: _ = try AuthorizationOptions.maxAge(text)
                case .acrValues: _ = try AuthorizationOptions.acrValues(text)
                case .resource: _ = try AuthorizationOptions.resource(text)
                case .providers, .backend, .sessionKey, .issuer, .clientID, .authMethod, .keyFile, .pushed,
                    .signedRequest, .responseMode, .dpop, .prompt:
                    break
                }
            } catch {
                return (focus, "\(name): \(error.description).")
            }
        }
        return nil
    }

    /// What ←/→ goes through on the auth-method field.
    public var authMethodChoices: [String?] {
        SignInOptions.authMethodChoices(configured: configuredOptions[backend]?.authMethod)
    }

    /// Changes the focused choice (auth method, PAR, signed request, response mode, DPoP) `step` places on.
    public mutating func changeOption(step: Int) {
        switch focus {
        case .authMethod:
            options.authMethod = SignInOptions.cycled(options.authMethod, in: authMethodChoices, step: step)
        case .pushed: options.pushed.toggle()
        case .signedRequest: options.signedRequest.toggle()
        case .responseMode:
            let modes: [String?] = SignInOptions.responseModes.map { $0 }
            options.responseMode = SignInOptions.cycled(options.responseMode ?? "query", in: modes, step: step)
        case .dpop: options.dpop.toggle()
        case .prompt: options.prompt = SignInOptions.cycled(options.prompt, in: SignInOptions.prompts, step: step)
        case .providers, .backend, .sessionKey, .issuer, .clientID, .keyFile, .loginHint, .maxAge, .acrValues,
            .resource:
            break
        }
    }

    public var backend: String { backends[backendIndex] }
    public var provider: Provider { providers[providerIndex] }

    /// Whether the highlighted provider is the generic OIDC one, which shows the issuer and client id fields.
    public var showsIssuerFields: Bool { provider == .oidc }

    /// The issuer typed for OIDC, trimmed; nil when empty (config.json's is used).
    public var typedIssuer: String? {
        let text = issuer.text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// The client id typed for OIDC, trimmed; nil when empty (config.json's is used).
    public var typedClientID: String? {
        let text = clientID.text.trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// Why the typed issuer and client id cannot be used, in one line, and the field to fix; nil when they can
    /// (or both are empty). An issuer must be https (http only on a loopback host) and needs a client id; a client
    /// id alone replaces config.json's for its issuer.
    public var issuerProblem: (focus: Focus, message: String)? {
        if let typedIssuer {
            guard (try? URLPolicy.requireSecure(typedIssuer, what: "issuer")) != nil,
                !typedIssuer.contains(where: \.isWhitespace)
            else {
                return (.issuer, "The issuer must be an https URL (http only on 127.0.0.1 or localhost).")
            }
            guard typedClientID != nil else {
                return (.clientID, "Type the client id registered with that issuer (or clear the issuer).")
            }
        }
        if let typedClientID, typedClientID.contains(where: \.isWhitespace) {
            return (.clientID, "A client id has no spaces.")
        }
        return nil
    }
}
