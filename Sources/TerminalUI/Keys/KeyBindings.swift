/// The key-binding tables of every screen, as this run uses them: `KeyBinding`'s standard tables with keys.json's
/// changes applied (`KeyMapFile`). `AppState.keys` holds one, so the reducer, help and the status bar read the keys
/// the user chose, and the `:` command line runs the same actions by name.
public struct KeyBindings: Equatable, Sendable {
    /// The screens keys.json names, each with its tables (Details' inspector keys count as Details').
    public enum Screen: String, CaseIterable, Sendable {
        case sessions, details, trace, sandbox
    }

    public var sessions: [KeyBinding]
    public var details: [KeyBinding]
    public var inspectorScrolling: [KeyBinding]
    public var trace: [KeyBinding]
    public var traceReading: [KeyBinding]
    public var sandbox: [KeyBinding]

    /// The keys as shipped.
    public static let standard = KeyBindings(
        sessions: KeyBinding.sessions, details: KeyBinding.details,
        inspectorScrolling: KeyBinding.inspectorScrolling, trace: KeyBinding.trace,
        traceReading: KeyBinding.traceReading, sandbox: KeyBinding.sandbox)

    /// The status bar while the inspector is open over Details: the Details keys that matter there, introspection
    /// first.
    public var inspector: [KeyBinding] {
        ([.introspect, .inspect, .back, .help, .quit] as [SessionAction]).compactMap { command in
            guard var binding = details.first(where: { $0.command == command }) else { return nil }
            if command == .inspect { binding.hint = "close" }
            return binding
        }
    }

    /// Every binding of `screen`, in the order help lists them.
    public func bindings(of screen: Screen) -> [KeyBinding] {
        switch screen {
        case .sessions: return sessions
        case .details: return details + inspectorScrolling
        case .trace: return trace + traceReading
        case .sandbox: return sandbox
        }
    }

    /// Changes the keys of `action` on `screen`; false when the screen has no such action.
    mutating func rebind(_ action: SessionAction, on screen: Screen, to keys: [KeyRequest], label: String) -> Bool {
        func change(_ table: inout [KeyBinding]) -> Bool {
            guard let index = table.firstIndex(where: { $0.command == action }) else { return false }
            // The wheel is not a key: it keeps scrolling whatever keys the action gets.
            let wheel = table[index].keys.filter { $0 == .scrollUp || $0 == .scrollDown }
            table[index].keys = keys + wheel
            table[index].label = label
            return true
        }
        switch screen {
        case .sessions: return change(&sessions)
        case .details: return change(&details) || change(&inspectorScrolling)
        case .trace: return change(&trace) || change(&traceReading)
        case .sandbox: return change(&sandbox)
        }
    }
}
