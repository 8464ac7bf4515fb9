import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck login PROVIDER`: runs one sign-in through the shared state machine and stores the session.
enum LoginCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        global.environment.requireProcess("login")
        let environment = global.environment.variables
        if arguments.value("session") != nil {  // a typo for --session-key, which would be silently ignored
            throw .usage("login names its new session with --session-key KEY (--session picks an existing one)")
        }
        let positionals = try arguments.positionals(atMost: 1)
        if let key = arguments.value("step-up") { return try stepUp(key, arguments, global, positionals) }
        guard let name = positionals.first else {
            throw .usage("name a provider: \(Provider.standardNames)")
        }
        let provider = Provider(name)
        guard provider.isStandard else {
            throw .usage("unknown provider '\(name)' (\(Provider.standard.map(\.name).joined(separator: ", ")))")
        }
        if arguments.value("issuer") != nil, arguments.value("client-id") == nil {
            throw .usage("--issuer needs --client-id (config.json's client id and secret are for its own issuer)")
        }
        let grant = try grant(arguments)
        try refuseBrowserOnlyOptions(arguments, grant: grant)
        let tokenStep = try oidcTokenStep(arguments, global, provider: provider, grant: grant)
        let timeout = try arguments.integer("timeout", in: 5...3600) ?? 300
        let listen = try listenPort(arguments.value("listen"))
        let setup: SignInSetup
        let receiverPort: UInt16
        do throws(SignInError) {
            setup = try SignInSetup.load(global: global, environment: environment)
            // A bad `listen` in config.json is told before the store asks for a passphrase.
            receiverPort = try setup.listenPort(given: listen)
        } catch {
            throw error.commandFailure
        }
        let backendName = arguments.value("backend") ?? setup.configuration.defaultBackendName
        if tokenStep != nil, setup.configuration.backend(named: backendName)?.type != .turnkey {
            throw .usage(
                "--oidc-token-only and --oidc-token are Turnkey's completeOAuth: name a turnkey backend "
                    + "(--backend turnkey or sandbox-turnkey)")
        }
        // The contact is checked before anything else happens: a typo never reaches the proxy (SPEC 3.3).
        let contact = try contact(for: provider, arguments.value("contact"))
        let noBrowser = arguments.has("no-browser")
        var input = SignInInput(
            request: SignInRequest(
                provider: provider, backendName: backendName,
                sessionKey: arguments.value("session-key"), replace: arguments.has("replace"),
                scopes: arguments.value("scope").map { $0.split(separator: " ").map(String.init) },
                contact: contact, timeout: TimeInterval(timeout), grant: grant),
            issuer: arguments.value("issuer"), clientID: arguments.value("client-id"),
            clientSecretFile: arguments.value("client-secret-file"), authMethod: arguments.value("auth-method"),
            privateKeyFile: arguments.value("private-key-file"), keyID: arguments.value("key-id"),
            listenPort: receiverPort, opensBrowser: !noBrowser)
        input.clientCertificateFile = arguments.value("client-certificate")
        input.clientCertificateKeyFile = arguments.value("client-certificate-key")
        if arguments.has("dpop") { input.dpop = true }
        input.request.passkey = arguments.value("passkey").flatMap(PasskeyCredential.Kind.init(rawValue:))
        if arguments.has("par") { input.pushedAuthorizationRequests = true }
        if arguments.has("request-object") { input.requestObject = "signed" }
        try shape(&input, arguments)
        input.browser = try browserCommand(arguments)
        if let key = input.request.sessionKey, let problem = SessionKeyRule.problem(key) {
            throw .usage("--session-key: \(problem)")
        }
        if tokenStep == .stopAtToken { input.request.oidcStep = .stopAtToken }
        return try signIn(input, setup: setup, arguments, global, completing: tokenStep?.completion)
    }

    /// `--oidc-token-only`, or `--oidc-token FILE|-` with `--public-key HEX`: Turnkey's `completeOAuth` split where
    /// the SDK's `onOAuthSuccess` splits it. Everything is checked before the store opens or anything is sent: the
    /// token must be a JWT whose nonce is sha256 of the public key (the SDK's rule), unexpired; a bad one is one
    /// usage line (exit 2) and nothing is stored.
    enum TokenStep: Equatable {
        case stopAtToken
        case complete(oidcToken: String, publicKeyHex: String)

        var completion: (oidcToken: String, publicKeyHex: String)? {
            guard case .complete(let oidcToken, let publicKeyHex) = self else { return nil }
            return (oidcToken, publicKeyHex)
        }
    }

    static func oidcTokenStep(
        _ arguments: Arguments, _ global: GlobalOptions, provider: Provider, grant: SignInGrant
    ) throws(CommandFailure) -> TokenStep? {
        let stops = arguments.has("oidc-token-only")
        let source = arguments.value("oidc-token")
        guard stops || source != nil else {
            if arguments.value("public-key") != nil { throw .usage("--public-key goes with --oidc-token FILE|-") }
            return nil
        }
        if stops, source != nil {
            throw .usage("--oidc-token-only and --oidc-token are the two halves of one sign-in: pass one of them")
        }
        let option = stops ? "--oidc-token-only" : "--oidc-token"
        guard !provider.sendsCode, grant == .authorizationCode else {
            throw .usage("\(option) is for a social sign-in through the browser, not \(provider.title) or --grant")
        }
        if stops {
            if arguments.value("public-key") != nil { throw .usage("--public-key goes with --oidc-token FILE|-") }
            for name in ["session-key", "replace"] where arguments.value(name) != nil || arguments.has(name) {
                throw .usage("--oidc-token-only stores no session: drop --\(name)")
            }
            return .stopAtToken
        }
        guard let given = arguments.value("public-key") else {
            throw .usage("--oidc-token needs --public-key HEX: the session public key --oidc-token-only printed")
        }
        let publicKeyHex = given.lowercased()
        guard publicKeyHex.count == 66, let bytes = Hex.decode(publicKeyHex),
            (try? P256PublicKey(compressedRepresentation: bytes)) != nil
        else {
            throw .usage("--public-key: not a compressed P-256 public key (66 hex digits, as --oidc-token-only prints)")
        }
        let oidcToken = try readOIDCToken(source ?? "-", global)
        guard let parts = try? JWS.decodeUnverified(oidcToken), case .object = try? JSONValue.parse(parts.header),
            let claims = try? JSONValue.parse(parts.payload), case .object = claims
        else {
            throw .usage("--oidc-token: \(source ?? "-") holds no JWT (header.payload.signature)")
        }
        guard claims["nonce"]?.string == AttemptSecrets.turnkeyNonce(sessionPublicKeyHex: publicKeyHex) else {
            throw .usage("--oidc-token: its nonce is not sha256 of --public-key: the token was issued for another key")
        }
        if let expiry = claims["exp"]?.integer, TimeInterval(expiry) <= global.environment.now().timeIntervalSince1970 {
            throw .usage("--oidc-token: the token has expired; sign in again with --oidc-token-only")
        }
        return .complete(oidcToken: oidcToken, publicKeyHex: publicKeyHex)
    }

    /// The OIDC token from `-` (standard input's first line) or an owner-only file (it is a secret, as a
    /// passphrase file is), trimmed.
    static func readOIDCToken(_ source: String, _ global: GlobalOptions) throws(CommandFailure) -> String {
        let text: String
        if source == "-" {
            guard let line = global.environment.input.readLine() else {
                throw .usage("--oidc-token -: standard input ended before the token")
            }
            text = line
        } else {
            do throws(SecretFile.Refusal) {
                let bytes = try SecretFile.read(
                    source, subject: "the OIDC token file \(source)", regularOnly: true, limit: 16_384)
                text = String(decoding: bytes, as: UTF8.self)
            } catch {
                throw .usage("--oidc-token: \(error.message)")
            }
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `login --step-up KEY`: the session's sign-in again (`SignInInput.again`), asking for what the resource's
    /// challenge named (RFC 9470: `--acr-values`, `--max-age`); the new session replaces it only on success.
    static func stepUp(
        _ key: String, _ arguments: Arguments, _ global: GlobalOptions, _ positionals: [String]
    ) throws(CommandFailure) -> ExitCode {
        let environment = global.environment.variables
        for option in ["session-key", "backend", "issuer", "client-id", "contact", "device"]
        where arguments.value(option) != nil || arguments.has(option) {
            throw .usage("--step-up signs the session in again as it was: drop --\(option)")
        }
        let setup: SignInSetup
        do throws(SignInError) {
            setup = try SignInSetup.load(global: global, environment: environment)
        } catch {
            throw error.commandFailure
        }
        let store = try StoreCommands.attempt { () throws(StoreError) in
            try SessionStore.open(
                StoreCommands.location(global), options: StoreCommands.storeOptions(global), create: false)
        }
        guard let store else { throw CommandFailure(.store, "no session store yet: nothing to step up") }
        try StoreCommands.attempt { () throws(StoreError) in try store.unlock() }
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        if let name = positionals.first, name != session.record.provider {
            throw .usage("\(key) is a \(session.record.provider) session, not \(name): drop the provider")
        }
        var input = SignInInput.again(session, configuration: setup.configuration)
        // What the challenge asked (--acr-values, --max-age), checked as every sign-in's shaping is.
        try shape(&input, arguments)
        if let timeout = try arguments.integer("timeout", in: 5...3600) {
            input.request.timeout = TimeInterval(timeout)
        }
        input.listenPort = try listenPort(arguments.value("listen"))
        input.opensBrowser = !arguments.has("no-browser")
        if let browser = try browserCommand(arguments) { input.browser = browser }
        store.close()
        return try signIn(input, setup: setup, arguments, global)
    }

    /// `--browser CMD`: checked to split into words now, so a typo is told before the store is opened.
    static func browserCommand(_ arguments: Arguments) throws(CommandFailure) -> String? {
        guard let line = arguments.value("browser") else { return nil }
        guard let words = ShellWord.split(line), !words.isEmpty else {
            throw .usage("--browser takes a command line such as 'chromium --user-data-dir={profile} {url}'")
        }
        return line
    }

    /// Runs `input` to its end: opens the store, starts the sign-in and prints the session's key (or JSON).
    static func signIn(
        _ input: SignInInput, setup: SignInSetup, _ arguments: Arguments, _ global: GlobalOptions,
        completing: (oidcToken: String, publicKeyHex: String)? = nil
    ) throws(CommandFailure) -> ExitCode {
        let noBrowser = !input.opensBrowser
        var input = input

        // The store opens first: a locked store fails now, not after the user has signed in.
        let store = try StoreCommands.attempt { () throws(StoreError) in
            try SessionStore.open(
                StoreCommands.location(global), options: StoreCommands.storeOptions(global), create: true)
        }
        guard let store else { throw CommandFailure(.store, "the session store cannot be opened") }
        try StoreCommands.attempt { () throws(StoreError) in try store.unlock() }
        if let completing {
            // completeOAuth needs the key the token's nonce names: one this store made and still holds.
            let pending = try StoreCommands.attempt { () throws(StoreError) in
                try store.pendingKey(publicKeyHex: completing.publicKeyHex)
            }
            guard let pending else {
                throw .usage(
                    "--public-key: this store holds no pending session key \(completing.publicKeyHex.prefix(16))… "
                        + "(used, expired or made elsewhere): run login --oidc-token-only again")
            }
            input.request.oidcStep = .complete(oidcToken: completing.oidcToken, sessionKey: pending)
        }

        let signIn = SignInUseCase(setup: setup, store: store)
        let trace = arguments.value("trace").map { _ in FlowTrace() }
        let presenter = CommandLinePresenter(
            errors: global.environment.errors, quiet: global.quiet,
            showQR: noBrowser || (try? signIn.browser(for: input))?.command == nil,
            keepsWithoutAsking: arguments.has("yes"), hasTestSeed: { signIn.testSeed(for: $0) != nil })
        let prepared: SignInUseCase.Prepared
        do throws(SignInStartFailure) {
            prepared = try signIn.prepare(input, trace: trace, report: presenter.show) { words in
                if !global.quiet { global.err("authdeck: \(words)\n") }
            }
        } catch {
            switch error {
            case .store(.noSuchSession(let key)) where key == subjectSession(of: input.request.grant):
                throw .usage("--subject-session: no session '\(key)' in the store (authdeck list shows them)")
            case .store(let failure): throw StoreCommands.failure(failure)
            case .signIn(let failure): throw failure.commandFailure
            }
        }
        let controller = prepared.controller
        presenter.answersIdentity { controller.answerIdentity(keep: $0) }
        presenter.takesCodes(enter: { controller.enterCode($0) }, giveUp: { controller.cancel() })

        let interrupts = InterruptWatch { controller.cancel() }
        defer { interrupts.stop() }
        prepared.start()
        let lines = LineInput(ended: presenter.inputEnded) { line in
            switch controller.state {
            case .awaitingCallback(let attempt, .waiting):
                if case .oneTimeCode = attempt.method {
                    if line.lowercased() == "resend" {
                        controller.resend()
                    } else if !line.isEmpty {
                        controller.enterCode(line)
                    }
                } else if Self.looksLikeRedirect(line) {
                    presenter.pasted(controller.paste(line))
                } else if !line.isEmpty {
                    // A two-factor code piped in before its step asked: kept for that step, never a paste.
                    presenter.hold(line)
                }
            case .totpRequired(_, let challenge, .waiting):
                // A stored test-account seed is used only when asked for, by typing `seed`.
                if line == "seed", let seed = signIn.testSeed(for: challenge) {
                    controller.enterCode(seed.code(at: Date()))
                } else {
                    controller.enterCode(line)
                }
            case .awaitingCallback(_, .confirming), .totpRequired(_, _, .confirming):
                presenter.answered(line)
            case .awaitingCallback(_, .storageFailed), .totpRequired(_, _, .storageFailed):
                controller.retryPersist()
            case .idle:
                if !line.isEmpty { presenter.hold(line) }  // piped before the attempt began
            case .authenticated, .awaitingCallback, .totpRequired:
                break
            }
        }
        lines.start()
        let result = presenter.waitForResult()
        let noCode = CommandFailure(
            .usage,
            "standard input ended before a two-factor code: pipe it in (printf '%s\\n' CODE | authdeck login …) "
                + "or run login on a terminal")
        if let trace, let path = arguments.value("trace") {
            // The exit code closes the trace, so `trace replay` can tell whether it got what the customer got.
            let code: ExitCode
            switch result {
            case .success: code = .done
            case .failure(let error): code = presenter.codeInputEnded ? noCode.code : error.exitCode
            }
            // With the backend that ran, so `trace replay` takes the same one.
            trace.record(
                .exit, "exit code \(code.rawValue)",
                [
                    "code": .number(Double(code.rawValue)), "writer": .string("login"),
                    "backend": .string(input.request.backendName),
                ])
            try writeTrace(trace, to: path)
        }
        switch result {
        case .success(let outcome) where outcome.kind == .oidcTokenOnly:
            guard let held = prepared.heldToken?.value else { throw CommandFailure(.failed, "no OIDC token was kept") }
            // The token only ever goes to standard output; the public key is no secret.
            if arguments.has("json") {
                let object: JSONValue = .object([
                    "oidcToken": .string(held.oidcToken), "publicKey": .string(held.publicKeyHex),
                    "providerName": .string(outcome.record.provider),
                    "expiresAt": .string(SessionJSON.iso8601(held.expiresAt)),
                ])
                global.out(object.jsonText + "\n")
            } else {
                global.out(held.oidcToken + "\n" + held.publicKeyHex + "\n")
            }
            if !global.quiet {
                global.err(
                    "Session public key \(held.publicKeyHex), pending until \(SessionJSON.iso8601(held.expiresAt)): "
                        + "finish with authdeck login \(outcome.record.provider) --backend \(outcome.record.backend) "
                        + "--oidc-token FILE --public-key \(held.publicKeyHex)\n")
            }
            return .done
        case .success(let outcome):
            if let completing {
                // The token is spent at the proxy: its key is the session's now, not pending.
                try? store.removePendingKey(publicKeyHex: completing.publicKeyHex)
            }
            if arguments.has("json") {
                let entry = StoreEntry(record: outcome.record, isSelected: false)
                global.out(SessionJSON.listObject(entry, now: Date()) + "\n")
            } else {
                global.out(outcome.record.key + "\n")
            }
            return .done
        case .failure(let error):
            throw presenter.codeInputEnded ? noCode : error.commandFailure
        }
    }

    /// `--grant` and the options that belong to it, checked before anything is opened or sent: an unknown grant,
    /// CIBA without `--login-hint`, token exchange without `--subject-session`, or an option of another grant is a
    /// usage error (exit 2). The token exchange's parent session is read from the store later (`SignInUseCase`).
    static func grant(_ arguments: Arguments) throws(CommandFailure) -> SignInGrant {
        let name = arguments.value("grant") ?? (arguments.has("device") ? "device" : "authorization-code")
        if arguments.has("device"), name != "device" {
            throw .usage("--device is --grant device; it cannot go with --grant \(name)")
        }
        // --login-hint and --resource shape the browser's request too; `shape` says where else they belong.
        let cibaOptions = ["binding-message"]
        let exchangeOptions = ["subject-session", "audience", "requested-token-type"]
        func refuse(_ options: [String]) throws(CommandFailure) {
            for option in options where arguments.value(option) != nil {
                throw .usage("--\(option) is not for --grant \(name)")
            }
        }
        switch name {
        case "authorization-code", "device", "client-credentials":
            try refuse(cibaOptions + exchangeOptions)
            if name == "device" { return .device }
            return name == "client-credentials" ? .clientCredentials : .authorizationCode
        case "ciba":
            try refuse(exchangeOptions)
            guard let hint = arguments.value("login-hint"), !hint.isEmpty else {
                throw .usage("--grant ciba needs --login-hint USER: whom the provider asks to approve")
            }
            return .ciba(loginHint: hint, bindingMessage: arguments.value("binding-message"))
        case "token-exchange":
            try refuse(cibaOptions)
            guard let parent = arguments.value("subject-session"), !parent.isEmpty else {
                throw .usage("--grant token-exchange needs --subject-session KEY: the session whose token is exchanged")
            }
            return .tokenExchange(
                TokenExchange(
                    parentKey: parent, audience: arguments.value("audience"), resource: arguments.value("resource"),
                    requestedTokenType: arguments.value("requested-token-type")))
        default:
            throw .usage("unknown grant '\(name)' (\(SignInGrant.names.joined(separator: ", ")))")
        }
    }

    private static func subjectSession(of grant: SignInGrant) -> String? {
        if case .tokenExchange(let exchange) = grant { return exchange.parentKey }
        return nil
    }

    /// Whether a line read while the browser's redirect is awaited is a pasted redirect (a URL or its query)
    /// rather than a code typed or piped ahead of the two-factor step.
    static func looksLikeRedirect(_ line: String) -> Bool {
        line.contains("://") || line.hasPrefix("?") || line.contains("code=") || line.contains("error=")
    }

    /// Writes the trace as JSON lines, readable by the user only (it names accounts and endpoints): a new 0600
    /// file next to `path`, renamed over it, so neither a planted symlink nor an old file's mode decides where the
    /// trace goes or who can read it. A symlink at `path` is refused.
    /// - Parameter lines: what to write instead of the trace's own lines (the TUI's export closes them).
    static func writeTrace(_ trace: FlowTrace, to path: String, lines: String? = nil) throws(CommandFailure) {
        var existing = stat()
        if lstat(path, &existing) == 0 && existing.st_mode & S_IFMT == S_IFLNK {
            throw CommandFailure(.failed, "\(path) is a symbolic link; the trace is not written through it")
        }
        try PrivateFile.write(
            Array((lines ?? trace.jsonLines()).utf8), to: path, failure: "cannot write the trace to \(path)")
    }

    /// The request-shaping options, each checked now: a bad value is one usage line (exit 2) before the store opens
    /// or anything is sent.
    static func shape(_ input: inout SignInInput, _ arguments: Arguments) throws(CommandFailure) {
        typealias Check = AuthorizationOptions
        // The option being read, for the one line a bad value gets.
        var option = ""
        do throws(AuthorizationOptions.Problem) {
            option = "prompt"
            input.prompt = try arguments.value(option).map { (value) throws(Check.Problem) in try Check.prompt(value) }
            option = "login-hint"
            input.loginHint = try arguments.value(option).map { (value) throws(Check.Problem) in
                try Check.loginHint(value)
            }
            option = "max-age"
            input.maxAge = try arguments.value(option).map { (value) throws(Check.Problem) in try Check.maxAge(value) }
            option = "acr-values"
            input.acrValues = try arguments.value(option).map { (value) throws(Check.Problem) in
                try Check.acrValues(value)
            }
            option = "claims"
            input.claims = try arguments.value(option).map { (value) throws(Check.Problem) in try Check.claims(value) }
            option = "resource"
            for value in arguments.values(option) { input.resources.append(try Check.resource(value)) }
            option = "param"
            for value in arguments.values(option) {
                let pair = try Check.parameter(value)
                input.extraParameters.removeAll { $0.0 == pair.0 }
                input.extraParameters.append(pair)
            }
        } catch {
            throw .usage("--\(option): \(error.description)")
        }
        if let value = arguments.value("authorization-details") {
            let text = try value.hasPrefix("@") ? detailsFile(String(value.dropFirst())) : value
            do throws(AuthorizationOptions.Problem) {
                input.authorizationDetails = try Check.authorizationDetails(text)
            } catch {
                throw .usage("--authorization-details: \(error.description)")
            }
        }
    }

    /// The shaping options only the browser's authorization request carries, refused with any other grant before
    /// anything is loaded; CIBA takes the login hint and a token exchange one resource as their own.
    static func refuseBrowserOnlyOptions(_ arguments: Arguments, grant: SignInGrant) throws(CommandFailure) {
        // The one shaping option a grant without a browser takes as its own.
        let own: String? =
            switch grant {
            case .ciba: "login-hint"
            case .tokenExchange: "resource"
            default: nil
            }
        let given = ["prompt", "login-hint", "claims", "resource", "authorization-details", "param"].filter {
            !arguments.values($0).isEmpty && $0 != own
        }
        if grant == .device, !given.isEmpty {
            throw .usage(
                "--device has no authorization request to shape: drop --prompt, --login-hint, --claims, --resource, "
                    + "--authorization-details and --param, or sign in through the browser")
        }
        if grant != .authorizationCode, let option = given.first {
            throw .usage("--\(option) is not for --grant \(arguments.value("grant") ?? "device")")
        }
        if own == "resource", arguments.values("resource").count > 1 {
            throw .usage("--grant token-exchange takes one --resource")
        }
    }

    /// `--authorization-details @FILE`: the file's text, at most 64 KiB.
    static func detailsFile(_ path: String) throws(CommandFailure) -> String {
        guard let data = FileManager.default.contents(atPath: (path as NSString).expandingTildeInPath),
            data.count <= 65536, let text = String(data: data, encoding: .utf8)
        else {
            throw .usage("--authorization-details: cannot read \(path) (a readable UTF-8 file of at most 64 KiB)")
        }
        return text
    }

    /// `--contact` for email, SMS and the email link, validated and normalised; a bad one is a usage error (exit 2)
    /// before any request. Social providers take no contact.
    static func contact(for kind: Provider, _ value: String?) throws(CommandFailure) -> Contact? {
        guard kind.needsContact else {
            if value != nil { throw .usage("--contact is only for email, sms and email-link sign-in") }
            return nil
        }
        guard let value else {
            throw .usage(
                kind.contactIsPhone
                    ? "name the phone number: --contact +15550100001"
                    : "name the address: --contact you@example.com")
        }
        do throws(SignInError) {
            return kind.contactIsPhone ? try Contact.validatedPhone(value) : try Contact.validatedEmail(value)
        } catch {
            throw .usage(error.message)
        }
    }

    /// `--listen 127.0.0.1:PORT`: the loopback receiver never listens on anything but 127.0.0.1. Nil without the
    /// option (and for port 0): config.json's `listen` decides then.
    static func listenPort(_ value: String?) throws(CommandFailure) -> UInt16? {
        guard let value else { return nil }
        guard let port = LoopbackBinding.listenPort(value) else {
            throw .usage("--listen takes 127.0.0.1:PORT (the receiver listens on loopback only)")
        }
        return port == 0 ? nil : port
    }
}
