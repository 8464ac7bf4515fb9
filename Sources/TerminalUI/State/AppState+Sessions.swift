import AuthCore
import Foundation

/// Keys of the Sessions screen and of a session's Details screen: the commands of `KeyBinding.sessions` and
/// `KeyBinding.details`, one function each.
extension AppState {
    mutating func sessionsKey(_ request: KeyRequest) -> [AppEffect] {
        if let field = filterField { return filterKey(request, field) }
        if case .mouseClick(let row, let col) = request {
            let layout = SessionsScreen.layout(rows: rows, cols: cols)
            let table = SessionsScreen.table(for: self)
            guard let index = table.rowIndex(atScreenRow: row, col: col, in: layout.table) else { return [] }
            if index == sessions.cursor { return perform(.open) }
            sessions.moveCursor(toRow: index)
            message = nil
            return []
        }
        guard let command = KeyBinding.command(for: request, in: keys.sessions) else { return [] }
        return perform(command)
    }

    mutating func detailsKey(_ request: KeyRequest, _ key: String) -> [AppEffect] {
        if inspector?.key == key, let command = KeyBinding.command(for: request, in: keys.inspectorScrolling) {
            let page = max(1, AppFrame.body(rows: rows, cols: cols).rows - 3)
            let steps: [SessionAction: Int] = [.up: -1, .down: 1, .pageUp: -page, .pageDown: page]
            inspector?.scroll(by: steps[command] ?? 0)
            return []
        }
        guard sessions.current?.key == key,
            let command = KeyBinding.command(for: request, in: keys.details)
        else { return [] }
        return perform(command)
    }

    /// One command on the session under the cursor (or the marked ones). Every command clears the last message
    /// first, so what the line says is always about the last thing done.
    mutating func perform(_ command: SessionAction) -> [AppEffect] {
        if command == .showMessage {
            if message != nil { overlay = .message }
            return []
        }
        message = nil
        let page = max(1, SessionsScreen.layout(rows: rows, cols: cols).table.rows - 2)
        switch command {
        case .up: sessions.moveCursor(by: -1)
        case .down: sessions.moveCursor(by: 1)
        case .pageUp: sessions.moveCursor(by: -page)
        case .pageDown: sessions.moveCursor(by: page)
        case .top: sessions.moveCursor(toRow: 0)
        case .bottom: sessions.moveCursor(toRow: sessions.count - 1)
        case .open:
            guard let item = sessions.current else { return [] }
            mode = .details(item.key)
            if binding?.key != item.key { binding = nil }
            inspector = nil
            return [.readBinding(item.key)]
        case .back:
            if case .details = mode, inspector != nil {
                inspector = nil
            } else if case .details = mode {
                mode = .sessions
            } else if !sessions.filter.isEmpty || !marked.isEmpty {
                sessions.setFilter("", now: now)
                marked = []
                message = Message("Filter and marks cleared.")
            }
        case .makeDefault:
            return makeDefault()
        case .undoDefault:
            return undoDefault()
        case .newSignIn:
            if isStoreLocked {
                afterUnlock = .newSignIn
                askToUnlock(for: "sign in")
                return []
            }
            openNewSignIn()
        case .refresh:
            if mode == .sessions, !marked.isEmpty { return refreshMarked() }
            return refreshCurrent()
        case .autoRefresh:
            guard let item = sessions.current else { return [] }
            if !item.record.refreshable && !item.record.autoRefresh {
                // Switching it on would promise a renewal that cannot happen.
                message = Message(
                    "\(item.key) has no refresh token, so it cannot be renewed: sign in again (n) when it expires.",
                    isError: true)
                return []
            }
            return [.setAutoRefresh(item.key, !item.record.autoRefresh)]
        case .signOut:
            if mode == .sessions, !marked.isEmpty {
                overlay = .confirmSignOutMarked(keys: markedKeysInOrder())
                return []
            }
            guard let item = sessions.current else { return [] }
            overlay = .confirmSignOut(key: item.key, revoke: false)
            return [.askEndSession(item.key)]
        case .revoke:
            guard let item = sessions.current else { return [] }
            overlay = .confirmSignOut(key: item.key, revoke: true)
            return [.askEndSession(item.key)]
        case .mark:
            guard let item = sessions.current else { return [] }
            if marked.remove(item.key) == nil { marked.insert(item.key) }
            sessions.moveCursor(by: 1)
            message = Message(
                marked.isEmpty
                    ? "No session marked."
                    : "\(marked.count) marked: r refreshes them, "
                        + "d signs out of them, Esc unmarks.")
        case .filter:
            filterField = TextField(text: sessions.filter, isFocused: true, maxLength: 200)
        case .sort:
            sessions.setSort(sessions.sort.next)
            message = Message("Sorted by \(sessions.sort.rawValue).")
        case .reverseSort:
            sessions.reverseSort()
            message = Message(
                "Sorted by \(sessions.sort.rawValue), \(sessions.descending ? "reversed" : "in order") (I turns it).")
        case .markAllShown:
            sessions.askShownKeys(limit: Self.markAllLimit + 1)
            if let keys = sessions.takeShownKeys() { markShown(keys) }
        case .trace:
            overlay = .trace
        case .copyToken:
            guard let item = sessions.current else { return [] }
            if isStoreLocked {
                askToUnlock(for: "copy the token of \(item.key)")
                return []
            }
            return copyToken(item)
        case .copyKey:
            guard let item = sessions.current else { return [] }
            return [.copy(item.key, what: "the key \(item.key)")]
        case .copyExport:
            guard let item = sessions.current else { return [] }
            return [.copy("export AUTHDECK_SESSION=" + ShellWord.posixTyped(item.key), what: "an export line")]
        case .help:
            overlay = .help
        case .showMessage:
            break
        case .inspect:
            guard let item = sessions.current else { return [] }
            if inspector?.key == item.key {
                inspector = nil
                return []
            }
            if isStoreLocked {
                askToUnlock(for: "inspect the tokens of \(item.key)")
                return []
            }
            inspector = Inspector(key: item.key)
            return [.inspect(item.key)]
        case .introspect:
            guard let item = sessions.current else { return [] }
            if isStoreLocked {
                askToUnlock(for: "ask the provider about the token of \(item.key)")
                return []
            }
            message = Message("Asking the provider whether the access token of \(item.key) is active…")
            return [.introspect(item.key)]
        case .doctor:
            message = Message("Running authdeck doctor…")
            return [.runDoctor]
        case .sandboxPanel:
            return openSandboxPanel()
        case .lockStore:
            guard !isStoreLocked else {
                message = Message("The store is locked already.")
                return []
            }
            return [.lockStore]
        case .switchFault, .faultsOff, .typeDelay, .longerDelay, .shorterDelay, .openTraceFile, .expandAll,
            .searchTrace, .nextMatch, .firstError:
            break  // the Sandbox panel's and the Trace screen's own
        case .quit:
            isQuitting = true
            return [.quit]
        case .commandLine:
            commandPrompt = CommandPrompt()
        case .toggleDetails, .expandDetails, .foldDetails, .olderAttempt, .newerAttempt, .exportTrace:
            break  // the Trace screen's own (`traceKey`)
        }
        return []
    }

