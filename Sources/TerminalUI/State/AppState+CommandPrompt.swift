import AuthCore
import Foundation

/// The `:` command line: its keys, Tab's completions and running a line. A command runs the same `perform` as its
/// key, so a destructive one asks the same question (`:logout KEY` opens the sign-out dialog for KEY).
extension AppState {
    mutating func commandPromptKey(_ request: KeyRequest, _ prompt: CommandPrompt) -> [AppEffect] {
        var prompt = prompt
        switch request {
        case .escape, .interrupt:
            commandPrompt = nil
        case .enter:
            commandPrompt = nil
            return runCommand(prompt.field.text)
        case .up, .down:
            prompt.walk(commandHistory, older: request == .up)
            commandPrompt = prompt
        case .tab:
            return completeCommand(prompt)
        default:
            guard let edited = prompt.field.applying(request) else { return [] }
            prompt.field = edited
            prompt.choices = []
            prompt.note = nil
            commandPrompt = prompt
        }
        return []
    }

    // MARK: - Completion

    /// Tab: the word before the cursor completed as far as the names that fit agree; more than one fitting shows them
    /// in the status bar. Session keys come from the store (`completeSessionKeys`), so keys the list has not read yet
    /// complete too.
    private mutating func completeCommand(_ prompt: CommandPrompt) -> [AppEffect] {
        var prompt = prompt
        let text = prompt.field.text
        let wordStart = text.count - text.reversed().prefix { $0 != " " }.count
        defer { commandPrompt = prompt }
        guard text.contains(" ") else {
            prompt.offer(CommandPrompt.names(keys) + CommandPrompt.aliases.keys.sorted(), forWordFrom: wordStart)
            return []
        }
        let (name, _) = CommandPrompt.split(text)
        guard let action = CommandPrompt.action(named: name, keys) else {
            prompt.note = "no command “\(name)” to complete for"
            return []
        }
        let word = String(text.dropFirst(wordStart))
        switch action {
        case .sort:
            let fields = SessionSort.allCases.map(\.rawValue)
            prompt.offer(word.hasPrefix("-") ? fields.map { "-" + $0 } : fields, forWordFrom: wordStart)
        case .filter:
            prompt.offer(filterCompletions(word), forWordFrom: wordStart)
        default:
            guard CommandPrompt.keyed.contains(action) else {
                prompt.note = ":\(action.rawValue) takes nothing after it"
                return []
            }
            guard sessions.isPaged else {
                prompt.offer(sessions.items.map(\.key).filter { $0.hasPrefix(word) }, forWordFrom: wordStart)
                return []
            }
            return [.completeSessionKeys(word)]
        }
        return []
    }

    /// What `:filter` offers for the word being typed: the fields, or the values of the field it starts with.
    private func filterCompletions(_ word: String) -> [String] {
        let lower = word.lowercased()
        let values: [(String, [String])] = [
            ("status:", CommandPrompt.statuses), ("provider:", providers.map(\.name)), ("backend:", backends),
        ]
        for (field, names) in values where lower.hasPrefix(field) {
            return names.map { field + $0 }
        }
        return CommandPrompt.filterFields
    }

    /// The store's keys that start with `prefix`, for the Tab that asked; dropped when the line changed since.
    mutating func sessionKeysCompleted(_ prefix: String, keys found: [String]) {
        guard var prompt = commandPrompt, prompt.field.text.hasSuffix(prefix) else { return }
        let text = prompt.field.text
        let wordStart = text.count - text.reversed().prefix { $0 != " " }.count
        guard String(text.dropFirst(wordStart)) == prefix else { return }
        prompt.offer(found, forWordFrom: wordStart)
        commandPrompt = prompt
    }

    // MARK: - Running

