import AuthClient
import AuthCore
import Foundation
import SessionStorage
import TerminalUI

#if canImport(Glibc)
    import Glibc
#endif

/// The TUI's event loop: one thread owns the app state. It sleeps in `poll` on the terminal, the inbox's wake-up
/// pipe and an inotify watch on the store's folder; it reads keys, drains what the sign-in controllers and
/// background work posted, looks at the store when another process wrote to it, ticks the clock (every second
/// while something on screen counts down in seconds or an auto-refresh is near, else at the minute the status
/// bar's clock turns), hands each to `AppState.apply`, runs the effects that come back, and presents a frame when
/// anything changed.
final class TUIEventLoop {
    private(set) var state: AppState
    private let terminal: Terminal
    private let store: TUIStore
    private let pages: TUIPageSource
    private let setup: SignInSetup
    private let inbox = TUIInbox()
    /// Network and scrypt work, off the loop so the screen keeps answering.
    private let background = DispatchQueue(label: "authdeck.tui.background", attributes: .concurrent)
    /// One controller per flow, so a cancelled flow's late reports carry its own number.
    private var controllers: [Int: SignInController] = [:]
    /// Each flow's redacted protocol trace, for `e` on the Trace screen.
    private var traces: [Int: FlowTrace] = [:]
    /// The secret copied last under tmux, whose paste buffer the clearing deletes.
    private var copiedInTmux: TmuxPasteBuffer?

    /// `pages` is the source the Sessions table reads from (a new one over `store` when nil).
    init(state: AppState, terminal: Terminal, store: TUIStore, pages: TUIPageSource? = nil, setup: SignInSetup) {
        self.state = state
        self.terminal = terminal
        self.store = store
        self.pages = pages ?? TUIPageSource(store: store)
        self.setup = setup
        let inbox = self.inbox
        self.pages.reportCounts { inbox.post($0) }
        // The first screen has its rows at once: what the table asks for is read before the first frame.
        for effect in self.state.settle() { run(effect) }
    }

    /// Runs until the user quits.
    func run() {
        var watch = TUIStoreWatch(directory: store.location.directory)
        // The first look, once the watch exists: what another process wrote since the first frame is read, and the
        // lock record and change counter are known before the next write, so a `store lock` whose write arrives in
        // the same wake-up as an earlier one still reads as a new lock.
        if watch != nil { _ = watchOtherProcesses() }
        TUIResizeWake.install(descriptor: inbox.wakeDescriptorForSignals)
        var nextTick = tickAfter(Date(), watching: watch != nil)
        while !state.isQuitting {
            var changed = false
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inbox.wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: watch?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let wait = nextTick.timeIntervalSinceNow * 1000
            // Without a wake-up pipe a post could go unseen, so the loop then looks every 40 ms as it used to.
            let timeout = inbox.wakeDescriptor < 0 ? min(40, wait) : wait
            _ = poll(&descriptors, nfds_t(descriptors.count), Int32(max(0, min(60_000, timeout.rounded(.up)))))
            if descriptors[0].revents & Int16(POLLHUP | POLLNVAL | POLLERR) != 0 { break }  // the terminal is gone
            // Whatever woke the loop, curses is asked for keys without waiting: a resize (SIGWINCH, which also
            // writes to the wake-up pipe) arrives as a key, and curses may hold bytes it read ahead.
            while let request = terminal.nextKey(timeoutMilliseconds: 0) {
                dispatch(.key(request))
                changed = true
                if state.isQuitting { break }
            }
            for event in inbox.drain() {
                dispatch(event)
                changed = true
            }
            if let watch, descriptors[2].revents != 0 {
                watch.drain()
                changed = watchOtherProcesses() || changed
            }
            let now = Date()
            if now >= nextTick {
                if watch == nil { watch = TUIStoreWatch(directory: store.location.directory) }
                dispatch(.tick(now))
                if watch == nil { _ = watchOtherProcesses() }
                nextTick = tickAfter(now, watching: watch != nil)
                changed = true
            } else if changed {
                // A key or a post may have put a countdown on screen: the next tick may come sooner.
                nextTick = min(nextTick, tickAfter(now, watching: watch != nil))
            }
            if let failure = pages.takeFailure() {
                dispatch(.storeFailed(failure))
                changed = true
            }
            if changed && !state.isQuitting { present() }
        }
        for controller in controllers.values { controller.cancel() }
    }