    private mutating func filterKey(_ request: KeyRequest, _ field: TextField) -> [AppEffect] {
        switch request {
        case .enter:
            filterField = nil
        case .escape, .interrupt:
            filterField = nil
            sessions.setFilter("", now: now)
        case .up: sessions.moveCursor(by: -1)
        case .down: sessions.moveCursor(by: 1)
        case .tab:
            // Fuzzy on or off: the filter's leading `~`, so what is typed says which it is.
            let text = field.text.drop { $0 == " " }
            let toggled = SessionList.isFuzzy(field.text) ? String(text.dropFirst()) : "~" + text
            filterField = TextField(text: toggled, isFocused: true, maxLength: 200)
            sessions.setFilter(toggled, now: now)
            message = Message(
                SessionList.isFuzzy(toggled) ? "Fuzzy filter: letters in order, best first." : "Exact filter.")
        default:
            if let edited = field.applying(request) {
                filterField = edited
                sessions.setFilter(edited.text, now: now)
            }
        }
        return []
    }

    /// `c`: the token as `authdeck token` hands it out. One that expires within the refresh window is refreshed
    /// first (through the loop's locked refresh, as `token` does) and copied once that worked; an expired one that
    /// cannot be refreshed is not copied, and the message says how to renew it.
    private mutating func copyToken(_ item: SessionItem) -> [AppEffect] {
        let record = item.record
        guard record.needsRefresh(at: now) else { return [.copyToken(item.key)] }
        guard record.refreshable else {
            guard let expiresAt = record.expiresAt, expiresAt <= now else { return [.copyToken(item.key)] }
            message = Message(
                "\(item.key) expired \(TimeText.remaining(-TimeText.secondsUntil(expiresAt, from: now))) ago and cannot be "
                    + "refreshed: nothing copied. Sign in again (n).", isError: true)
            return []
        }
        copyAfterRefresh = item.key
        if case .refreshing = item.refresh { return [] }  // the refresh already out copies when it lands
        sessions.update(item.key) { $0.refresh = .refreshing }
        message = Message("Refreshing \(item.key) before copying its token…")
        return [.refresh(item.key)]
    }

