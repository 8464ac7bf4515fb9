import AuthCore
import Foundation

/// The reducer: every event goes through `update`, which changes the state and names the effects the event loop
/// must run. Pure: no clock, no I/O, so key scripts can be tested line by line.
extension AppState {
    /// The state after `event`, and what the event loop must do about it.
    public static func update(_ state: AppState, _ event: AppEvent) -> (AppState, [AppEffect]) {
        var copy = state
        let effects = copy.apply(event)
        return (copy, effects)
    }

    /// `update` in place, for the event loop.
    public mutating func apply(_ event: AppEvent) -> [AppEffect] {
        handle(event) + settle()
    }

    /// What every event ends with, and what the event loop runs before its first frame: the view placed, and the
    /// rows and keys the state lacks asked for (`AppEffect.readPage`; the answer comes back as `pageRead`).
    public mutating func settle() -> [AppEffect] {
        // A session whose details are open and that went away (signed out here or elsewhere): back to the list,
        // once the rows are read (while they are, the cursor's row may not be held yet).
        if case .details(let key) = mode, !sessions.isReading, sessions.current?.key != key { mode = .sessions }
        // The table's first row moves only when the cursor leaves the view; stored here since rendering is pure.
        let visibleRows = max(0, SessionsScreen.layout(rows: rows, cols: cols).table.rows - 1)
        sessions.scroll(
            to: Table.scrollOffset(
                current: sessions.scrollOffset, selected: sessions.cursor,
                visibleRows: visibleRows, rowCount: sessions.count), rows: visibleRows)
        sessions.watch(watchedKeys)
        return sessions.takeRequest().map { [.readPage($0)] } ?? []
    }

    /// Sessions the state must know about beyond the rows on screen: the marked ones (`r` and `d` act on them, in
    /// table order), the key typed on New sign-in (a taken one is refused), the one `z` would make the default
    /// again, and the one an unlock resumes a refresh of.
    private var watchedKeys: Set<String> {
        var keys = marked
        if case .newSignIn(let form) = mode, !form.sessionKey.text.isEmpty { keys.insert(form.sessionKey.text) }
        if let previous = defaultChange?.previous { keys.insert(previous) }
        if case .refresh(let key) = afterUnlock { keys.insert(key) }
        if let key = commandPending?.key { keys.insert(key) }
        return keys
    }

