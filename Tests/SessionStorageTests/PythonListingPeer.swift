import AuthCore
import Foundation
import TestSupport
import Testing

@testable import SessionStorage

/// The listing as a Python peer works it out from the same database file: plain `SELECT`, then matching and
/// sorting in Python by SPEC's rules (ASCII letters folded, nothing else), for every order and each filter. What
/// SessionPagesTests and SessionSearchTests check the store's SQL against.
enum PythonListingPeer {
    /// For each order and filter, the keys in order, keyed "ORDER|INDEX".
    static func keys(databasePath: String, now: Date, filters: [[SessionQuery.Term]]) throws -> [String: [String]] {
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
            def matches(r, term):
                kind, value = term
                if kind == "text":
                    return any(value in fold(f) for f in [r[0], label(r), r[4] or "", r[5] or "", r[2], r[1]])
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
            out = {}
            for name, key in orders.items():
                for index, terms in enumerate(filters):
                    chosen = [r for r in rows if all(matches(r, t) for t in terms)]
                    out[f"{name}|{index}"] = [r[0] for r in sorted(chosen, key=key)]
            print(json.dumps(out))
            """
        let encoded = filters.map { terms in
            terms.map { term -> [String] in
                switch term {
                case .text(let value): return ["text", value]
                case .status(let value): return ["status", value]
                case .backend(let value): return ["backend", value]
                case .provider(let value): return ["provider", value]
                }
            }
        }
        let filterJSON = String(decoding: try JSONSerialization.data(withJSONObject: encoded), as: UTF8.self)
        let peer = try Program.python(script, [databasePath, String(now.timeIntervalSince1970), filterJSON])
        #expect(peer.status == 0)
        return try JSONSerialization.jsonObject(with: peer.data) as? [String: [String]] ?? [:]
    }
}