    /// The most sessions `A` marks at once: beyond it the filter is too wide to be meant (a sign-out of them all
    /// would be one key away).
    static let markAllLimit = 1_000

    /// `A`'s answer: every key the filter shows marked, or unmarked when all of them were marked already.
    mutating func markShown(_ keys: [String]) {
        guard keys.count <= Self.markAllLimit else {
            message = Message(
                "The filter shows more than \(Self.markAllLimit) sessions; A marks at most \(Self.markAllLimit): "
                    + "narrow it first (/).", isError: true)
            return
        }
        guard !keys.isEmpty else {
            message = Message("No session shown to mark.")
            return
        }
        if keys.allSatisfy(marked.contains) {
            marked.subtract(keys)
            message = Message("Unmarked the \(keys.count) shown; \(marked.count) marked.")
        } else {
            marked.formUnion(keys)
            message = Message(
                "Marked the \(keys.count) shown (\(marked.count) marked): r refreshes them, d signs out of them, "
                    + "Esc unmarks.")
        }
    }

    /// The marked keys in table order, then any marked rows the filter hides.
    private func markedKeysInOrder() -> [String] {
        sessions.inTableOrder(marked)
    }

    private mutating func makeDefault() -> [AppEffect] {
        guard let item = sessions.current else { return [] }
        if item.isSelected {
            message = Message("Scripts already use \(item.key) by default.")
            return []
        }
        let previous = sessions.selectedKey
        defaultChange = DefaultChange(previous: previous, current: item.key)
        return [.select(item.key)]
    }

    private mutating func undoDefault() -> [AppEffect] {
        guard let change = defaultChange, !change.isUndo else {
            message = Message("Nothing to undo: u changes the default for scripts.")
            return []
        }
        let current = sessions.selectedKey
        defaultChange = DefaultChange(previous: current, current: change.previous, isUndo: true)
        guard let previous = change.previous else { return [.clearDefault] }
        guard sessions.contains(previous) else {
            defaultChange = nil
            message = Message("Cannot undo: \(previous) is no longer stored.", isError: true)
            return []
        }
        return [.select(previous)]
    }

    /// What the message line says once the store confirmed a change of the default.
    func defaultMessage(now key: String?) -> Message {
        let undo = defaultChange.map { $0.current == key && !$0.isUndo } ?? false
        let before = defaultChange?.previous.map { " (was \($0))" } ?? " (there was none)"
        guard let key else { return Message("Undone: no session is the default for scripts.") }
        if undo { return Message("Scripts now use \(key) by default\(before) · z undoes.") }
        if defaultChange?.isUndo == true && defaultChange?.current == key {
            return Message("Undone: scripts use \(key) by default again.")
        }
        return Message("Scripts now use \(key) by default.")
    }

    private mutating func refreshMarked() -> [AppEffect] {
        if isStoreLocked {
            askToUnlock(for: "refresh the marked sessions")
            return []
        }
        var effects: [AppEffect] = []
        var skipped = 0
        for key in markedKeysInOrder() {
            guard let item = sessions.item(forKey: key) else { continue }
            guard item.record.refreshable else {
                skipped += 1
                continue
            }
            if case .refreshing = item.refresh { continue }
            sessions.update(key) { $0.refresh = .refreshing }
            effects.append(.refresh(key))
        }
        message = Message(
            "Refreshing \(effects.count) sessions…"
                + (skipped > 0 ? " (\(skipped) hold no refresh token)" : ""))
        bulk = BulkAction("Refreshed", keys: effects.compactMap { if case .refresh(let key) = $0 { key } else { nil } })
        return effects
    }

    /// The New sign-in screen, on the backend last used.
    mutating func openNewSignIn() {
        mode = .newSignIn(
            NewSignInForm(
                providers: providers, backends: backends, defaultBackend: defaultBackend, options: signInOptions))
        message = nil
    }

    mutating func refreshCurrent() -> [AppEffect] {
        guard let item = sessions.current else { return [] }
        guard item.record.refreshable else {
            message = Message("\(item.key) holds no refresh token: sign in again to renew it.", isError: true)
            return []
        }
        if isStoreLocked {
            afterUnlock = .refresh(item.key)
            askToUnlock(for: "refresh \(item.key)")
            return []
        }
        if case .refreshing = item.refresh { return [] }  // a second `r` while the first is out
        sessions.update(item.key) { $0.refresh = .refreshing }
        message = Message("Refreshing \(item.key)…")
        return [.refresh(item.key)]
    }
}
