import AuthCore
import Foundation

/// Which sessions a listing shows and in what order: the TUI's `/` filter as SQL, every word must match.
public struct SessionQuery: Equatable, Sendable {
    /// One word of the filter.
    public enum Term: Equatable, Sendable {
        /// Lower-cased text found in the key, user label, email, phone, provider or backend.
        case text(String)
        /// The start of the status (`active`, `expiring`, `expired`) at the query's time.
        case status(String)
        /// The start of the backend's name, lower-cased.
        case backend(String)
        /// The start of the provider's name, lower-cased.
        case provider(String)
    }

    public var order: SessionOrder
    public var terms: [Term]
    /// The time `status:` terms are judged at.
    public var now: Date

    public init(order: SessionOrder = .key, terms: [Term] = [], now: Date = Date(timeIntervalSince1970: 0)) {
        self.order = order
        self.terms = terms
        self.now = now
    }

    /// The WHERE clause (without the word) and its values, bound from `?1` on; "1" when nothing filters.
    func condition() -> (sql: String, values: [SQLiteValue]) {
        var parts: [String] = []
        var values: [SQLiteValue] = []
        // LIKE folds ASCII case as `lower` does, without building a lower-cased copy of every row: at 100,000 rows
        // that copy was most of a filter keystroke's time.
        let searched = [
            "key", "coalesce(display_name, email, phone, subject)", "email", "phone", "provider",
            "backend",
        ]
        for term in terms {
            switch term {
            case .text(let needle):
                var pattern = "%"
                for character in needle {
                    if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
                    pattern.append(character)
                }
                values.append(.text(pattern + "%"))
                let like = searched.map { "\($0) LIKE ?\(values.count) ESCAPE '\\'" }
                parts.append(like.joined(separator: " OR "))
            case .backend(let prefix), .provider(let prefix):
                values.append(.text(prefix))
                let column = term == .backend(prefix) ? "backend" : "provider"
                parts.append("substr(lower(\(column)), 1, length(?\(values.count))) = ?\(values.count)")
            case .status(let prefix):
                values.append(.real(now.timeIntervalSince1970))
                parts.append(statusCondition(prefix, now: "?\(values.count)"))
            }
        }
        return (parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND "), values)
    }

    /// The statuses whose names start with `prefix`, as SQL on `expires_at` (the arithmetic of `SessionStatus`).
    private func statusCondition(_ prefix: String, now: String) -> String {
        let window = String(SessionStatus.expiringWindow)
        var any: [String] = []
        if SessionStatus.active.rawValue.hasPrefix(prefix) {
            any.append("expires_at IS NULL OR expires_at - \(now) > \(window)")
        }
        if SessionStatus.expiring.rawValue.hasPrefix(prefix) {
            any.append("expires_at - \(now) > 0 AND expires_at - \(now) <= \(window)")
        }
        if SessionStatus.expired.rawValue.hasPrefix(prefix) {
            any.append("expires_at - \(now) <= 0")
        }
        return any.isEmpty ? "0" : any.map { "(\($0))" }.joined(separator: " OR ")
    }
}
