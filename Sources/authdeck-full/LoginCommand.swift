import AuthClient
import AuthCore
import Foundation
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck login PROVIDER`: runs one sign-in through the shared state machine and stores the session.
enum LoginCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let environment = ProcessEnvironment.current()
        if arguments.value("session") != nil {  // a typo for --session-key, which would be silently ignored
            throw .usage("login names its new session with --session-key KEY (--session picks an existing one)")
        }
        let positionals = try arguments.positionals(atMost: 1)
        guard let provider = positionals.first else {
            throw .usage("name a provider: google, apple, discord, x, oidc, email or sms")
        }
        guard Provider(provider).isStandard else {
            throw .usage("unknown provider '\(provider)' (google, apple, discord, x, oidc, email, sms)")
        }
        let timeout = try arguments.integer("timeout", in: 5...3600) ?? 300
        var listenPort = try listenPort(arguments.value("listen"))
        let configuration: Configuration
        let catalog: ProviderCatalog
        do throws(SignInError) {
            configuration = try ConfigurationFile.load(explicit: global.config, environment: environment)
            catalog = try ConfigurationFile.catalog(environment: environment)
        } catch {
            throw error.commandFailure
        }
        if listenPort == 0 { listenPort = try configuredListenPort(configuration) }
        let backendName = arguments.value("backend") ?? configuration.defaultBackendName
        // The contact is checked before anything else happens: a typo never reaches the proxy (SPEC 3.3).
        let contact = try contact(for: provider, arguments.value("contact"))
        let request = SignInRequest(
            provider: provider, backendName: backendName, sessionKey: arguments.value("session-key"),
            replace: arguments.has("replace"),
            scopes: arguments.value("scope").map { $0.split(separator: " ").map(String.init) },
            contact: contact, useDevice: arguments.has("device"), timeout: TimeInterval(timeout))
        if let key = request.sessionKey, let problem = SessionKeyRule.problem(key) {
            throw .usage("--session-key: \(problem)")
        }

        // The store opens first: a locked store fails now, not after the user has signed in.
        let store = try StoreCommands.attempt { () throws(StoreError) in
            try SessionStore.open(StoreCommands.location(), options: StoreCommands.storeOptions(global), create: true)
        }
        guard let store else { throw CommandFailure(.store, "the session store cannot be opened") }
        try StoreCommands.attempt { () throws(StoreError) in try store.unlock() }
        // A taken key is refused before the browser opens, not after the user has signed in.
        if let key = request.sessionKey, !request.replace,
            (try? store.entry(key)) != nil
        {
            throw StoreCommands.failure(.keyTaken(key))
        }

        let dataFolder = ConfigurationFile.dataFolder(environment: environment)
        let trace = arguments.value("trace").map { _ in FlowTrace() }
        let transport: HTTPTransport =
            trace.map { TracingTransport(CurlTransport(), trace: $0) }
            ?? CurlTransport()
        let metadata = ProviderMetadataCache(transport: transport, folder: dataFolder.appendingPathComponent("cache"))
        let backend: SignInBackend
        do throws(SignInError) {
            backend = try SignInBackendFactory.make(
                request: request, configuration: configuration, catalog: catalog, transport: transport,
                metadata: metadata,
                overrides: ProviderOverrides(
                    issuer: arguments.value("issuer"), clientID: arguments.value("client-id"),
                    clientSecretFile: arguments.value("client-secret-file"),
                    scopes: request.scopes))
        } catch {
            throw error.commandFailure
        }

        let persist = SessionKeyChoice(request).persist(into: store) { proposed, stored in
            if !global.quiet {
                Output.err("authdeck: '\(proposed)' names another account's session; stored as '\(stored)'\n")
            }
        }
        let noBrowser = arguments.has("no-browser")
        let browser = noBrowser ? nil : BrowserLauncher(environment: environment)
        let presenter = CommandLinePresenter(
            quiet: global.quiet, showQR: noBrowser || browser?.command == nil, keepsWithoutAsking: arguments.has("yes"),
            hasTestSeed: { TOTPCommand.seed(for: $0, in: store) != nil })
        let controller = SignInController(
            report: presenter.show, persist: persist,
            receivers: ReceiverOptions(
                loopbackPort: listenPort,
                schemeSocketPath: SchemeReceiver.defaultSocketPath(environment: environment)),
            browser: browser?.command == nil ? nil : browser, trace: trace)
        presenter.answersIdentity { controller.answerIdentity(keep: $0) }

        let interrupts = InterruptWatch { controller.cancel() }
        defer { interrupts.stop() }
        controller.start(backend, timeout: TimeInterval(timeout))
        let input = LineInput(ended: presenter.inputEnded) { line in
            switch controller.state {
            case .awaitingCallback(let attempt, .waiting):
                if case .oneTimeCode = attempt.method {
                    if line.lowercased() == "resend" {
                        controller.resend()
                    } else if !line.isEmpty {
                        controller.enterCode(line)
                    }
                } else {
                    presenter.pasted(controller.paste(line))
                }
            case .totpRequired(_, let challenge, .waiting):
                // A stored test-account seed is used only when asked for, by typing `seed`.
                if line == "seed", let seed = TOTPCommand.seed(for: challenge.user, in: store) {
                    controller.enterCode(seed.code(at: Date()))
                } else {
                    controller.enterCode(line)
                }
            case .awaitingCallback(_, .confirming), .totpRequired(_, _, .confirming):
                presenter.answered(line)
            case .awaitingCallback(_, .storageFailed), .totpRequired(_, _, .storageFailed):
                controller.retryPersist()
            case .idle, .authenticated, .awaitingCallback, .totpRequired:
                break
            }
        }
        input.start()
        let result = presenter.waitForResult()
        if let trace, let path = arguments.value("trace") {
            // The exit code closes the trace, so `trace replay` can tell whether it got what the customer got.
            let code: ExitCode
            switch result {
            case .success: code = .done
            case .failure(let error): code = error.exitCode
            }
            trace.record(.exit, "exit code \(code.rawValue)", ["code": .number(Double(code.rawValue))])
            try writeTrace(trace, to: path)
        }
        switch result {
        case .success(let outcome):
            if arguments.has("json") {
                let entry = StoreEntry(record: outcome.record, isSelected: false)
                Output.out(SessionJSON.listObject(entry, now: Date()) + "\n")
            } else {
                Output.out(outcome.record.key + "\n")
            }
            return .done
        case .failure(let error):
            throw error.commandFailure
        }
    }

    /// Writes the trace as JSON lines, readable by the user only (it names accounts and endpoints): a new 0600
    /// file next to `path`, renamed over it, so neither a planted symlink nor an old file's mode decides where the
    /// trace goes or who can read it. A symlink at `path` is refused.
    static func writeTrace(_ trace: FlowTrace, to path: String) throws(CommandFailure) {
        var existing = stat()
        if lstat(path, &existing) == 0 && existing.st_mode & S_IFMT == S_IFLNK {
            throw CommandFailure(.failed, "\(path) is a symbolic link; the trace is not written through it")
        }
        try PrivateFile.write(Array(trace.jsonLines().utf8), to: path, failure: "cannot write the trace to \(path)")
    }

    /// `--contact` for email and SMS, validated and normalised; a bad one is a usage error (exit 2) before any
    /// request. Social providers take no contact.
    static func contact(for provider: String, _ value: String?) throws(CommandFailure) -> Contact? {
        let kind = Provider(provider)
        guard kind.sendsCode else {
            if value != nil { throw .usage("--contact is only for email and sms sign-in") }
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

    /// `--listen 127.0.0.1:PORT`: the loopback receiver never listens on anything but 127.0.0.1.
    static func listenPort(_ value: String?) throws(CommandFailure) -> UInt16 {
        guard let value else { return 0 }
        guard let port = LoopbackBinding.listenPort(value) else {
            throw .usage("--listen takes 127.0.0.1:PORT (the receiver listens on loopback only)")
        }
        return port
    }

    /// config.json's `listen`, the same form as `--listen`; a bad one is a configuration error (exit 1).
    static func configuredListenPort(_ configuration: Configuration) throws(CommandFailure) -> UInt16 {
        guard let value = configuration.listen else { return 0 }
        guard let port = LoopbackBinding.listenPort(value) else {
            throw CommandFailure(.failed, "config.json: listen takes 127.0.0.1:PORT, not '\(value)'")
        }
        return port
    }
}
