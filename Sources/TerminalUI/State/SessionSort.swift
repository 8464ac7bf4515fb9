/// The orders `s` cycles the Sessions table through.
public enum SessionSort: String, CaseIterable, Equatable, Sendable {
    /// By key, as the store lists them.
    case key
    /// Soonest expiry first; sessions with no known expiry last.
    case expiry
    case provider
    case user
    case backend

    /// The next order, for `s`.
    public var next: SessionSort {
        let all = SessionSort.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// Whether `a` comes before `b` in this order; ties fall back to the key so the order is total and stable.
    func precedes(_ a: SessionItem, _ b: SessionItem) -> Bool {
        switch self {
        case .key:
            return a.record.key < b.record.key
        case .expiry:
            switch (a.record.expiresAt, b.record.expiresAt) {
            case (let x?, let y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.record.key < b.record.key
            }
        case .provider:
            return a.record.provider == b.record.provider
                ? a.record.key < b.record.key
                : a.record.provider < b.record.provider
        case .user:
            let x = a.record.userLabel.lowercased()
            let y = b.record.userLabel.lowercased()
            return x == y ? a.record.key < b.record.key : x < y
        case .backend:
            return a.record.backend == b.record.backend
                ? a.record.key < b.record.key
                : a.record.backend < b.record.backend
        }
    }
}