    /// When the clock must tick next: the next second while something on screen counts down in seconds (a sign-in,
    /// a row or the details within the hour of its expiry), an auto-refresh is within the hour, or no inotify
    /// watch sees other processes' writes; else the next minute, when the status bar's clock turns.
    private func tickAfter(_ now: Date, watching: Bool) -> Date {
        let seconds = now.timeIntervalSince1970
        let nextSecond = Date(timeIntervalSince1970: seconds.rounded(.down) + 1)
        guard watching, !secondsCountDown(at: now) else { return nextSecond }
        return Date(timeIntervalSince1970: (seconds / 60).rounded(.down) * 60 + 60)
    }

    private func secondsCountDown(at now: Date) -> Bool {
        if state.clipboardClearsAt != nil { return true }  // the copied token is cleared on its second
        switch state.mode {
        case .sessions, .details: break
        case .unlock, .newSignIn, .contact, .signIn: return true
        case .sandbox: return true  // the panel reads the sandbox again every few seconds (switches made elsewhere)
        }
        if state.overlay == .trace { return true }
        let list = state.sessions
        let rows = max(0, SessionsScreen.layout(rows: state.rows, cols: state.cols).table.rows - 1)
        let shown = list.scrollOffset..<min(list.count, list.scrollOffset + rows)
        for row in shown {
            let item = list.item(atRow: row)
            if case .refreshing = item.refresh { return true }
            if let expiresAt = item.record.expiresAt, abs(expiresAt.timeIntervalSince(now)) < 3_660 { return true }
        }
        let horizon = now.addingTimeInterval(3_660)
        let candidates =
            list.isPaged
            ? pages.autoRefreshCandidates(expiringBy: horizon).map(list.overlaid)
            : list.items.filter { SessionList.refreshes($0, by: horizon) }
        return candidates.contains { item in
            switch item.refresh {
            case .idle, .refreshed: return true
            case .refreshing, .failed: return false
            }
        }
    }

    func present() {
        terminal.present(AppScreen.frame(state))
    }

    /// For `make bench`: the mean time from a key request to a presented frame, moving down and up the list.
    func timeKeyPresses(_ count: Int) -> Duration {
        timeKeys((0..<count).map { $0 % 2 == 0 ? .down : .up })
    }

    /// For `make bench`: the mean time from a key to a frame while a filter is typed and taken back: `/`, a word,
    /// a `provider:` prefix, Backspace after each, Esc; ten times over.
    func timeFilterKeystrokes() -> Duration {
        var keys: [KeyRequest] = []
        for _ in 0..<10 {
            keys.append(.character("/"))
            for word in ["user42", "provider:dis"] {
                keys += word.map { KeyRequest.character($0) }
                keys += Array(repeating: .backspace, count: word.count)
            }
            keys.append(.escape)
        }
        return timeKeys(keys)
    }

