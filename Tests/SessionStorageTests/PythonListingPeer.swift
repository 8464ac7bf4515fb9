import AuthCore
import Foundation
import TestSupport
import Testing

@testable import SessionStorage

/// The listing as a Python peer works it out from the same database file: plain `SELECT`, then matching and
/// sorting in Python by SPEC's rules (ASCII letters folded, nothing else), for every order and each filter, keys
/// equal to a filter's rank words first and keys starting with one next when `ranks` gives them. What
/// SessionPagesTests and SessionSearchTests check the store's SQL against.
enum PythonListingPeer {
    /// For each order and filter, the keys in order, keyed "ORDER|INDEX"; `descending` turns each order round while
    /// ranked keys stay first.
    static func keys(
        databasePath: String, now: Date, filters: [[SessionQuery.Term]], ranks: [[String]]? = nil,
        descending: Bool = false
    ) throws -> [String: [String]] {
        let script = """
            import json, sqlite3, sys
            now = float(sys.argv[2])
            rows = sqlite3.connect(sys.argv[1]).execute(
                "SELECT key, backend, provider, subject, email, phone, display_name, expires_at FROM sessions"
            ).fetchall()
            def fold(text):  # ASCII letters only, as SQLite's LIKE
                return "".join(c.lower() if c < "\\x80" else c for c in text)
            def label(r):
                return next(v for v in (r[6], r[4], r[5], r[3]) if v is not None)
            def status(r):
                if r[7] is None: return "active"
                left = r[7] - now
                return "expired" if left <= 0 else "expiring" if left <= 300 else "active"
            def in_order(letters, text):  # each letter after the one before, anything between
                at = 0
                for letter in letters:
                    at = text.find(letter, at)
                    if at < 0: return False
                    at += 1
                return True
            def matches(r, term):
                kind, value = term[0], term[1]
                fields = [fold(f) for f in [r[0], label(r), r[4] or "", r[5] or "", r[2], r[1]]]
                if kind == "text":
                    return any(value in f for f in fields)
                if kind == "fuzzy":
                    return any(in_order(value, f) for f in fields)
                if kind == "anchored":
                    start, end = term[2] == "1", term[3] == "1"
                    return any(f == value if start and end else f.startswith(value) if start else f.endswith(value)
                               for f in fields)
                if kind == "key": return r[0].startswith(value) if term[2] == "1" else r[0] == value
                if kind == "status": return status(r).startswith(value)
                if kind == "backend": return fold(r[1]).startswith(value)
                return fold(r[2]).startswith(value)
            orders = {
                "key": lambda r: r[0],
                "expiry": lambda r: (r[7] is None, r[7] or 0, r[0]),
                "provider": lambda r: (r[2], r[0]),
                "user": lambda r: (fold(label(r)), r[0]),
                "backend": lambda r: (r[1], r[0]),
            }
            filters = json.loads(sys.argv[3])
            ranks = json.loads(sys.argv[4])
            def rank(r, words, fuzzy):
                if r[0] in words: return 0
                if any(r[0].startswith(w) for w in words): return 1
                if not fuzzy: return 2
                if any(w in fold(r[0]) for w in fuzzy): return 2
                return 3 if any(in_order(w, fold(r[0])) for w in fuzzy) else 4
            out = {}
            for name, key in orders.items():
                for index, terms in enumerate(filters):
                    chosen = [r for r in rows if all(matches(r, t) for t in terms)]
                    words = ranks[index]
                    fuzzy = [t[1] for t in terms if t[0] == "fuzzy"]
                    ordered = sorted(chosen, key=key, reverse=sys.argv[5] == "1")
                    # stable: the order stays within a rank
                    ordered = sorted(ordered, key=lambda r: rank(r, words, fuzzy))
                    out[f"{name}|{index}"] = [r[0] for r in ordered]
            print(json.dumps(out))
            """
        let encoded = filters.map { terms in
            terms.map { term -> [String] in
                switch term {
                case .text(let value): return ["text", value]
                case .anchored(let value, let start, let end):
                    return ["anchored", value, start ? "1" : "0", end ? "1" : "0"]
                case .key(let value, let prefix): return ["key", value, prefix ? "1" : "0"]
                case .status(let value): return ["status", value]
                case .backend(let value): return ["backend", value]
                case .provider(let value): return ["provider", value]
                case .fuzzy(let value): return ["fuzzy", value]
                }
            }
        }
        let filterJSON = String(decoding: try JSONSerialization.data(withJSONObject: encoded), as: UTF8.self)
        let rankWords = ranks ?? filters.map { _ in [] }
        let rankJSON = String(decoding: try JSONSerialization.data(withJSONObject: rankWords), as: UTF8.self)
        let peer = try Program.python(
            script, [databasePath, String(now.timeIntervalSince1970), filterJSON, rankJSON, descending ? "1" : "0"])
        #expect(peer.status == 0)
        return try JSONSerialization.jsonObject(with: peer.data) as? [String: [String]] ?? [:]
    }
}
