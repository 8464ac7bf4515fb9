/// An action on the marked sessions while its results come in one by one (`r` or `d` on marked rows): the message
/// line names every session it touched once the last answer is in, rather than only the last one's key.
public struct BulkAction: Equatable, Sendable {
    /// What the message says was done: "Signed out of", "Refreshed".
    public var done: String
    /// The keys still waiting for their answer.
    public var pending: Set<String>
    /// The keys that worked and those that failed (with the first reason), in the order they answered.
    public var worked: [String] = []
    public var failed: [String] = []
    public var reason: String?

    public init(_ done: String, keys: [String]) {
        self.done = done
        pending = Set(keys)
    }

    /// Takes `key`'s answer (nil error: it worked); the message once every key answered, else nil.
    public mutating func answer(_ key: String, error: String? = nil) -> AppState.Message? {
        guard pending.remove(key) != nil else { return nil }
        if let error {
            failed.append(key)
            if reason == nil { reason = error }
        } else {
            worked.append(key)
        }
        guard pending.isEmpty else { return nil }
        let count = worked.count + failed.count
        var text = "\(done) \(worked.count)\(failed.isEmpty ? "" : " of \(count)") sessions"
        if !worked.isEmpty { text += ": " + Self.naming(worked) }
        if !failed.isEmpty { text += "; failed: " + Self.naming(failed) + " (\(reason ?? "unknown"))" }
        return AppState.Message(text + ".", isError: !failed.isEmpty)
    }

    /// `keys` joined with commas, cut before `limit` characters with "+N more" (the message line's `m` shows the
    /// message whole, not a list of hundreds).
    public static func naming(_ keys: [String], limit: Int = 100) -> String {
        var shown: [String] = []
        var length = 0
        for key in keys {
            let added = key.count + (shown.isEmpty ? 0 : 2)
            if !shown.isEmpty && length + added > limit { break }
            shown.append(key)
            length += added
        }
        let rest = keys.count - shown.count
        return shown.joined(separator: ", ") + (rest > 0 ? " +\(rest) more" : "")
    }
}
