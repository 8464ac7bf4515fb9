import AuthCore

/// The `:` command line (k9s's): every action of the key-binding table runs by its name (`:refresh KEY`,
/// `:logout KEY`, `:filter status:expired`, `:sort -expiry`), Tab completes names and their arguments, Up and Down
/// walk this run's commands. The field edits as every text field does (`TextField.applying`).
public struct CommandPrompt: Equatable, Sendable {
    public var field = TextField(isFocused: true, maxLength: 400)
    /// The names Tab found when more than one fits, for the status bar; empty otherwise.
    public var choices: [String] = []
    /// What Tab found when nothing fits, for the status bar.
    public var note: String?
    /// The history entry Up reached, nil while the line is a new one.
    var historyIndex: Int?
    /// The line typed before Up went into the history, for Down to come back to.
    var draft = ""

    public init() {}

    /// A command naming a session the list has not read yet: it runs once the store answered about the key.
    public struct Pending: Equatable, Sendable {
        public var action: SessionAction
        public var key: String
    }

    /// The other names a command answers to, as k9s users type them.
    static let aliases: [String: SessionAction] = ["q": .quit, "signout": .signOut, "default": .makeDefault]

    /// Commands that take a session key (the session under the cursor, or the marked ones, when none is given).
    static let keyed: Set<SessionAction> = [
        .open, .makeDefault, .refresh, .autoRefresh, .signOut, .revoke, .mark, .copyToken, .copyKey, .copyExport,
        .inspect, .introspect,
    ]

    /// What `:filter` completes: the fields of the `/` filter, then the values of `status:`.
    static let filterFields = ["status:", "provider:", "backend:", "key:"]
    static let statuses = ["active", "expiring", "expired"]

    /// The names the command line runs on Sessions and Details, in help's order, without the one that opens it.
    static func names(_ keys: KeyBindings) -> [String] {
        var seen: Set<String> = []
        return (keys.sessions + keys.details).map(\.command.rawValue)
            .filter { $0 != SessionAction.commandLine.rawValue && seen.insert($0).inserted }
    }

    /// The action `name` runs, nil when it names none.
    static func action(named name: String, _ keys: KeyBindings) -> SessionAction? {
        let lower = name.lowercased()
        if let alias = aliases[lower] { return alias }
        guard names(keys).contains(lower) else { return nil }
        return SessionAction(rawValue: lower)
    }

    /// The line split at its first space: the command's name and the rest, trimmed.
    static func split(_ line: String) -> (name: String, argument: String) {
        let trimmed = line.drop { $0 == " " }
        let name = trimmed.prefix { $0 != " " }
        return (String(name), String(trimmed.dropFirst(name.count)).trimmingSpaces)
    }

    /// The longest start every one of `words` shares.
    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }

    // MARK: - Editing

    /// The line with its last word (from `start`) replaced by `candidates`' common start, and the choices left.
    mutating func offer(_ candidates: [String], forWordFrom start: Int) {
        let text = field.text
        let typed = String(text.dropFirst(start))
        let fitting = candidates.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
        choices = []
        note = nil
        guard !fitting.isEmpty else {
            note = typed.isEmpty ? "nothing to complete" : "nothing starts with “\(typed)”"
            return
        }
        var completed = Self.commonPrefix(fitting)
        if completed.count < typed.count { completed = typed }
        if fitting.count == 1, !completed.hasSuffix(":") {
            completed += " "
        } else if fitting.count > 1 {
            choices = fitting
        }
        setText(String(text.prefix(start)) + completed)
    }

    mutating func setText(_ text: String) {
        field = TextField(text: text, isFocused: true, maxLength: field.maxLength)
    }

    /// Up (`older` true) or Down through `history`.
    mutating func walk(_ history: [String], older: Bool) {
        guard !history.isEmpty else { return }
        if older {
            if historyIndex == nil { draft = field.text }
            historyIndex = max(0, (historyIndex ?? history.count) - 1)
        } else {
            guard let index = historyIndex else { return }
            historyIndex = index + 1 < history.count ? index + 1 : nil
        }
        setText(historyIndex.map { history[$0] } ?? draft)
        choices = []
        note = nil
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
