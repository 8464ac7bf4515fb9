import AuthCore
import Foundation

/// Keys of the Sessions screen: moving, selecting, filtering, sorting, and the actions on one session.
extension AppState {
    mutating func sessionsKey(_ request: KeyRequest) -> [AppEffect] {
        if let field = filterField { return filterKey(request, field) }
        let page = max(1, SessionsScreen.layout(rows: rows, cols: cols).table.rows - 2)
        switch request {
        case .up, .character("k"), .scrollUp: sessions.moveCursor(by: -1)
        case .down, .character("j"), .scrollDown: sessions.moveCursor(by: 1)
        case .pageUp: sessions.moveCursor(by: -page)
        case .pageDown: sessions.moveCursor(by: page)
        case .home, .character("g"): sessions.moveCursor(toRow: 0)
        case .end, .character("G"): sessions.moveCursor(toRow: sessions.count - 1)
        case .enter:
            return selectCurrent()
        case .mouseClick(let row, let col):
            let layout = SessionsScreen.layout(rows: rows, cols: cols)
            let table = SessionsScreen.table(for: self)
            guard let index = table.rowIndex(atScreenRow: row, col: col, in: layout.table) else { return [] }
            if index == sessions.cursor { return selectCurrent() }
            sessions.moveCursor(toRow: index)
        case .character("n"):
            if isStoreLocked {
                afterUnlock = .newSignIn
                askToUnlock(for: "sign in")
                return []
            }
            openNewSignIn()
        case .character("r"):
            return refreshCurrent()
        case .character("a"):
            guard let item = sessions.current else { return [] }
            return [.setAutoRefresh(item.key, !item.record.autoRefresh)]
        case .character("d"):
            guard let item = sessions.current else { return [] }
            overlay = .confirmSignOut(key: item.key, revoke: false)
        case .character("R"):
            guard let item = sessions.current else { return [] }
            overlay = .confirmSignOut(key: item.key, revoke: true)
        case .character("/"):
            filterField = TextField(text: sessions.filter, isFocused: true, maxLength: 200)
        case .character("s"):
            sessions.setSort(sessions.sort.next)
            message = Message("Sorted by \(sessions.sort.rawValue).")
        case .character("t"):
            overlay = .trace
        case .character("?"), .function(1):
            overlay = .help
        case .character("q"), .interrupt:
            isQuitting = true
            return [.quit]
        case .escape:
            if !sessions.filter.isEmpty {
                sessions.setFilter("")
                message = Message("Filter cleared.")
            } else {
                message = nil
            }
        default:
            break
        }
        return []
    }

    private mutating func filterKey(_ request: KeyRequest, _ field: TextField) -> [AppEffect] {
        switch request {
        case .enter:
            filterField = nil
        case .escape, .interrupt:
            filterField = nil
            sessions.setFilter("")
        case .up: sessions.moveCursor(by: -1)
        case .down: sessions.moveCursor(by: 1)
        default:
            if let edited = field.applying(request) {
                filterField = edited
                sessions.setFilter(edited.text)
            }
        }
        return []
    }

    private mutating func selectCurrent() -> [AppEffect] {
        guard let item = sessions.current else { return [] }
        if item.isSelected {
            message = Message("\(item.key) is already the selected session.")
            return []
        }
        return [.select(item.key)]
    }

    /// The New sign-in screen, on the backend last used.
    mutating func openNewSignIn() {
        mode = .newSignIn(NewSignInForm(providers: providers, backends: backends, defaultBackend: defaultBackend))
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
