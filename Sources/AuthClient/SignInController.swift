import AuthCore
import Foundation
import Synchronization

/// Where the redirect receivers listen.
public struct ReceiverOptions: Sendable {
    /// The loopback port (`--listen 127.0.0.1:PORT`); 0 picks one.
    public var loopbackPort: UInt16
    /// The custom-scheme socket; nil leaves that receiver off.
    public var schemeSocketPath: String?
    public var pages: CallbackPages

    public init(loopbackPort: UInt16 = 0, schemeSocketPath: String? = nil, pages: CallbackPages = CallbackPages()) {
        self.loopbackPort = loopbackPort
        self.schemeSocketPath = schemeSocketPath
        self.pages = pages
    }
}

/// The owner of the sign-in machine: the one place its actions run. Events from receivers, the keyboard,
/// network answers and the clock are serialised on one queue; each is `let action = machine.event(…); run(action)`.
// Unchecked: all mutable state is touched on `queue` only, asserted by dispatchPrecondition; `shownState` is a Mutex.
public final class SignInController: @unchecked Sendable {
    public typealias Persist = @Sendable (Session) throws(SignInError) -> SessionRecord
    /// Who shows the sign-in to a person (the command line's printer, the TUI's inbox) takes each report here.
    /// Called on the controller's queue; keep it quick.
    public typealias Report = @Sendable (SignInProgress) -> Void

    private let queue = DispatchQueue(label: "authdeck.sign-in")
    private let work = DispatchQueue(label: "authdeck.sign-in.work", attributes: .concurrent)
    private let report: Report
    private let persist: Persist
    private let receiverOptions: ReceiverOptions
    private let browser: BrowserLauncher?
    private let clock: @Sendable () -> Date
    private let trace: FlowTrace?

    /// The machine's state as of the last event the queue handled, for `state`: a report callback runs on the queue
    /// and may read it there, where waiting for the queue would never return.
    private let shownState = Mutex(SignInStateMachine().state)

    // Touched on `queue` only: `run(_:)` and `machine`'s didSet assert it.
    private var lastStateName = SignInStateMachine.State.idle(lastError: nil).traceName
    /// The state last reported.
    private var reportedState: SignInStateMachine.State?
    private var machine = SignInStateMachine() {
        didSet {
            dispatchPrecondition(condition: .onQueue(queue))
            let state = machine.state
            shownState.withLock { $0 = state }
        }
    }
    private var backend: SignInBackend?
    private var loopback: LoopbackReceiver?
    private var scheme: SchemeReceiver?
    /// Why the authdeck:// receiver did not start, for the waiting message.
    private var schemeFailure: String?
    private var timer: DispatchSourceTimer?
    private var nextAttempt: UInt64 = 1

    /// - Parameter browser: opens the authorize URL; nil to only show it (`--no-browser`).
    /// - Parameter trace: records every protocol step of the attempts (give the same trace to the backend's
    ///   transport through `TracingTransport` so requests land in it too).
    public init(
        report: @escaping Report, persist: @escaping Persist, receivers: ReceiverOptions,
        browser: BrowserLauncher?, trace: FlowTrace? = nil, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.trace = trace
        self.report = report
        self.persist = persist
        self.receiverOptions = receivers
        self.browser = browser
        self.clock = clock
    }

    /// The machine's state after the last event the controller handled; safe from any thread, the report callback
    /// included. An event queued a moment ago (a typed code) may not be in it yet.
    public var state: SignInStateMachine.State {
        shownState.withLock { $0 }
    }

    // MARK: - Events

    /// Starts a sign-in with `backend`; refused with `signInInProgress` while one runs (rule 1).
    public func start(_ backend: SignInBackend, timeout: TimeInterval) {
        queue.async { [self] in
            if let refusal = machine.startRefusal() {
                run(refusal)
                return
            }
            let id = AttemptID(nextAttempt)
            nextAttempt += 1
            do throws(SignInError) {
                let attempt = try prepare(backend, id: id, timeout: timeout)
                self.backend = backend
                run(machine.startRequested(attempt))
            } catch {
                stopReceivers()
                report(.finished(.failure(error)))
            }
        }
    }

    /// A redirect URL typed or pasted by the user (SSH sessions, `--no-browser`).
    @discardableResult
    public func paste(_ text: String) -> CallbackVerdict {
        let parsed = Result { () throws(CallbackParser.Failure) in try CallbackParser.parse(url: text) }
        return deliver(parsed, source: "paste")
    }