    private mutating func handle(_ event: AppEvent) -> [AppEffect] {
        switch event {
        case .key(let request):
            return handleKey(request)
        case .tick(let date):
            now = date
            return clipboardClearDue() + autoRefreshDue() + sandboxPollDue()
        case .sessionsLoaded(let items):
            sessions.replaceAll(items)
            return []
        case .storeChanged(let status):
            store = status
            switch (mode, status) {
            case (.unlock(let form), .unlocked), (.unlock(let form), .empty):
                mode = .sessions
                message = Message(
                    form.isNew
                        ? "Store created: its passphrase unlocks it from now on."
                        : "Store unlocked.")
                return resumeAfterUnlock()
            case (.unlock(var form), .locked(let reason)), (.unlock(var form), .needsPassphrase(let reason)):
                form.reason = reason
                form.isUnlocking = false
                mode = .unlock(form)
            case (.signIn(let flow), .locked), (.signIn(let flow), .needsPassphrase):
                // The sign-in could not open the store: unlock (or choose a passphrase), then start it again.
                guard case .starting = flow.phase else { break }
                lastFlow = flow
                afterUnlock = .signIn(flow.choice)
                askToUnlock(for: "sign in")
            default:
                break
            }
            return []
        case .storeLocked(let reason):
            // Tokens close at once: the unlock screen replaces the list (Esc there lists sessions, locked).
            store = .locked(reason)
            copyAfterRefresh = nil
            switch mode {
            case .sessions, .details:
                overlay = .none
                mode = .unlock(UnlockForm(reason: reason))
            case .unlock, .newSignIn, .contact, .signIn, .sandbox:
                break
            }
            message = Message("Store locked: tokens stay closed until it is unlocked.")
            return []
        case .unlockFailed(let text):
            if case .unlock(var form) = mode {
                form.isUnlocking = false
                form.error = text
                form.firstEntry = nil
                form.field = TextField(isMasked: true, isFocused: true, maxLength: 1024)
                mode = .unlock(form)
            } else {
                message = Message(text, isError: true)
            }
            return []
        case .sessionStored(let item, let focus):
            sessions.upsert(item, focus: focus)
            return []
        case .sessionSelected(let key):
            sessions.markSelected(key)
            message = defaultMessage(now: key)
            return []
        case .defaultCleared:
            sessions.markSelected("")
            message = defaultMessage(now: nil)
            return []
        case .sessionRemoved(let key):
            sessions.remove(key)
            marked.remove(key)
            if !bulkAnswered(key, error: nil) { message = Message("Signed out of \(key).") }
            return []
        case .endSessionOffered(let key):
            // Only the question still up for that key changes; a late answer after it closed is dropped.
            if case .confirmSignOut(key, let revoke, false) = overlay {
                overlay = .confirmSignOut(key: key, revoke: revoke, atProvider: true)
            }
            return []
        case .signedOutAtProvider(let key, let summary, let removed):
            if removed {
                sessions.remove(key)
                marked.remove(key)
            }
            message = Message("\(key): \(summary)", isError: !removed)
            return []
        case .sessionsChangedElsewhere(let removed, let selected):
            // No message: nothing the user did here happened, and the rows say it.
            sessions.applyExternal(removed: removed)
            for key in removed { marked.remove(key) }
            sessions.markSelected(selected ?? "")
            return []
        case .sessionsCounted(let request, let matching):
            sessions.countArrived(matching, request: request)
            return []
        case .pageRead(let page):
            let candidates = sessions.pageArrived(page)
            if let shown = sessions.takeShownKeys() { markShown(shown) }
            let resumed = resumePendingCommand()
            guard let candidates else { return resumed }
            return resumed + startAutoRefresh(candidates)
        case .refreshFinished(let key, let error):
            sessions.update(key) { $0.refresh = error.map { .failed($0) } ?? .refreshed(now) }
            guard !bulkAnswered(key, error: error) else { return [] }
            message =
                error.map { Message("Refresh of \(key) failed: \($0)", isError: true) }
                ?? Message("Refreshed \(key).")
            guard copyAfterRefresh == key else { return [] }
            copyAfterRefresh = nil
            if let error { message = Message("Refresh of \(key) failed, nothing was copied: \(error)", isError: true) }
            return error == nil ? [.copyToken(key)] : []
        case .storeFailed(let text):
            message = Message(text, isError: true)
            return []
        case .notice(let text):
            message = Message(text)
            return []
        case .copied(let what, let secret):
            let clears = secret && clipboardClearSeconds > 0
            clipboardClearsAt = clears ? now.addingTimeInterval(TimeInterval(clipboardClearSeconds)) : nil
            let when = clears ? "; clears in \(clipboardClearSeconds) s" : ""
            message = Message("Copied \(what)\(when) (OSC 52: terminals and tmux with set-clipboard on).")
            return []
        case .traceFileOpened(let file):
            traceFileOpened(file)
            return []
        case .traceFileFailed(let text):
            traceFileFailed(text)
            return []
        case .sessionKeysCompleted(let prefix, let found):
            sessionKeysCompleted(prefix, keys: found)
            return []
        case .tracePathCompleted(let text, let choices):
            tracePathCompleted(text, choices: choices)
            return []
        case .sandboxAnswered(let report, let switched):
            sandboxAnswered(report, switched: switched)
            return []
        case .sandboxFailed(let text):
            sandboxFailed(text)
            return []
        case .sandboxPolled(let request, let answer):
            sandboxPolled(request, answer)
            return []
        case .doctorReport(let lines):
            message = nil
            if overlay == .none { overlay = .doctor(lines) }
            return []
        case .signIn(let id, let progress):
            return handleSignIn(id, progress)
        case .signInDetail(let id, let detail):
            return handleSignInDetail(id, detail)
        case .signInRefused(let id, let error):
            return handleSignInRefused(id, error)
        case .bindingRead(let read):
            binding = read
            return []
        case .inspected(let key, let content):
            if inspector?.key == key { inspector?.content = content }
            return []
        case .introspected(_, let line, let active):
            message = Message(line, isError: !active)
            return []
        }
    }

