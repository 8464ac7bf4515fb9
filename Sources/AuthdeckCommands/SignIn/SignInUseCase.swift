import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SessionStorage
import Synchronization

/// What one sign-in is asked to do. Every front end fills this one value: `login`'s options (and so `trace replay`,
/// which runs `login`), the TUI's New sign-in form and its `R` (the same sign-in again).
struct SignInInput: Sendable {
    /// Provider, backend, the session key and whether it may replace, scopes, contact, device grant, timeout.
    var request: SignInRequest
    /// `--issuer`: every endpoint then comes from that issuer's discovery.
    var issuer: String?
    /// `--client-id` and `--client-secret-file` (with `--issuer`, the only client that applies).
    var clientID: String?
    var clientSecretFile: String?
    /// `--auth-method`, `--private-key-file` and `--key-id`: how the client authenticates (over config.json's
    /// `tokenEndpointAuthMethod`, `privateKeyFile` and `keyID`).
    var authMethod: String?
    var privateKeyFile: String?
    var keyID: String?
    /// `--client-certificate` and `--client-certificate-key`: mutual TLS's certificate and key files (over
    /// config.json's `clientCertificateFile` and `clientCertificateKeyFile`).
    var clientCertificateFile: String?
    var clientCertificateKeyFile: String?
    /// `--listen`'s port; nil takes config.json's `listen`.
    var listenPort: UInt16?
    /// Whether the sign-in page opens in `$BROWSER` (false for `--no-browser`: the URL is only shown).
    var opensBrowser = true
    /// `--dpop`: DPoP-bound tokens whatever config.json says; nil leaves it to config.json.
    var dpop: Bool?
    /// `--par` and `--request-object`: nil leaves config.json's `pushedAuthorizationRequests` and `requestObject`.
    var pushedAuthorizationRequests: Bool?
    var requestObject: String?
    /// New sign-in's response mode; nil leaves config.json's `responseMode`.
    var responseMode: String?
    /// `--prompt`, `--login-hint`, `--max-age`, `--acr-values`, `--claims`, `--resource`, `--authorization-details`
    /// and `--param` (New sign-in's prompt, login hint, max age, acr values and resource; a step-up's acr values and
    /// max age), each checked already (`AuthorizationOptions`'s checks); nil and empty leave config.json's. A nil
    /// `prompt` asks for `select_account` when another session of the same provider, issuer and client is stored.
    var prompt: String?
    var loginHint: String?
    var maxAge: Int?
    var acrValues: [String]?
    var claims: String?
    var resources: [String] = []
    var authorizationDetails: String?
    var extraParameters: [(String, String)] = []
    /// `--browser`: the command this session's sign-ins open their page in (over config.json's `browser`), kept
    /// with the session so its later sign-ins open the same browser profile.
    var browser: String?

    var overrides: ProviderOverrides {
        ProviderOverrides(
            issuer: issuer, clientID: clientID, clientSecretFile: clientSecretFile, scopes: request.scopes,
            dpop: dpop, pushedAuthorizationRequests: pushedAuthorizationRequests, requestObject: requestObject,
            responseMode: responseMode, authMethod: authMethod, privateKeyFile: privateKeyFile, keyID: keyID,
            clientCertificateFile: clientCertificateFile, clientCertificateKeyFile: clientCertificateKeyFile,
            authorization: AuthorizationOptions(
                prompt: prompt, loginHint: loginHint, maxAge: maxAge, acrValues: acrValues, claims: claims,
                resources: resources, authorizationDetails: authorizationDetails, authorizeParameters: extraParameters))
    }
}

/// Why a sign-in did not start: the store refused (a key taken since it was chosen), or the configuration,
/// provider or backend did (what `SignInError` says).
enum SignInStartFailure: Error {
    case store(StoreError)
    case signIn(SignInError)
}

/// The one sign-in use case, as kubelogin's `Authentication.Do(ctx, Input)` serves each of its front ends: from a
/// `SignInInput` to a controller with its backend, receivers, browser, trace and persist step, whose session goes
/// into `store`. The front ends differ only in how they show its reports and feed it typed input.
struct SignInUseCase {
    let setup: SignInSetup
    let store: SessionStore

    /// A sign-in ready to start: the front end wires its answers to the controller first (the keep question), then
    /// calls `start`.
    struct Prepared {
        let controller: SignInController
        let backend: SignInBackend
        let timeout: TimeInterval
        /// `--oidc-token-only`: the token and public key to print once the attempt ends; nil for a whole sign-in.
        var heldToken: HeldOIDCToken?

        func start() {
            controller.start(backend, timeout: timeout)
        }
    }