    private func timeKeys(_ keys: [KeyRequest]) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        for key in keys {
            dispatch(.key(key))
            present()
        }
        return start.duration(to: clock.now) / keys.count
    }

    private func dispatch(_ event: AppEvent) {
        for effect in state.apply(event) { run(effect) }
    }

    // MARK: - Other processes

    /// The store's change counter when last looked at; the first look always reads the store again, so nothing
    /// slips in between the first frame and the watch.
    private var watchedCounter: Int64 = -1
    /// The store's lock record when last looked at (nil: not yet looked). A new one means `store lock` ran
    /// elsewhere: this TUI forgets its key too.
    private var watchedLock: String??

    /// Locks when another process locked the store since the last look, while this TUI holds the key.
    private func followLock(_ opened: SessionStore) {
        let stamp = opened.lockStamp()
        defer { watchedLock = stamp }
        guard let seen = watchedLock, seen != stamp, case .unlocked = state.store else { return }
        opened.forgetKey()
        dispatch(.storeLocked("Locked by authdeck store lock: type the passphrase to unlock."))
    }

    /// When another process committed to the store (a script's login, import, refresh or logout), the table reads
    /// its count and the rows on screen again; marks on sessions that went away are dropped. True when it looked.
    private func watchOtherProcesses() -> Bool {
        // `trace show` and `sandbox panel` never open the store.
        guard !state.singleScreen, let opened = try? store.store(create: false),
            let counter = try? opened.changeCounter()
        else {
            return false
        }
        guard counter != watchedCounter else { return false }
        watchedCounter = counter
        followLock(opened)
        let removed = state.marked.filter { key in
            do throws(StoreError) {
                _ = try opened.entry(key)
                return false
            } catch {
                if case .noSuchSession = error { return true }
                return false
            }
        }
        dispatch(
            .sessionsChangedElsewhere(
                removed: removed.sorted(),
                selected: try? opened.selectedKey()))
        return true
    }

    // MARK: - Effects

    private func run(_ effect: AppEffect) {
        switch effect {
        case .readPage(let request):
            // On the loop's thread and applied at once (SQLite answers a page in well under a frame), so the key
            // press that asked draws the rows; a count that would read every row goes off the thread
            // (`TUIPageSource.countLater`) and comes back as `sessionsCounted`.
            dispatch(.pageRead(pages.answer(request)))
        case .startSignIn(let flow, let choice):
            start(flow, choice)
        case .cancelSignIn(let flow):
            controllers[flow]?.cancel()
        case .pasteRedirect(let flow, let text):
            // The verdict also arrives as the controller's report, which the screen shows.
            _ = controllers[flow]?.paste(text)
        case .enterCode(let flow, let code):
            controllers[flow]?.enterCode(code)
        case .useTestAccountCode(let flow):
            useTestAccountCode(flow)
        case .exportTrace(let flow):
            exportTrace(flow)
        case .resendCode(let flow):
            controllers[flow]?.resend()
        case .answerIdentity(let flow, let keep):
            controllers[flow]?.answerIdentity(keep: keep)
        case .retrySave(let flow):
            controllers[flow]?.retryPersist()
        case .dismissSignIn(let flow):
            controllers[flow]?.dismiss()
            controllers[flow] = nil
        case .select(let key):
            storeWork { store throws(StoreError) in
                try store.select(key)
                return [.sessionSelected(key)]
            }
        case .clearDefault:
            storeWork { store throws(StoreError) in
                try store.clearSelection()
                return [.defaultCleared]
            }
        case .signOut(let key, let revoke, false):
            signOut(key, revoke: revoke)
        case .signOut(let key, let revoke, true):
            signOutAtProvider(key, revoke: revoke)
        case .askEndSession(let key):
            // On the loop's thread: the discovery cache is a file read, and no request is sent.
            if let opened = try? store.store(create: false), let entry = try? opened.entry(key),
                SignOutUseCase.offered(entry.record, dataFolder: setup.dataFolder)
            {
                dispatch(.endSessionOffered(key))
            }
        case .refresh(let key):
            refresh(key, onlyWhenDue: false)
        case .autoRefresh(let key):
            refresh(key, onlyWhenDue: true)
        case .setAutoRefresh(let key, let enabled):
            storeWork { store throws(StoreError) in
                try store.setAutoRefresh(key, enabled)
                return [.sessionStored(TUIStore.item(try store.entry(key)), focus: false)]
            }
        case .lockStore:
            guard let opened = try? store.store(create: false) else { break }
            opened.lockStore()
            watchedLock = opened.lockStamp()
            dispatch(.storeLocked("Locked with L: type the passphrase to unlock."))
        case .unlock(let passphrase):
            let store = self.store
            let inbox = self.inbox
            background.async {
                do throws(StoreError) {
                    let status = try store.unlock(passphrase: passphrase)
                    // The table reads its rows from the store itself.
                    inbox.post(.sessionsLoaded([]))
                    inbox.post(.storeChanged(status))
                } catch {
                    inbox.post(.unlockFailed(error.description))
                }
            }
        case .copy(let text, let what):
            copy(text, what: what)
        case .clearClipboard:
            terminal.sendControl(Clipboard.clearing)
            if let copied = copiedInTmux {
                copiedInTmux = nil
                background.async { copied.delete() }
            }
        case .copyToken(let key):
            storeWork { store throws(StoreError) in
                let session = try store.session(key)
                guard let token = session.secrets.bearer else {
                    return [.storeFailed("\(key) holds no access token to copy.")]
                }
                // The reducer refreshed first or refused; another process may have changed the session since.
                if let expiresAt = session.record.expiresAt, expiresAt <= Date() {
                    return [.storeFailed("\(key) expired: nothing was copied. Refresh it (r) or sign in again (n).")]
                }
                copy(token, what: "the access token of \(key)", secret: true)
                return []
            }
        case .runDoctor:
            let inbox = self.inbox
            background.async { inbox.post(.doctorReport(Self.doctorLines())) }
        case .openTraceFile(let path):
            inbox.post(TraceDocument.screenEvent(path: (path as NSString).expandingTildeInPath))
        case .completeTracePath(let typed):
            let (text, choices) = Self.completedPath(typed)
            dispatch(.tracePathCompleted(text, choices: choices))
        case .completeSessionKeys(let prefix):
            // `key:PREFIX*` is the `/` filter's key-start word: the key index answers it without reading every row.
            let found = pages.rows(
                sort: .key, descending: false, filter: "key:\(prefix)*", at: Date(), after: nil, skip: 0,
                limit: Self.completedKeys)
            dispatch(.sessionKeysCompleted(prefix: prefix, keys: found?.map(\.key) ?? []))
        case .sandboxFaults(let url, let faults, let delayMs):
            let inbox = self.inbox
            background.async {
                inbox.post(SandboxFaultsCommand.panelEvent(url: url, faults: faults, delayMs: delayMs))
            }
        case .pollSandbox(let url, let request):
            let inbox = self.inbox
            background.async { inbox.post(SandboxFaultsCommand.pollEvent(url: url, request: request)) }
        case .readBinding(let key):
            // Details says more when the session's sealed half can be read; when it cannot, it says what it did.
            if let opened = try? store.store(create: false), let session = try? opened.session(key) {
                dispatch(.bindingRead(TUISignInWords.binding(session)))
            }
        case .inspect(let key):
            inspect(key)
        case .introspect(let key):
            introspect(key)
        case .repaint:
            terminal.repaintAll()
        case .quit:
            break  // the loop ends once the state says so
        }
    }

    private func start(_ flow: Int, _ choice: SignInChoice) {
        let inbox = self.inbox
        let sessionStore: SessionStore
        do throws(StoreError) {
            guard let opened = try store.store(create: true) else { throw StoreError.storage("no store") }
            sessionStore = opened
            if case .empty = state.store {
                let status = try store.unlock(passphrase: nil)
                inbox.post(.storeChanged(status))
                if case .needsPassphrase = status { return }  // the screen asks for one, then starts again
            }
        } catch {
            inbox.post(.storeChanged(.locked(error.description)))
            inbox.post(.signIn(flow: flow, .finished(.failure(.sessionStorageFailure(message: error.description)))))
            return
        }
        let trace = FlowTrace(onStep: { step in
            // The details were redacted by field when the step was recorded; they are shown when it is expanded.
            inbox.post(
                .signInDetail(
                    flow: flow,
                    .protocolStep(
                        kind: step.kind.rawValue, summary: step.summary,
                        elapsedMilliseconds: step.elapsedMs,
                        details: step.details)))
        })
        // The New sign-in form (and `R`, which repeats it) fills the same input `login`'s options do.
        var input = SignInInput(
            request: SignInRequest(
                provider: choice.provider, backendName: choice.backend,
                sessionKey: choice.sessionKey, replace: choice.replace, contact: choice.contact,
                useDevice: choice.useDevice),
            issuer: choice.issuer, clientID: choice.clientID)
        if let options = choice.options { TUISignInWords.apply(options, to: &input) }
        // `m`'s grants without a browser, as `login --grant` runs them: CIBA asks the user the login hint names.
        switch choice.method {
        case .backchannel:
            input.request.grant = .ciba(loginHint: input.loginHint ?? "", bindingMessage: nil)
            input.loginHint = nil
        case .machine:
            input.request.grant = .clientCredentials
        case .browser, .device:
            break
        }
        let signIn = SignInUseCase(setup: setup, store: sessionStore)
        let prepared: SignInUseCase.Prepared
        do throws(SignInStartFailure) {
            prepared = try signIn.prepare(
                input, trace: trace,
                report: { progress in
                    // Tagged with the flow: a cancelled flow's late reports are told apart from the current one's.
                    for detail in SignInDetail.accompanying(progress, hasTestSeed: { signIn.testSeed(for: $0) != nil })
                    {
                        inbox.post(.signInDetail(flow: flow, detail))
                    }
                    inbox.post(.signIn(flow: flow, progress))
                },
                moved: { words in inbox.post(.storeFailed(words)) })
        } catch {
            let failure: SignInError
            switch error {
            case .store(let refusal): failure = .sessionStorageFailure(message: refusal.description)
            case .signIn(let refusal): failure = refusal
            }
            // Nothing was sent: a flow from New sign-in goes back to its form with the reason.
            inbox.post(.signInRefused(flow: flow, failure))
            return
        }
        if let provider = TUISignInWords.resolvedProvider(prepared.backend) {
            inbox.post(.signInDetail(flow: flow, .protections(TUISignInWords.protections(provider))))
        }
        controllers[flow] = prepared.controller
        traces[flow] = trace
        store.lastBackend = choice.backend
        prepared.start()
    }

    /// Writes a flow's trace as JSON lines (the `login --trace` format) under the data folder, readable by the user only.
    private func exportTrace(_ flow: Int) {
        guard let trace = traces[flow] else {
            inbox.post(.signInDetail(flow: flow, .traceExported("This flow has no protocol trace to export.")))
            return
        }
        let folder = store.location.directory + "/traces"
        let choice = state.traceableFlows.first { $0.id == flow }?.choice
        let provider = choice?.provider.name ?? "flow"
        let path = "\(folder)/" + Self.traceFileName(at: Date(), provider: provider)
        // Closed by who wrote it and the backend, as `login --trace` closes with its exit code: the TUI has none.
        var closing: [String: JSONValue] = ["writer": .string("tui")]
        if let backend = choice?.backend { closing["backend"] = .string(backend) }
        do throws(CommandFailure) {
            mkdir(folder, 0o700)
            try LoginCommand.writeTrace(
                trace, to: path, lines: trace.jsonLines(closedBy: closing, "exported from the TUI (no exit code)"))
            inbox.post(.signInDetail(flow: flow, .traceExported("Trace written to \(path)")))
        } catch {
            inbox.post(.signInDetail(flow: flow, .traceExported("Could not write the trace: \(error.message)")))
        }
    }

    /// How many stored keys Tab on the `:` line reads at most: more than the status bar shows.
    static let completedKeys = 64

    /// A path completed as a shell completes it: the names in its folder that start with what was typed after the
    /// last `/`, the text extended as far as they agree (a folder's name gets its `/`), and the names when several
    /// fit. Hidden names only when a `.` was typed; `~` is read as the home folder and kept as typed.
    static func completedPath(_ typed: String) -> (text: String, choices: [String]) {
        let slash = typed.lastIndex(of: "/")
        let folder = slash.map { String(typed[...$0]) } ?? ""
        let start = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        let listed = folder.isEmpty ? "." : (folder as NSString).expandingTildeInPath
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: listed)) ?? [])
            .filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted()
        guard let first = names.first else { return (typed, []) }
        var common = first
        for name in names.dropFirst() {
            common = String(zip(common, name).prefix { $0 == $1 }.map(\.0))
        }
        var isFolder: ObjCBool = false
        let single = names.count == 1
        if single, FileManager.default.fileExists(atPath: listed + "/" + first, isDirectory: &isFolder),
            isFolder.boolValue
        {
            common += "/"
        }
        return (folder + common, single ? [] : names)
    }

    /// `authdeck doctor` run as a child of this same binary (its own store connection stays in its own process),
    /// its lines as printed.
    static func doctorLines() -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["doctor"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return ["FAIL  doctor           could not start: \(error)"]
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map { DisplayText.sanitized(String($0)) }
    }

    /// `trace-2026-12-01T06-27-47-google.jsonl`: sorts by time, says which provider, and has no colons.
    static func traceFileName(at date: Date, provider: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withDashSeparatorInDate, .withColonSeparatorInTime]
        let stamp = formatter.string(from: date).replacingOccurrences(of: ":", with: "-")
        let name =
            provider.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" }
            ? provider : "flow"
        return "trace-\(stamp)-\(name).jsonl"
    }

    /// Answers a TOTP prompt with the stored seed's current code, asked for with `u`.
    private func useTestAccountCode(_ flow: Int) {
        guard let current = state.flow, current.id == flow,
            case .running(.totpRequired(_, let challenge, _)) = current.phase,
            let opened = try? store.store(create: false),
            let seed = SignInUseCase(setup: setup, store: opened).testSeed(for: challenge)
        else {
            // The code never went out: the screen shows the machine as it still is (waiting), and why.
            if let machine = controllers[flow]?.state { inbox.post(.signIn(flow: flow, .stateChanged(machine))) }
            inbox.post(
                .signIn(flow: flow, .notice(.unavailable(reason: "no test-account seed is stored for this user"))))
            return
        }
        controllers[flow]?.enterCode(seed.code(at: Date()))
    }

    private func signOut(_ key: String, revoke: Bool) {
        guard revoke else {
            storeWork { store throws(StoreError) in
                try store.remove(key)
                return [.sessionRemoved(key)]
            }
            return
        }
        let revoking: StoredSessionWork = {
            opened, refresher, inbox throws(StoreError) in
            let session = try opened.session(key)
            do throws(SignInError) {
                try refresher.revoke(session)
            } catch {
                inbox.post(.storeFailed("Revoking \(key) failed, so it was kept: \(error.message)"))
                return
            }
            try opened.remove(key)
            inbox.post(.sessionRemoved(key))
        }
        onStoredSession(key, failed: { .storeFailed($0) }, work: revoking)
    }

    /// The same use case as `logout --end-session`, off the loop's thread: the provider's sign-out page in the
    /// browser, revocation when asked, removal; the status line then names what happened at each place.
    private func signOutAtProvider(_ key: String, revoke: Bool) {
        let setup = self.setup
        let ending: StoredSessionWork = {
            opened, refresher, inbox throws(StoreError) in
            let useCase = SignOutUseCase(
                configuration: setup.configuration, dataFolder: setup.dataFolder, store: opened, refresher: refresher,
                transport: CurlTransport(timeout: 10, trust: setup.trust))
            let report: SignOutReport
            do throws(CommandFailure) {
                let target = try useCase.prepare(key)
                let browser = BrowserLauncher(environment: setup.environment)
                report = useCase.run(target, revoke: revoke, timeout: SignOutUseCase.defaultTimeout) {
                    url throws(SignInError) in
                    try browser.open(url)
                }
            } catch {
                inbox.post(.storeFailed(error.message))
                return
            }
            inbox.post(.signedOutAtProvider(key: key, summary: report.summary, removed: report.removedHere))
        }
        onStoredSession(key, failed: { .storeFailed($0) }, work: ending)
    }

    /// What runs on an opened store off the loop's thread: the store, a refresher, and the inbox to post results to.
    private typealias StoredSessionWork =
        @Sendable (SessionStore, SessionRefresher, TUIInbox) throws(StoreError) -> Void

    /// Runs `work` off the loop's thread on the opened store with a refresher; a store that fails (or does not
    /// exist: then the session does not either) is posted as `failed` says.
    private func onStoredSession(
        _ key: String, failed: @escaping @Sendable (String) -> AppEvent,
        work: @escaping StoredSessionWork
    ) {
        let store = self.store
        let inbox = self.inbox
        let refresher = sessionRefresher
        background.async {
            do throws(StoreError) {
                guard let opened = try store.store(create: false) else { throw StoreError.noSuchSession(key) }
                try work(opened, refresher, inbox)
            } catch {
                inbox.post(failed(error.description))
            }
        }
    }

    /// Refreshes and revokes stored sessions, an imported one with today's config.json client for its issuer.
    private var sessionRefresher: SessionRefresher {
        SessionRefresher(transport: CurlTransport(trust: setup.trust), currentProvider: currentProvider)
    }

    /// What today's config.json says of a stored session's provider.
    private var currentProvider: @Sendable (SessionRecord) -> CurrentProvider? {
        CurrentEndpoints.lookup(
            configuration: setup.configuration, catalog: setup.catalog, environment: setup.environment)
    }

    private func refresh(_ key: String, onlyWhenDue: Bool) {
        let refreshing: StoredSessionWork = {
            opened, refresher, inbox throws(StoreError) in
            // The same locked path as `authdeck refresh`, so the TUI and scripts never refresh one session twice.
            do throws(CommandFailure) {
                _ = try SessionCommands.refresh(
                    key, store: opened,
                    refresher: refresher,
                    onlyWhenDue: onlyWhenDue)
            } catch {
                inbox.post(.refreshFinished(key: key, error: error.message))
                return
            }
            inbox.post(.sessionStored(TUIStore.item(try opened.entry(key)), focus: false))
            inbox.post(.refreshFinished(key: key, error: nil))
        }
        onStoredSession(key, failed: { .refreshFinished(key: key, error: $0) }, work: refreshing)
    }

    /// The inspector's `TokenInspection`, made off the loop's thread (the issuer's keys may need fetching).
    private func inspect(_ key: String) {
        let inspector = InspectCommand.inspector(
            environment: setup.environment, trust: setup.trust, currentProvider: currentProvider)
        let failed: @Sendable (String) -> AppEvent = { .inspected(key: key, .failed($0)) }
        onStoredSession(key, failed: failed) { opened, _, inbox throws(StoreError) in
            let session = try opened.session(key)
            do throws(SignInError) {
                inbox.post(.inspected(key: key, .inspected(try inspector.inspect(session, now: Date()))))
            } catch {
                inbox.post(
                    failed("cannot check the signatures without the issuer's keys: " + InspectCommand.reason(error)))
            }
        }
    }

    /// `I`: the issuer's introspection answer, summed up in the message line.
    private func introspect(_ key: String) {
        let inspector = InspectCommand.inspector(
            environment: setup.environment, trust: setup.trust, currentProvider: currentProvider)
        let failed: @Sendable (String) -> AppEvent = {
            .introspected(key: key, line: "Cannot introspect \(key): \($0)", active: false)
        }
        onStoredSession(key, failed: failed) { opened, refresher, inbox throws(StoreError) in
            let session = try opened.session(key)
            do throws(SignInError) {
                let answer = try InspectCommand.introspection(
                    session, inspector: inspector, refresher: refresher, now: Date())
                inbox.post(
                    .introspected(
                        key: key, line: InspectCommand.summary(answer, key: key, now: Date()),
                        active: answer["active"] == .bool(true)))
            } catch {
                inbox.post(failed(InspectCommand.reason(error)))
            }
        }
    }

    /// OSC 52: the terminal puts the text on the user's clipboard, over SSH and tmux too. The text itself is never
    /// shown or logged.
    private func copy(_ text: String, what: String, secret: Bool = false) {
        guard let sequence = Clipboard.sequence(for: text) else {
            inbox.post(.storeFailed("Too long to copy through the terminal (over \(Clipboard.maximumBytes) bytes)."))
            return
        }
        terminal.sendControl(sequence)
        let inTmux = !(setup.environment["TMUX"] ?? "").isEmpty
        copiedInTmux = secret && inTmux ? TmuxPasteBuffer(copied: text, environment: setup.environment) : nil
        inbox.post(.copied(what: what, secret: secret))
    }

    /// A quick store change run on the loop's thread (SQLite answers in well under a frame); its events follow.
    private func storeWork(_ body: (SessionStore) throws(StoreError) -> [AppEvent]) {
        do throws(StoreError) {
            guard let opened = try store.store(create: false) else {
                inbox.post(.storeFailed("no sessions stored yet"))
                return
            }
            for event in try body(opened) { inbox.post(event) }
        } catch {
            inbox.post(.storeFailed(error.description))
        }
    }
}