    public func enterCode(_ code: String) {
        trace?.learnSecret(code)
        queue.async { [self] in run(machine.codeEntered(code, now: clock())) }
    }

    public func resend() {
        queue.async { [self] in run(machine.resendRequested(now: clock())) }
    }

    public func cancel() {
        queue.async { [self] in run(machine.cancelRequested()) }
    }

    /// The user's answer to whether to keep a session that came without `state` (the state is `confirming`).
    public func answerIdentity(keep: Bool) {
        queue.async { [self] in run(machine.identityAnswered(keep: keep)) }
    }

    public func retryPersist() {
        queue.async { [self] in run(machine.persistRetryRequested()) }
    }

    public func dismiss() {
        queue.async { [self] in run(machine.dismissed()) }
    }

    /// Runs `body` on the controller's queue after everything queued before it: for tests and orderly shutdown.
    public func sync<T>(_ body: () -> T) -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))  // a report callback waiting for its own queue
        return queue.sync(execute: body)
    }

    // MARK: - Actions

    private func run(_ action: SignInStateMachine.Action) {
        dispatchPrecondition(condition: .onQueue(queue))
        // Each change is told once, not on every tick; a refusal tells the state again, for a screen that showed
        // the refused request (a code) as going ahead.
        var refused = false
        if case .reject = action { refused = true }
        if machine.state != reportedState || refused {
            reportedState = machine.state
            report(.stateChanged(machine.state))
        }
        let name = machine.state.traceName
        if name != lastStateName {
            trace?.record(
                .transition, "\(lastStateName) → \(name)", ["from": .string(lastStateName), "to": .string(name)])
            lastStateName = name
        }
        switch action {
        case .none:
            break
        case .begin(let attempt):
            startTimer()
            background(attempt.id) { backend throws(SignInError) in
                let prompt = try backend.begin(attempt)
                self.queue.async { self.began(attempt, prompt) }
            }
        case .exchange(let id, let grant):
            let attempt = attemptInFlight()
            background(id) { backend throws(SignInError) in
                let answer = try backend.exchange(attempt, grant)
                self.queue.async { self.answered(id, answer) }
            }
        case .verifyCode(let id, let otpID, let code):
            let attempt = attemptInFlight()
            background(id, codeMayBeWrong: true) { backend throws(SignInError) in
                let answer = try backend.verifyCode(attempt, otpID: otpID, code: code)
                self.queue.async { self.answered(id, answer) }
            }
        case .verifyTOTP(let id, let userJwt, let code):
            let attempt = attemptInFlight()
            background(id, codeMayBeWrong: true) { backend throws(SignInError) in
                let answer = try backend.verifyTOTP(attempt, userJwt: userJwt, code: code)
                self.queue.async { self.answered(id, answer) }
            }
        case .resendCode(let id):
            let attempt = attemptInFlight()
            background(id) { backend throws(SignInError) in
                let otpID = try backend.resendCode(attempt)
                self.queue.async {
                    self.run(self.machine.codeSent(id, otpID: otpID, resendAvailableAt: self.nextResend()))
                }
            }
        case .confirmIdentity(_, let issued):
            // The front end asks the user, seeing the `confirming` state just reported.
            let record = issued.session.record
            trace?.record(
                .confirm, "asked whether to keep the session for \(record.userLabel) (the redirect had no state)",
                ["user": .string(record.userLabel)])
        case .persist(let id, let issued):
            let persist = self.persist
            work.async {
                do throws(SignInError) {
                    let record = try persist(issued.session)
                    self.queue.async { self.run(self.machine.persisted(id, record)) }
                } catch {
                    let message: String
                    if case .sessionStorageFailure(let text) = error { message = text } else { message = error.message }
                    self.queue.async { self.run(self.machine.persistFailed(id, message: message)) }
                }
            }
        case .report(let outcome):
            finish()
            trace?.record(
                .result, "stored session \(outcome.record.key) (\(outcome.kind.rawValue))",
                ["key": .string(outcome.record.key), "kind": .string(outcome.kind.rawValue)])
            report(.finished(.success(outcome)))
        case .reject(let error):
            trace?.record(.notice, error.message, ["code": .string(error.code)])
            report(.notice(error))
        case .fail(_, let error):
            finish()
            trace?.record(.result, error.message, ["error": .string(error.message), "code": .string(error.code)])
            report(.finished(.failure(error)))
        case .replay(let outcome):
            report(.replayed(outcome))
        case .replayStep:
            // The same step again, as PortalSwift's handleRedirect answers it: the code prompt is shown anew.
            trace?.record(.notice, "the exchanged redirect came again; the same TOTP step, nothing exchanged")
            report(.stateChanged(machine.state))
        case .discard(_, let issued, let error):
            // Cancelled while the session was being issued: it is not stored, and revoked where the backend can.
            let backend = self.backend
            finish()
            trace?.record(
                .result, error.message + "; the issued session was not stored",
                ["error": .string(error.message), "code": .string(error.code)])
            // Reported once the revocation is done, so a command that exits on the report does not cut it short.
            work.async {
                backend?.revoke(issued)
                self.queue.async { self.report(.finished(.failure(error))) }
            }
        }
    }

    // MARK: - Helpers

    /// The attempt a backend call is for: the machine asks for one only while an attempt is in flight.
    private func attemptInFlight() -> Attempt {
        guard let attempt = machine.currentAttempt else {
            preconditionFailure("the sign-in machine asked for a backend call with no attempt in flight")
        }
        return attempt
    }

    private func prepare(_ backend: SignInBackend, id: AttemptID, timeout: TimeInterval) throws(SignInError) -> Attempt
    {
        dispatchPrecondition(condition: .onQueue(queue))
        let deliver: LoopbackReceiver.Deliver = { [weak self] parsed, source in
            guard let self else { return .refused("authdeck is shutting down") }
            return self.deliver(parsed, source: source)
        }
        // The loopback receiver must run before the attempt exists: its port is part of the redirect URI.
        var loopbackURI: String?
        if backend.waitsForRedirect {
            let binding = try LoopbackBinding.resolve(
                registered: backend.registeredRedirectURI,
                listenPort: receiverOptions.loopbackPort)
            let receiver = try binding.open(pages: receiverOptions.pages, deliver: deliver)
            loopback = receiver
            loopbackURI = receiver.redirectURI
            schemeFailure = nil
            if let path = receiverOptions.schemeSocketPath {
                // The scheme receiver is a convenience: the sign-in goes on without it, but the user is told.
                do throws(SignInError) {
                    scheme = try SchemeReceiver(socketPath: path, deliver: deliver)
                } catch {
                    schemeFailure = error.message
                }
            }
        }
        let method = try backend.method(loopbackRedirectURI: loopbackURI)
        return try backend.makeAttempt(id: id, method: method, deadline: clock().addingTimeInterval(timeout))
    }

    private func deliver(_ received: Result<Callback, CallbackParser.Failure>, source: String) -> CallbackVerdict {
        // Runs on a receiver's thread; the machine is only touched on the queue.
        dispatchPrecondition(condition: .notOnQueue(queue))  // a report callback pasting would wait for itself
        let (parsed, unpackFailure) = unpacked(received, by: queue.sync { backend })
        var endedAttempt = false
        let verdict: CallbackVerdict = queue.sync {
            switch parsed {
            case .failure(let failure):
                let verdict = CallbackVerdict.refused("This is not a valid sign-in redirect: \(failure.description).")
                recordReceiver(parsed, source: source, verdict: verdict)
                return verdict
            case .success(let callback):
                for secret in [callback.code, callback.idToken, callback.token] { trace?.learnSecret(secret) }
                // Every receiver serves the user's own processes only: the loopback receiver refuses other users'
                // sockets (LoopbackPeer) and the scheme socket checks SO_PEERCRED, before anything reaches here.
                let action: SignInStateMachine.Action
                if let unpackFailure {
                    // A signed response that fails its checks ends the attempt waiting for it, as a bad ID token does.
                    if case .awaitingCallback(let attempt, .waiting) = machine.state {
                        action = machine.requestFailed(attempt.id, unpackFailure)
                    } else {
                        action = .reject(unpackFailure)  // the exchange already runs: this one changes nothing
                    }
                } else {
                    action = machine.callbackReceived(callback, now: clock(), fromOwnUser: true)
                }
                let verdict: CallbackVerdict
                var refusal: SignInError?
                switch action {
                case .exchange, .replay, .replayStep: verdict = .accepted
                case .reject(let error):
                    verdict = .refused(error.message)
                    refusal = error
                case .fail(_, let error):
                    verdict = .refused(error.message)
                    refusal = error
                    endedAttempt = true
                case .none: verdict = .refused("This sign-in is no longer waiting for a redirect.")
                case .begin, .verifyCode, .verifyTOTP, .resendCode, .confirmIdentity, .persist, .report, .discard:
                    verdict = .refused("Unexpected redirect.")
                }
                // Before the action runs: the receiver step comes ahead of the result it leads to.
                recordReceiver(parsed, source: source, verdict: verdict, refusal: refusal)
                run(action)
                return verdict
            }
        }
        // A redirect that ended the attempt (the provider's error) is told by the result, not as a refused notice
        // that would arrive after it.
        if !endedAttempt {
            let refusal: String?
            if case .refused(let reason) = verdict { refusal = reason } else { refusal = nil }
            queue.async { self.report(.callbackArrived(source: source, refusal: refusal)) }
        }
        return verdict
    }

    /// The redirect's parameters as the backend reads them (a JWT-secured response verified off the queue, since
    /// it may fetch the JWKS), with the response decoded into the trace without its signature.
    private func unpacked(
        _ received: Result<Callback, CallbackParser.Failure>, by backend: SignInBackend?
    ) -> (Result<Callback, CallbackParser.Failure>, SignInError?) {
        guard case .success(let callback) = received, let backend else { return (received, nil) }
        if let response = callback.response {
            trace?.learnSecret(response)
            trace?.record(.receiver, "signed response (JARM)", FlowTrace.decodedIDToken(response))
        }
        do throws(SignInError) {
            return (.success(try backend.responseParameters(callback)), nil)
        } catch {
            return (received, error)
        }
    }

    /// The trace's receiver step, with the provider's `error` and `error_description` as they came (printable), and
    /// the code of the error that refused the redirect.
    private func recordReceiver(
        _ parsed: Result<Callback, CallbackParser.Failure>, source: String,
        verdict: CallbackVerdict, refusal: SignInError? = nil
    ) {
        var details: [String: JSONValue] = ["source": .string(source)]
        if let refusal { details["code"] = .string(refusal.code) }
        if case .success(let callback) = parsed, let issuer = callback.issuer {
            details["iss"] = .string(SignInError.printable(issuer))
        }
        if case .success(let callback) = parsed, let error = callback.error {
            details["error"] = .string(SignInError.printable(error))
            details["error_description"] =
                callback.errorDescription.map { .string(SignInError.printable($0)) }
                ?? .null
            details["state"] = callback.state.map { FlowTrace.redactedValue("state", $0) } ?? .null
        }
        switch verdict {
        case .accepted:
            details["accepted"] = .bool(true)
            trace?.record(.receiver, "\(source): accepted", details)
        case .refused(let reason):
            details["accepted"] = .bool(false)
            details["reason"] = .string(reason)
            trace?.record(.receiver, "\(source): refused: \(reason)", details)
        }
    }

    private func began(_ attempt: Attempt, _ prompt: AttemptPrompt) {
        guard machine.currentAttempt?.id == attempt.id else { return }  // cancelled while starting
        trace?.learnSecret(attempt.codeVerifier)
        var receivers = ["paste"]
        if let loopback { receivers.insert("loopback \(loopback.redirectURI)", at: 0) }
        if let scheme { receivers.insert("authdeck:// (\(scheme.socketPath))", at: receivers.count - 1) }
        if scheme == nil, let schemeFailure {
            receivers.insert("no authdeck:// (\(schemeFailure))", at: receivers.count - 1)
        }
        report(.began(attempt, prompt, receivers: receivers))
        switch prompt {
        case .browser(let url):
            let (base, parameters) = FlowTrace.redactedURL(url)
            trace?.record(
                .authorize, "authorize at \(base)",
                [
                    "url": .string(base), "parameters": parameters,
                    "receivers": .array(receivers.map { .string($0) }),
                ])
        case .device(let authorization):
            trace?.record(
                .authorize, "device code \(authorization.userCode) at \(authorization.verificationURI)",
                [
                    "verificationURI": .string(authorization.verificationURI),
                    "interval": .number(Double(authorization.interval)),
                ])
        case .codeSent:
            trace?.record(.authorize, "one-time code sent")
        case .backchannel(let authorization):
            trace?.learnSecret(authorization.authRequestID)
            trace?.record(
                .authorize, "backchannel request for \(authorization.loginHint)",
                [
                    "interval": .number(Double(authorization.interval)),
                    "expiresIn": .number(Double(authorization.expiresIn)),
                    "bindingMessage": authorization.bindingMessage.map { .string($0) } ?? .null,
                ])
        case .tokenRequest(let grant):
            trace?.record(.authorize, "no user to ask: \(grant) at the token endpoint")
        case .linkSent(let contact):
            trace?.record(
                .authorize, "sign-in link sent to \(contact)",
                ["receivers": .array(receivers.map { .string($0) })])
        }
        // Told at once, not after the timeout: the provider will send the browser where no receiver listens.
        if prompt.waitsForRedirect, case .browser(let redirectURI) = attempt.method,
            let reason = RedirectReach.problem(
                redirectURI: redirectURI, loopback: loopback?.redirectURI,
                schemeReceiver: scheme != nil)
        {
            trace?.record(.notice, "redirect unreachable: " + reason)
            report(.redirectUnreachable(reason))
        }
        let randomPort = receiverOptions.loopbackPort == 0 && loopback != nil
        for note in backend?.notes(for: attempt, randomPort: randomPort) ?? [] {
            trace?.record(.notice, note)
            report(.note(note))
        }
        switch prompt {
        case .browser(let url):
            if let browser {
                do throws(SignInError) {
                    try browser.open(url)
                } catch {
                    report(.notice(error))
                }
            }
        case .device(let authorization):
            // As `gh auth login` does: open the verification page here when a browser is at hand; the code shown
            // in the terminal still works on any other device.
            if let browser {
                do throws(SignInError) {
                    try browser.open(authorization.verificationURIComplete ?? authorization.verificationURI)
                } catch {
                    report(.notice(error))
                }
            }
            pollDevice(attempt, interval: authorization.interval)
        case .codeSent(let otpID):
            run(machine.codeSent(attempt.id, otpID: otpID, resendAvailableAt: nextResend()))
        case .backchannel(let authorization):
            // The provider reaches the user itself; the token endpoint is polled as for the device grant.
            pollDevice(attempt, interval: authorization.interval)
        case .tokenRequest:
            pollDevice(attempt, interval: 0)
        case .linkSent:
            break  // the link is opened from the mail, and its redirect comes to the receivers
        }
    }

    private func answered(_ id: AttemptID, _ answer: BackendAnswer) {
        switch answer {
        case .issued(let issued): run(machine.sessionIssued(id, issued))
        case .totpRequired(let challenge): run(machine.totpChallenged(id, challenge))
        case .codeRequired(let contact, let format, let otpID):
            run(
                machine.codeRequired(
                    id, contact: contact, format: format, otpID: otpID,
                    resendAvailableAt: nextResend()))
        }
    }

    /// Runs a backend call off the queue and reports its failure back as an event.
    private func background(
        _ id: AttemptID, codeMayBeWrong: Bool = false,
        _ body: @escaping @Sendable (SignInBackend) throws(SignInError) -> Void
    ) {
        guard let backend else {
            preconditionFailure("the sign-in machine asked for a backend call after its attempt ended")
        }
        work.async {
            do throws(SignInError) {
                try body(backend)
            } catch {
                self.queue.async {
                    if codeMayBeWrong, error == .invalidCode || error.refusesCode {
                        self.run(self.machine.codeRejected(id, error))
                    } else {
                        self.run(self.machine.requestFailed(id, error))
                    }
                }
            }
        }
    }

    private func pollDevice(_ attempt: Attempt, interval: Int) {
        // The attempt ended while the last poll was out (cancelled, timed out): there is nothing left to poll for.
        guard let backend else { return }
        work.asyncAfter(deadline: .now() + .seconds(interval)) {
            let stillWaiting = self.queue.sync { self.machine.currentAttempt?.id == attempt.id }
            guard stillWaiting else { return }
            var next = interval
            do throws(SignInError) {
                if let answer = try backend.pollDevice(attempt, interval: &next) {
                    self.queue.async { self.answered(attempt.id, answer) }
                } else {
                    let slower = next
                    self.queue.async { self.pollDevice(attempt, interval: slower) }
                }
            } catch {
                self.queue.async { self.run(self.machine.requestFailed(attempt.id, error)) }
            }
        }
    }

    /// When a code that goes out now may be sent again.
    private func nextResend() -> Date {
        clock().addingTimeInterval(SignInStateMachine.resendCooldown)
    }

    private func startTimer() {
        timer?.cancel()
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + 1, repeating: 1)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            self.run(self.machine.tick(now: self.clock()))
        }
        source.resume()
        timer = source
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        backend = nil
        stopReceivers()
    }

    /// The authdeck:// socket closes here, before the result is reported, so a sign-in started on that report
    /// finds it free (its stop only closes and unlinks; it never waits for the receiver's thread, which may be
    /// inside `deliver` waiting on this very queue). The loopback receiver stops off the queue a moment later, so
    /// the browser still gets the page that says what happened.
    private func stopReceivers() {
        let loopback = self.loopback
        scheme?.stop()
        self.loopback = nil
        self.scheme = nil
        work.asyncAfter(deadline: .now() + .milliseconds(500)) { loopback?.stop() }
    }
}