    // MARK: - Keys

    mutating func handleKey(_ request: KeyRequest) -> [AppEffect] {
        switch request {
        case .resize(let newRows, let newCols):
            rows = newRows
            cols = newCols
            return []
        case .redraw:
            return [.repaint]
        default:
            break
        }
        // A screen too small to show anything takes only the keys that leave: acting on keys the user cannot see
        // the answer to (a `d` then `y`) would be guessing.
        if !TooSmallScreen.fits(rows: rows, cols: cols) {
            guard request == .escape || request == .interrupt else { return [] }
            overlay = .none
        }
        switch overlay {
        case .none:
            break
        case .help, .traceHelp:
            if helpSearchKey(request) { return [] }
            overlay = overlay == .traceHelp ? .trace : .none  // any other key closes help (the Trace's: to the trace)
            return []
        case .message, .doctor:
            overlay = .none  // any key closes the full message and the doctor's report
            return []
        case .trace:
            return traceKey(request)
        case .confirmSignOut, .confirmSignOutMarked:
            return confirmKey(request)
        }
        if let prompt = commandPrompt { return commandPromptKey(request, prompt) }
        switch mode {
        case .unlock(let form): return unlockKey(request, form)
        case .sessions: return sessionsKey(request)
        case .details(let key): return detailsKey(request, key)
        case .newSignIn(let form): return newSignInKey(request, form)
        case .contact(let form): return contactKey(request, form)
        case .signIn(let flow): return flowKey(request, flow)
        case .sandbox(let panel): return sandboxKey(request, panel)
        }
    }

    /// `/` in help and what follows it: the typed words filter help's lines as they are typed, Enter keeps them,
    /// Esc clears them (Esc with a kept filter clears it too). False for a key that closes help.
    private mutating func helpSearchKey(_ request: KeyRequest) -> Bool {
        if helpSearch.isTyping {
            switch request {
            case .enter: helpSearch.isTyping = false
            case .escape, .interrupt: helpSearch = HelpOverlay.Search()
            default:
                // Typed at the end, as a search line is (the cursor starts there).
                let field = TextField(text: helpSearch.query, isFocused: true, maxLength: 60)
                if let edited = field.applying(request) { helpSearch.query = edited.text }
            }
            return true
        }
        switch request {
        case .character("/"):
            helpSearch.isTyping = true
            return true
        case .escape where !helpSearch.query.isEmpty:
            helpSearch = HelpOverlay.Search()
            return true
        default:
            helpSearch = HelpOverlay.Search()
            return false
        }
    }

    /// The Trace screen: a selection bar over every step (j/k, PgUp/PgDn, Home/End), Enter to expand or fold the
    /// selected step's redacted details, `[`/`]` to older and newer attempts, `e` to export.
    private mutating func traceKey(_ request: KeyRequest) -> [AppEffect] {
        if let handled = traceFileKey(request) { return handled }
        let lines = tracedLines
        let room = TraceScreen.room(rows: rows)
        let selected = min(traceSelected ?? lines.count - 1, max(0, lines.count - 1))
        if case .mouseClick = request {
            overlay = .none
            traceBack = 0
            resetTraceView()
            return []
        }
        // The keys are `KeyBinding.trace`'s, so the help overlay lists exactly what works here.
        guard let command = KeyBinding.command(for: request, in: keys.trace) else { return [] }
        switch command {
        case .back:
            overlay = .none
            traceBack = 0
            resetTraceView()
        case .help:
            overlay = .traceHelp
        case .exportTrace:
            if let flow = tracedFlow { return [.exportTrace(flow: flow.id)] }
        case .up: selectTraceStep(selected - 1, lines, room: room)
        case .down: selectTraceStep(selected + 1, lines, room: room)
        case .pageUp: selectTraceStep(selected - max(1, room - 1), lines, room: room)
        case .pageDown: selectTraceStep(selected + max(1, room - 1), lines, room: room)
        case .top: selectTraceStep(0, lines, room: room)
        case .bottom:
            traceSelected = nil
            traceScroll = nil
        case .toggleDetails, .expandDetails, .foldDetails:
            guard !lines.isEmpty, !lines[selected].details.isEmpty else { break }
            let open: Bool
            switch command {
            case .expandDetails: open = true
            case .foldDetails: open = false
            default: open = !traceExpanded.contains(selected)
            }
            if open { traceExpanded.insert(selected) } else { traceExpanded.remove(selected) }
            selectTraceStep(selected, lines, room: room)
        case .olderAttempt:
            traceBack = min(traceBack + 1, max(0, traceableFlows.count - 1))
            resetTraceView()
        case .newerAttempt:
            traceBack = max(0, traceBack - 1)
            resetTraceView()
        default:
            break
        }
        return []
    }

