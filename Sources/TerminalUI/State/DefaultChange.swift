/// A change of the session scripts use by default, kept so `z` can put the previous one back.
public struct DefaultChange: Equatable, Sendable {
    /// The default before the change; nil when there was none.
    public var previous: String?
    /// The default the change asked for; nil when it cleared it.
    public var current: String?
    /// Whether this change is itself the undo of one (a second `z` does nothing).
    public var isUndo: Bool

    public init(previous: String?, current: String?, isUndo: Bool = false) {
        self.previous = previous
        self.current = current
        self.isUndo = isUndo
    }
}
