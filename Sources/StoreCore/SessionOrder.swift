/// The orders a session listing can be read in, each backed by an index that ends in the key (schema version 3), so
/// a page after or before a known row is one index range, whatever the store holds.
public enum SessionOrder: String, CaseIterable, Sendable {
    /// By key.
    case key
    /// Soonest expiry first; sessions with no known expiry last.
    case expiry
    /// By provider, then key.
    case provider
    /// By the user label (display name, else email, phone or subject), lower-cased, then key.
    case user
    /// By backend, then key.
    case backend

    /// The SQL value the order sorts by before the key (the key itself for `.key`). The index expressions of
    /// schema version 3 are these exact texts: SQLite uses an expression index only for the same expression.
    /// `lower` folds ASCII letters only, so other scripts sort by code point.
    public var sortExpression: String {
        switch self {
        case .key: return "key"
        case .expiry: return "ifnull(expires_at, 1e308)"
        case .provider: return "provider"
        case .user: return "lower(coalesce(display_name, email, phone, subject))"
        case .backend: return "backend"
        }
    }
}
