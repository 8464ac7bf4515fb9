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
        global.environment.requireProcess("login")
        let environment = global.environment.variables
        if arguments.value("session") != nil {  // a typo for --session-key, which would be silently ignored
            throw .usage("login names its new session with --session-key KEY (--session picks an existing one)")
        }
        let positionals = try arguments.positionals(atMost: 1)
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
        // The contact is checked before anything else happens: a typo never reaches the proxy (SPEC 3.3).
        let contact = try contact(for: provider, arguments.value("contact"))
        let noBrowser = arguments.has("no-browser")
        var input = SignInInput(
            request: SignInRequest(
                provider: provider, backendName: arguments.value("backend") ?? setup.configuration.defaultBackendName,
                sessionKey: arguments.value("session-key"), replace: arguments.has("replace"),
                scopes: arguments.value("scope").map { $0.split(separator: " ").map(String.init) },
                contact: contact, useDevice: arguments.has("device"), timeout: TimeInterval(timeout)),
            issuer: arguments.value("issuer"), clientID: arguments.value("client-id"),
            clientSecretFile: arguments.value("client-secret-file"), authMethod: arguments.value("auth-method"),
            privateKeyFile: arguments.value("private-key-file"), keyID: arguments.value("key-id"),
            listenPort: receiverPort, opensBrowser: !noBrowser)
        input.clientCertificateFile = arguments.value("client-certificate")
        input.clientCertificateKeyFile = arguments.value("client-certificate-key")
        if arguments.has("dpop") { input.dpop = true }
        if arguments.has("par") { input.pushedAuthorizationRequests = true }
        if arguments.has("request-object") { input.requestObject = "signed" }
        if let key = input.request.sessionKey, let problem = SessionKeyRule.problem(key) {
            throw .usage("--session-key: \(problem)")
        }

        // The store opens first: a locked store fails now, not after the user has signed in.
        let store = try StoreCommands.attempt { () throws(StoreError) in
            try SessionStore.open(
                StoreCommands.location(global), options: StoreCommands.storeOptions(global), create: true)
        }
        guard let store else { throw CommandFailure(.store, "the session store cannot be opened") }
        try StoreCommands.attempt { () throws(StoreError) in try store.unlock() }

        let signIn = SignInUseCase(setup: setup, store: store)
        let trace = arguments.value("trace").map { _ in FlowTrace() }
        let presenter = CommandLinePresenter(
            errors: global.environment.errors, quiet: global.quiet,
            showQR: noBrowser || BrowserLauncher(environment: environment).command == nil,
            keepsWithoutAsking: arguments.has("yes"), hasTestSeed: { signIn.testSeed(for: $0) != nil })
        let prepared: SignInUseCase.Prepared
        do throws(SignInStartFailure) {
            prepared = try signIn.prepare(input, trace: trace, report: presenter.show) { proposed, stored in
                if !global.quiet {
                    global.err("authdeck: '\(proposed)' names another account's session; stored as '\(stored)'\n")
                }
            }
        } catch {
            switch error {
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
            trace.record(.exit, "exit code \(code.rawValue)", ["code": .number(Double(code.rawValue))])
            try writeTrace(trace, to: path)
        }
        switch result {
        case .success(let outcome):
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

    /// Whether a line read while the browser's redirect is awaited is a pasted redirect (a URL or its query)
    /// rather than a code typed or piped ahead of the two-factor step.
    static func looksLikeRedirect(_ line: String) -> Bool {
        line.contains("://") || line.hasPrefix("?") || line.contains("code=") || line.contains("error=")
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
    static func contact(for kind: Provider, _ value: String?) throws(CommandFailure) -> Contact? {
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