    /// Checks what can be checked before anything is sent (a taken key, the receiver's port, the backend's
    /// configuration) and builds the controller.
    /// - Parameter report: the front end's presenter of the controller's progress.
    /// - Parameter moved: told, in one line, when a key authdeck made up names another session, so the session was
    ///   stored under another key.
    func prepare(
        _ input: SignInInput, trace: FlowTrace?, report: @escaping SignInController.Report,
        moved: @escaping @Sendable (String) -> Void
    ) throws(SignInStartFailure) -> Prepared {
        var request = input.request
        // Checked against the store now: another process may have taken the key since it was typed.
        if let key = request.sessionKey, !request.replace, (try? store.entry(key)) != nil {
            throw .store(.keyTaken(key))
        }
        if request.passkey == nil, setup.configuration.backend(named: request.backendName)?.type == .sandbox {
            request.passkey = setup.configuration.provider(request.provider.name, backend: request.backendName).passkey
        }
        if request.passkey != nil { request.passkeys = storedPasskeys(backend: request.backendName) }
        if case .tokenExchange(var exchange) = request.grant {
            // The parent's access token is the subject token (RFC 8693 2.1); it stays in this process.
            let parent: Session
            do throws(StoreError) {
                parent = try store.session(exchange.parentKey)
            } catch {
                throw .store(error)
            }
            exchange.parent = parent.record
            exchange.subjectToken = parent.secrets.accessToken
            request.grant = .tokenExchange(exchange)
        }
        let listenPort: UInt16
        let backend: SignInBackend
        let launcher: BrowserLauncher?
        do throws(SignInError) {
            listenPort = try setup.listenPort(given: input.listenPort)
            var overrides = input.overrides
            var built = try setup.backend(for: request, overrides: overrides, trace: trace)
            if overrides.authorization.prompt == nil, let resolved = TUISignInWords.resolvedProvider(built),
                resolved.authorizationOptions.prompt == nil,
                hasOtherSession(like: resolved, provider: request.provider.name, replacing: request.sessionKey)
            {
                // OpenID Connect Core 3.1.2.1: the provider shows its account chooser, so a browser signed in as the
                // first account does not sign the second session in as that account again.
                overrides.authorization.prompt = "select_account"
                built = try setup.backend(for: request, overrides: overrides, trace: trace)
            }
            backend = built
            launcher = input.opensBrowser ? try browser(for: input) : nil
        } catch {
            throw .signIn(error)
        }
        let persist = SessionKeyChoice(request).persist(into: store, moved: moved)
        let browserCommand = input.browser
        let heldToken = request.oidcStep == .stopAtToken ? HeldOIDCToken() : nil
        let controller = SignInController(
            report: report,
            persist: { session throws(SignInError) in
                if let heldToken { return try heldToken.keep(session, in: store) }
                var session = session
                session.secrets.browser = browserCommand
                return try persist(session)
            },
            receivers: ReceiverOptions(
                loopbackPort: listenPort,
                schemeSocketPath: SchemeReceiver.defaultSocketPath(environment: setup.environment)),
            browser: launcher?.command == nil ? nil : launcher, trace: trace)
        return Prepared(controller: controller, backend: backend, timeout: request.timeout, heldToken: heldToken)
    }

    /// The session's browser: `--browser` (or the one stored with the session), else config.json's `browser` for
    /// the provider, else `$BROWSER`; `{profile}` is the session key's folder under the data folder.
    func browser(for input: SignInInput) throws(SignInError) -> BrowserLauncher {
        let request = input.request
        let configured = setup.configuration.provider(request.provider.name, backend: request.backendName).browser
        return try BrowserLauncher(
            command: input.browser ?? configured,
            profile: request.sessionKey.map {
                BrowserLauncher.profileFolder(dataFolder: setup.dataFolder, sessionKey: $0)
            },
            environment: setup.environment)
    }

    /// The passkeys sealed with the backend's sessions, for Para's assertion. The store is unlocked to read them:
    /// that unlock is the software passkey's user verification.
    func storedPasskeys(backend: String) -> [PasskeyCredential] {
        guard let entries = try? store.entries() else { return [] }
        return entries.filter { $0.record.backend == backend }.compactMap {
            (try? store.session($0.record.key))?.secrets.passkey
        }
    }

    /// Whether the store holds a session, other than the one being replaced, of the same provider, issuer and
    /// client as `resolved`: a second account is being signed in.
    func hasOtherSession(like resolved: ResolvedProvider, provider: String, replacing key: String?) -> Bool {
        guard let entries = try? store.entries() else { return false }
        return entries.contains { entry in
            let record = entry.record
            guard record.key != key, record.provider == provider, record.issuer == resolved.endpoints.issuer else {
                return false
            }
            let clientID = (try? store.session(record.key))?.secrets.endpoints?.clientID
            return clientID == nil || clientID == resolved.clientID
        }
    }

    /// The stored test-account seed that answers `challenge`: by the user the backend named, else by the account
    /// of its enrolment link (Portal names only an id).
    func testSeed(for challenge: TOTPChallenge) -> TestAccountSeed? {
        TOTPCommand.seed(for: challenge.user, in: store)
            ?? TOTPCommand.seed(for: OTPAuthAccount.account(in: challenge.enrolmentLink), in: store)
    }
}

/// What `login --oidc-token-only` ends with (the SDK's `onOAuthSuccess`): the provider's OIDC token and the public
/// half of the session key its nonce is bound to. The private half goes into the store as a pending key, never a
/// session; `login --oidc-token … --public-key …` takes it from there.
final class HeldOIDCToken: Sendable {
    struct Held: Sendable {
        let oidcToken: String
        let publicKeyHex: String
        let expiresAt: Date
    }
    private let held = Mutex<Held?>(nil)

    var value: Held? { held.withLock { $0 } }

    /// The persist step of a sign-in that stopped at its OIDC token: the key is kept pending until the token
    /// expires (an hour when it names no expiry).
    func keep(_ session: Session, in store: SessionStore) throws(SignInError) -> SessionRecord {
        guard let oidcToken = session.secrets.idToken, let raw = session.secrets.privateKeyHex.flatMap(Hex.decode),
            let key = try? P256PrivateKey(rawRepresentation: raw)
        else {
            throw .unavailable(reason: "the sign-in stopped without an OIDC token and its session key")
        }
        let publicKeyHex = key.publicKey.compressedHex
        let expiresAt = session.record.expiresAt ?? Date().addingTimeInterval(3600)
        do throws(StoreError) {
            try store.storePendingKey(raw, publicKeyHex: publicKeyHex, expiresAt: expiresAt)
        } catch {
            throw .sessionStorageFailure(message: error.description)
        }
        held.withLock { $0 = Held(oidcToken: oidcToken, publicKeyHex: publicKeyHex, expiresAt: expiresAt) }
        return session.record
    }
}
