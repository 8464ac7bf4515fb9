import AuthCore
import Foundation

/// Which sessions a listing shows and in what order: the TUI's `/` filter as SQL, every word must match.
public struct SessionQuery: Equatable, Sendable {
    /// One word of the filter.
    public enum Term: Equatable, Sendable {
        /// Lower-cased text found in the key, user label, email, phone, provider or backend.
        case text(String)
        /// Lower-cased text one of those fields starts with, ends with, or is whole (both).
        case anchored(String, start: Bool, end: Bool)
        /// The key exactly, or its start.
        case key(String, prefix: Bool)
        /// The start of the status (`active`, `expiring`, `expired`) at the query's time.
        case status(String)
        /// The start of the backend's name, lower-cased.
        case backend(String)
        /// The start of the provider's name, lower-cased.
        case provider(String)
        /// Lower-cased letters found in this order in one of `text`'s fields, others allowed between them.
        case fuzzy(String)
    }

    public var order: SessionOrder
    public var terms: [Term]
    /// Keys equal to one of these come first, then keys starting with one, then the rest (each in `order`); the
    /// store leaves them out when no key ranks (`ranked`), so the order's index reads the listing.
    public var rankWords: [String] = []
    /// The order turned round (latest expiry first, keys from z to a); ranked keys still come first.
    public var descending = false
    /// The fuzzy filter's words: after the rank words, keys holding one whole come next, then keys holding its
    /// letters in order, then the rest.
    public var fuzzyWords: [String] = []
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
            case .text(let needle), .anchored(let needle, _, _):
                var pattern = "%"
                if case .anchored(_, true, _) = term { pattern = "" }
                for character in needle {
                    if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
                    pattern.append(character)
                }
                if case .anchored(_, _, true) = term {} else { pattern.append("%") }
                values.append(.text(pattern))
                let like = searched.map { "\($0) LIKE ?\(values.count) ESCAPE '\\'" }
                parts.append(like.joined(separator: " OR "))
            case .fuzzy(let letters):
                values.append(.text(Self.likePattern(letters, scattered: true)))
                let like = searched.map { "\($0) LIKE ?\(values.count) ESCAPE '\\'" }
                parts.append(like.joined(separator: " OR "))
            case .key(let name, false):
                values.append(.text(name))
                parts.append("key = ?\(values.count)")
            case .key(let name, true):
                // A range of the key's index rather than a function of every key.
                values.append(.text(name))
                values.append(.text(Self.pastPrefix(name)))
                parts.append("key >= ?\(values.count - 1) AND key < ?\(values.count)")
            case .backend(let prefix), .provider(let prefix):
                values.append(.text(prefix))
                let column = term == .backend(prefix) ? "backend" : "provider"
                parts.append("substr(lower(\(column)), 1, length(?\(values.count))) = ?\(values.count)")
            case .status(let prefix):
                values.append(.real(now.timeIntervalSince1970))
                parts.append(statusCondition(prefix, now: "?\(values.count)"))
            }
        }
        values += rankWords.map { .text($0) }
        values += fuzzyWords.map { .text(Self.likePattern($0, scattered: false)) }
        values += fuzzyWords.map { .text(Self.likePattern($0, scattered: true)) }
        return (parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND "), values)
    }

    /// `%word%` for LIKE (`%w%o%r%d%` when `scattered`), its `%`, `_` and `\` escaped.
    static func likePattern(_ word: String, scattered: Bool) -> String {
        var pattern = "%"
        for character in word {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
            if scattered { pattern.append("%") }
        }
        return scattered ? pattern : pattern + "%"
    }

    /// The rank (0, 1 or 2; with fuzzy words up to 4) of the key `expression` names, as SQL on the rank words and
    /// fuzzy patterns `condition` bound last; nil when nothing ranks.
    func rank(of expression: String, _ condition: (sql: String, values: [SQLiteValue])) -> String? {
        guard !rankWords.isEmpty else { return nil }
        let first = condition.values.count - 2 * fuzzyWords.count - rankWords.count + 1
        let words = (first..<first + rankWords.count).map { "?\($0)" }
        let exact = words.map { "\(expression) = \($0)" }.joined(separator: " OR ")
        let start = words.map { "substr(\(expression), 1, length(\($0))) = \($0)" }.joined(separator: " OR ")
        guard !fuzzyWords.isEmpty else { return "CASE WHEN \(exact) THEN 0 WHEN \(start) THEN 1 ELSE 2 END" }
        let patterns = first + rankWords.count
        let whole = (0..<fuzzyWords.count).map { "\(expression) LIKE ?\(patterns + $0) ESCAPE '\\'" }
        let letters = (0..<fuzzyWords.count).map {
            "\(expression) LIKE ?\(patterns + fuzzyWords.count + $0) ESCAPE '\\'"
        }
        return
            "CASE WHEN \(exact) THEN 0 WHEN \(start) THEN 1 WHEN \(whole.joined(separator: " OR ")) THEN 2 "
            + "WHEN \(letters.joined(separator: " OR ")) THEN 3 ELSE 4 END"
    }

    /// The least text greater than every text that starts with `prefix` (in SQLite's byte order): `prefix` and
    /// the highest scalar.
    static func pastPrefix(_ prefix: String) -> String { prefix + "\u{10FFFF}" }

    /// The text words the trigram index can look up as a whole: three characters or more (Unicode scalars, as the
    /// index counts them).
    var searchableTexts: [String] {
        terms.compactMap { term in
            switch term {
            case .text(let needle), .anchored(let needle, _, _): return needle.unicodeScalars.count >= 3 ? needle : nil
            default: return nil
            }
        }
    }

    /// The text words of one or two ASCII characters: found through the index by the trigrams they start (every
    /// field of the indexed text ends in U+0001, so each occurrence starts one).
    var shortASCIITexts: [String] {
        terms.compactMap { term in
            guard case .text(let needle) = term, (1...2).contains(needle.utf8.count),
                needle.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
            else { return nil }
            return needle
        }
    }

    /// An FTS5 query the rows holding every searchable word match (more may match: the index keeps no positions,
    /// so it asks for each word's trigrams anywhere in the row, and it folds case beyond ASCII); nil when no word
    /// is searchable. At most `limit` trigrams per word, spread over it, the last always among them.
    func trigramMatch(limit: Int = 6) -> String? {
        var parts: [String] = []
        for needle in searchableTexts {
            let scalars = Array(needle.unicodeScalars)
            let count = scalars.count - 2
            let picks = count <= limit ? Array(0..<count) : (0..<limit).map { $0 * (count - 1) / (limit - 1) }
            for start in picks {
                var gram = String.UnicodeScalarView()
                gram.append(contentsOf: scalars[start..<start + 3])
                let quoted = Self.quoted(String(gram))
                if !parts.contains(quoted) { parts.append(quoted) }
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " AND ")
    }

    /// A string as an FTS5 query string: in double quotes, a double quote doubled.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
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