    private mutating func resetTraceView() {
        traceScroll = nil
        traceSelected = nil
        traceExpanded = []
    }

    /// Moves the selection bar and scrolls so the step's line, and its details when they fit, are in view.
    mutating func selectTraceStep(_ index: Int, _ lines: [TraceLine], room: Int) {
        guard !lines.isEmpty else { return }
        let step = min(max(0, index), lines.count - 1)
        traceSelected = step
        let display = TraceScreen.displayLines(lines, expanded: traceExpanded)
        let lastTop = max(0, display.count - room)
        var top = min(traceScroll ?? lastTop, lastTop)
        guard let first = display.firstIndex(where: { $0.step == step }) else { return }
        let last = display.lastIndex { $0.step == step } ?? first
        if last >= top + room { top = last - room + 1 }
        if first < top || first >= top + room { top = first }
        traceScroll = max(0, min(top, lastTop))
    }

    /// Whether `key` answers the bulk action under way: its message comes once every key answered.
    private mutating func bulkAnswered(_ key: String, error: String?) -> Bool {
        guard var action = bulk, action.pending.contains(key) else { return false }
        if let done = action.answer(key, error: error) {
            message = done
            bulk = nil
        } else {
            bulk = action
        }
        return true
    }

    /// y signs out; n, Esc and Enter (No has the focus) keep everything.
    private mutating func confirmKey(_ request: KeyRequest) -> [AppEffect] {
        var answer: Bool?
        var atProvider = false
        let offersProvider: Bool
        if case .confirmSignOut(_, _, true) = overlay { offersProvider = true } else { offersProvider = false }
        switch request {
        case .character("y"), .character("Y"): answer = true
        case .character("e"), .character("E"):
            // Only when the dialog offers it; else the key does nothing, like any other.
            if offersProvider {
                answer = true
                atProvider = true
            }
        case .character("n"), .character("N"), .escape, .interrupt, .enter: answer = false
        case .mouseClick(let row, let col):
            if let dialog = ConfirmDialog.dialog(for: overlay, sessions: sessions),
                let index = dialog.buttonIndex(atRow: row, col: col, in: ConfirmDialog.area(rows: rows, cols: cols))
            {
                answer = index == 0 || (offersProvider && index == 1)
                atProvider = offersProvider && index == 1
            }
        default: break
        }
        guard let answer else { return [] }
        let asked = overlay
        overlay = .none
        guard answer else {
            message = Message("Nothing was signed out.")
            return []
        }
        switch asked {
        case .confirmSignOut(let key, let revoke, _):
            if atProvider {
                message = Message("Signing out of \(key) at the provider in the browser…")
            } else {
                message = Message(revoke ? "Revoking and signing out of \(key)…" : "Signing out of \(key)…")
            }
            if case .details = mode { mode = .sessions }
            return [.signOut(key, revoke: revoke, atProvider: atProvider)]
        case .confirmSignOutMarked(let keys):
            message = Message("Signing out of \(keys.count) sessions…")
            bulk = BulkAction("Signed out of", keys: keys)
            marked = []
            return keys.map { .signOut($0, revoke: false) }
        case .none, .help, .trace, .traceHelp, .message, .doctor:
            return []
        }
    }