    /// Runs one command line; an unknown name or argument is one line in the message naming the nearest command.
    mutating func runCommand(_ line: String) -> [AppEffect] {
        let (name, argument) = CommandPrompt.split(line)
        guard !name.isEmpty else { return [] }
        if commandHistory.last != line { commandHistory.append(line) }
        guard let action = CommandPrompt.action(named: name, keys) else {
            let nearest = NearestName.to(name, among: CommandPrompt.names(keys))
            message = Message(
                "Unknown command :\(name)"
                    + (nearest.map { ": did you mean :\($0)?" } ?? "")
                    + " (Tab lists the commands, ? the keys)", isError: true)
            return []
        }
        switch action {
        case .filter:
            enterScreen(of: action)
            guard !argument.isEmpty else { return perform(.filter) }
            sessions.setFilter(argument, now: now)
            message = nil
            return []
        case .sort:
            enterScreen(of: action)
            guard !argument.isEmpty else { return perform(.sort) }
            let fields = SessionSort.allCases.map(\.rawValue)
            let reverse = argument.hasPrefix("-")
            guard let order = SessionSort(rawValue: String(argument.dropFirst(reverse ? 1 : 0)).lowercased()) else {
                message = Message(
                    "No sort field “\(argument)”: :sort takes \(fields.joined(separator: ", ")) (-FIELD reverses).",
                    isError: true)
                return []
            }
            sessions.setSort(order)
            if sessions.descending != reverse { sessions.reverseSort() }
            message = Message("Sorted by \(order.rawValue)\(reverse ? ", reversed" : "").")
            return []
        default:
            if CommandPrompt.keyed.contains(action), !argument.isEmpty {
                return run(action, on: argument)
            }
            guard argument.isEmpty else {
                message = Message(
                    ":\(action.rawValue) takes nothing after it (:\(action.rawValue) alone).", isError: true)
                return []
            }
            return enterScreen(of: action) + perform(action)
        }
    }

    /// Leaves for the screen whose table has `action` when this one's lacks it: Details' own actions (`inspect`)
    /// open the details of the session under the cursor, the list's (`filter`, `new`) go back to the list.
    @discardableResult
    private mutating func enterScreen(of action: SessionAction) -> [AppEffect] {
        let onDetails: Bool
        if case .details = mode { onDetails = true } else { onDetails = false }
        let here = onDetails ? keys.details : keys.sessions
        guard !here.contains(where: { $0.command == action }) else { return [] }
        if onDetails {
            mode = .sessions
            inspector = nil
            return []
        }
        guard mode == .sessions, keys.details.contains(where: { $0.command == action }) else { return [] }
        return perform(.open)
    }

    /// `action` on the session stored under `key`, whatever row the cursor is on: the cursor goes to it first. A key
    /// the list has not read yet is looked up in the store and the command runs when the answer comes.
    private mutating func run(_ action: SessionAction, on key: String) -> [AppEffect] {
        guard let row = sessions.row(of: key) else {
            if !sessions.hasLookedUp(key) {
                commandPending = CommandPrompt.Pending(action: action, key: key)
                message = Message("Looking for \(key)…")
                return []
            }
            message =
                sessions.contains(key)
                ? Message(
                    "\(key) is not among the rows the filter “\(sessions.filter)” leaves: Esc clears it.",
                    isError: true)
                : Message("No session \(key) is stored (Tab completes the keys).", isError: true)
            return []
        }
        sessions.moveCursor(toRow: row)
        guard sessions.current?.key == key else {
            // The row is known but not read yet: it comes with the next page, and the command runs then.
            commandPending = CommandPrompt.Pending(action: action, key: key)
            return []
        }
        var effects: [AppEffect] = []
        if case .details(let shown) = mode, shown != key {
            effects += perform(.open)
        } else {
            effects += enterScreen(of: action)
        }
        // A key named acts on that session alone, as on Details: the marks stay for the keys that act on them.
        let marks = marked
        if action != .mark { marked = [] }
        effects += perform(action)
        if action != .mark { marked = marks }
        return effects
    }

    /// The pending command once the store answered about its key.
    mutating func resumePendingCommand() -> [AppEffect] {
        guard let pending = commandPending, sessions.hasLookedUp(pending.key) else { return [] }
        commandPending = nil
        // The user went on to another screen (New sign-in, the unlock prompt) meanwhile: the command is dropped.
        switch mode {
        case .sessions, .details: break
        case .unlock, .newSignIn, .contact, .signIn, .sandbox: return []
        }
        return run(pending.action, on: pending.key)
    }
}
