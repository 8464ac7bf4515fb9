import Foundation

/// keys.json: the user's keys, read into the one key-binding table (`KeyBindings`) before the TUI starts. An object
/// per screen (`sessions`, `details`, `trace`, `sandbox`), in each an action's name and its key or keys:
///
///     { "sessions": { "logout": "x", "refresh": ["r", "F5"], "revoke": [] } }
///
/// A key given replaces the action's keys on that screen; `[]` leaves the action without a key (the `:` command line
/// still runs it). Anything the file cannot mean (an unknown screen, action or key spelling, two actions on one key)
/// is an error naming the file and the entry: the TUI does not start rather than guess.
public enum KeyMapFile {
    /// Why keys.json was refused, as one line naming the file and the entry.
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// `standard` with the bindings of the keys.json text `data` (read from `path`, which the errors name).
    public static func bindings(
        from data: [UInt8], path: String, standard: KeyBindings = .standard
    ) throws(Failure) -> KeyBindings {
        func fail(_ entry: String?, _ why: String) -> Failure {
            Failure(description: "\(path): " + (entry.map { "\($0): " } ?? "") + why)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(data)),
            let screens = object as? [String: Any]
        else {
            throw fail(
                nil, "not a JSON object of screens ({\"sessions\": {\"logout\": \"x\"}}); fix or remove the file")
        }
        var keys = standard
        for name in screens.keys.sorted() {
            guard let screen = KeyBindings.Screen(rawValue: name) else {
                let names = KeyBindings.Screen.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(name, "no such screen (\(names))")
            }
            guard let entries = screens[name] as? [String: Any] else {
                throw fail(name, "must be an object of action names and keys ({\"logout\": \"x\"})")
            }
            for actionName in entries.keys.sorted() {
                let entry = "\(name).\(actionName)"
                let available = standard.bindings(of: screen).map(\.command.rawValue)
                guard let action = SessionAction(rawValue: actionName), available.contains(actionName) else {
                    let nearest = NearestName.to(actionName, among: available).map { "; did you mean \($0)?" } ?? ""
                    let elsewhere = SessionAction(rawValue: actionName) != nil ? " on this screen" : ""
                    throw fail(entry, "no action “\(actionName)”\(elsewhere)\(nearest)")
                }
                let spellings: [String]
                if let one = entries[actionName] as? String {
                    spellings = [one]
                } else if let many = entries[actionName] as? [String] {
                    spellings = many
                } else {
                    throw fail(entry, "give a key as a string (\"x\") or a list of them ([\"x\", \"F5\"])")
                }
                var requests: [KeyRequest] = []
                for spelling in spellings {
                    guard let request = KeySpelling.request(spelling) else {
                        throw fail(entry, "“\(spelling)” is not a key authdeck knows (\(KeySpelling.known))")
                    }
                    requests.append(request)
                }
                let label = spellings.isEmpty ? "—" : requests.map(KeySpelling.label).joined(separator: "/")
                _ = keys.rebind(action, on: screen, to: requests, label: label)
            }
            // Checked once the screen's entries all applied, so two actions may swap keys.
            if let clash = clash(in: keys.bindings(of: screen)) {
                let entry = [clash.first, clash.second].first { entries[$0.rawValue] != nil } ?? clash.second
                let other = entry == clash.first ? clash.second : clash.first
                throw fail(
                    "\(name).\(entry.rawValue)",
                    "\(KeySpelling.label(clash.key)) is also \(other.rawValue)'s key on the \(name) screen; "
                        + "give one of them another key")
            }
        }
        return keys
    }

    /// Two actions one key runs on the same screen, with the key.
    static func clash(in table: [KeyBinding]) -> (key: KeyRequest, first: SessionAction, second: SessionAction)? {
        var owner: [KeyRequest: SessionAction] = [:]
        for binding in table {
            for key in binding.keys {
                if let first = owner[key], first != binding.command { return (key, first, binding.command) }
                owner[key] = binding.command
            }
        }
        return nil
    }
}

/// How keys.json and the help write keys: one character as itself (`x`, `X`, `!`), or a name (`Enter`, `Esc`,
/// `Tab`, `Shift-Tab`, `Space`, `Up`, `Down`, `Left`, `Right`, `PgUp`, `PgDn`, `Home`, `End`, `Backspace`, `Delete`,
/// `F1`…`F12`, `Ctrl-C`); names are read in any case.
public enum KeySpelling {
    /// The names keys.json takes, for its errors.
    static let known =
        "one character, or Enter, Esc, Tab, Shift-Tab, Space, Up, Down, Left, Right, PgUp, PgDn, "
        + "Home, End, Backspace, Delete, F1…F12, Ctrl-C"

    static let named: [String: KeyRequest] = [
        "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "shift-tab": .backTab,
        "backtab": .backTab, "space": .character(" "), "up": .up, "down": .down, "left": .left, "right": .right,
        "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end,
        "backspace": .backspace, "delete": .delete, "del": .delete, "ctrl-c": .interrupt,
    ]

    /// The request `spelling` names, nil when it names none.
    public static func request(_ spelling: String) -> KeyRequest? {
        if spelling.count == 1, let character = spelling.first,
            let scalar = character.unicodeScalars.first, scalar.value >= 0x21, scalar.value != 0x7F,
            !character.isWhitespace
        {
            return .character(character)
        }
        let lower = spelling.lowercased()
        if let request = named[lower] { return request }
        if lower.hasPrefix("f"), let number = Int(lower.dropFirst()), (1...12).contains(number),
            String(number) == lower.dropFirst()
        {
            return .function(number)
        }
        return nil
    }

    /// How help writes `request`.
    public static func label(_ request: KeyRequest) -> String {
        switch request {
        case .character(" "): return "Space"
        case .character(let character): return String(character)
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .home: return "Home"
        case .end: return "End"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .function(let number): return "F\(number)"
        case .interrupt: return "Ctrl-C"
        case .paste, .mouseClick, .scrollUp, .scrollDown, .resize, .redraw, .clearToStart, .deleteWordBackward:
            return "?"  // not a key keys.json can name
        }
    }
}