    private mutating func unlockKey(_ request: KeyRequest, _ form: UnlockForm) -> [AppEffect] {
        var form = form
        switch request {
        case .escape:
            // Sessions can be listed without the key; sign-ins and refreshes ask for it again.
            mode = .sessions
            afterUnlock = nil
            message =
                form.isNew
                ? Message("No store yet: the first sign-in asks for its passphrase again.")
                : Message("The store stays locked: sessions are listed, tokens stay closed.", isError: true)
            return []
        case .interrupt:
            isQuitting = true
            return [.quit]
        case .enter:
            guard !form.isUnlocking, !form.field.text.isEmpty else { return [] }
            if form.isNew {
                // A new passphrase is typed twice; a mismatch starts over rather than guessing which was meant.
                guard let first = form.firstEntry else {
                    form.firstEntry = form.field.text
                    // The CLI's rule: a short one is allowed, with the warning, while it is typed again.
                    form.error = PassphraseRule.warning(form.field.text).map {
                        "Warning: \($0). Type it again to keep it."
                    }
                    form.field = TextField(isMasked: true, isFocused: true, maxLength: 1024)
                    mode = .unlock(form)
                    return []
                }
                guard first == form.field.text else {
                    form.firstEntry = nil
                    form.error = "The two passphrases differ: type the new one again."
                    form.field = TextField(isMasked: true, isFocused: true, maxLength: 1024)
                    mode = .unlock(form)
                    return []
                }
            }
            form.isUnlocking = true
            form.error = nil
            let passphrase = form.field.text
            mode = .unlock(form)
            return [.unlock(passphrase: passphrase)]
        default:
            guard !form.isUnlocking, let edited = form.field.applying(request) else { return [] }
            form.field = edited
            mode = .unlock(form)
            return []
        }
    }

    /// The store is locked (or not made yet and needs a passphrase): show the prompt, saying what needs it.
    mutating func askToUnlock(for what: String) {
        switch store {
        case .locked(let reason):
            var form = UnlockForm(reason: reason)
            form.error = "Unlock the store to \(what)."
            mode = .unlock(form)
        case .needsPassphrase(let reason):
            mode = .unlock(UnlockForm(reason: reason, isNew: true))
        case .unlocked, .empty:
            return
        }
        overlay = .none
    }

    /// Whether tokens cannot be read or written until the unlock screen succeeds.
    var isStoreLocked: Bool {
        switch store {
        case .locked, .needsPassphrase: return true
        case .unlocked, .empty: return false
        }
    }

    /// Carries on with what the user asked for before the unlock screen came up.
    private mutating func resumeAfterUnlock() -> [AppEffect] {
        guard let pending = afterUnlock else { return [] }
        afterUnlock = nil
        switch pending {
        case .newSignIn:
            openNewSignIn()
            return []
        case .signIn(let choice):
            return beginFlow(choice)
        case .refresh(let key):
            if let row = sessions.row(of: key) {
                sessions.moveCursor(toRow: row)
            }
            return refreshCurrent()
        }
    }

    /// The copied token's time is up: the clipboard is emptied (OSC 52 cannot read it back to see whether something
    /// else replaced it since).
    private mutating func clipboardClearDue() -> [AppEffect] {
        guard let due = clipboardClearsAt, now >= due else { return [] }
        clipboardClearsAt = nil
        return [.clearClipboard]
    }

    // MARK: - Auto-refresh

    /// Sessions marked for auto-refresh whose token is within its refresh window (at most a minute before expiry,
    /// less for short-lived tokens), refreshed once each (a failure waits for the user, so a broken refresh token is
    /// not hammered every second).
    private mutating func autoRefreshDue() -> [AppEffect] {
        guard !isStoreLocked else { return [] }
        // Paged, the candidates are read first and come back with the page (`pageRead`).
        guard
            let candidates = sessions.autoRefreshCandidates(
                expiringBy: now.addingTimeInterval(SessionRecord.refreshWindow))
        else { return [] }
        return startAutoRefresh(candidates)
    }

    private mutating func startAutoRefresh(_ candidates: [SessionItem]) -> [AppEffect] {
        guard !isStoreLocked else { return [] }
        var due: [String] = []
        // The store is asked for those expiring within the widest window; each one's own window decides.
        for item in candidates where item.record.needsRefresh(at: now) {
            switch item.refresh {
            case .idle, .refreshed: due.append(item.key)
            case .refreshing, .failed: continue
            }
        }
        for key in due { sessions.update(key) { $0.refresh = .refreshing } }
        return due.map { .autoRefresh($0) }
    }
}
