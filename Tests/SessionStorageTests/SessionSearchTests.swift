import AuthCore
import Foundation
import Testing

@testable import SessionStorage

/// The filter through the trigram index (schema 4): words found in many rows read the listing, words in few read
/// the rows the index names, short words go through the index's vocabulary, and either way the rows, counts and
/// positions are those of a Python peer that reads the same database with plain `SELECT` and matches in Python,
/// folding ASCII letters only (as the README says). Also the triggers that keep the index in step with every
/// write, and the migration of a version 3 store.
@Suite struct SessionSearchTests {
    let fixture = StoreFixture()
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let size = 3_000

    /// `size` sessions (more than the index's and the short words' limits, so each way is taken): keys `key-0000`…
    /// not in insertion order, emails on even rows in mixed case, "Zed Q…" display names on every 97th row (the
    /// only rows with a q), "Ørsted" and "øre" names on a few (case beyond ASCII is not folded).
    static func session(_ n: Int) -> Session {
        var name: String?
        if n % 97 == 0 {
            name = "Zed Q\(n)"
        } else if n % 500 == 1 {
            name = "Ørsted \(n)"
        } else if n % 500 == 2 {
            name = "øre \(n)"
        }
        let record = SessionRecord(
            key: String(format: "key-%04d", (n * 37) % size), backend: ["direct", "sandbox", "turnkey"][n % 3],
            provider: ["google", "discord", "x", "apple"][n % 4], subject: "sub\(n)",
            email: n % 2 == 0 ? "User\(n % 1_700)@example.com" : nil, phone: n % 7 == 0 ? "+1555\(n)" : nil,
            displayName: name, issuer: "https://issuer.example", createdAt: now,
            expiresAt: n % 6 == 0 ? nil : now.addingTimeInterval(Double(n % 13 - 4) * 100),
            refreshable: n % 4 == 1, scopes: [], autoRefresh: false)
        return Session(record: record, secrets: SessionSecrets(accessToken: "AT-\(n)"))
    }

    func seeded() throws -> SessionStore {
        let store = try fixture.open()
        try store.persist((0..<Self.size).map(Self.session), replace: false)
        return store
    }

    /// Each filter with the way the store must take for it (worked out by hand from the data above).
    static let filters: [(terms: [SessionQuery.Term], way: String)] = [
        ([.text("key")], "scan"),  // in every key: more rows than the index's limit
        ([.text("ey-1")], "index"),  // key-1000…key-1999
        ([.text("user16")], "index"),
        ([.text("q")], "index"),  // one letter in 31 rows: through the vocabulary
        ([.text("q2"), .status("a")], "index"),
        ([.text("qz")], "nothing"),
        ([.text("y-")], "scan"),  // in every row: the first rows in order are enough
        ([.text("ø")], "scan"),  // not ASCII: no vocabulary look-up
        ([.text("øre")], "index"),
        ([.text("ørs")], "index"),  // the index folds Ø, the filter does not: no row
        ([.text("s"), .text("zed")], "index"),
        ([.text("le"), .status("exp")], "scan"),
        ([.text("%")], "nothing"),
        ([.text("_1")], "nothing"),
        ([.text("a\"b")], "nothing"),
        ([.text("\"")], "nothing"),
        ([.provider("dis"), .text("ey-2")], "index"),
        ([.text("1555"), .backend("sand")], "index"),
        ([.text("ey-"), .text("9")], "scan"),
    ]

    /// Python's answer: for each order and filter, the keys in order.
    func peer(_ chosen: [(terms: [SessionQuery.Term], way: String)] = filters) throws -> [String: [String]] {
        try PythonListingPeer.keys(
            databasePath: fixture.databasePath, now: Self.now, filters: chosen.map(\.terms))
    }

    /// Which way `search` takes, by name.
    static func name(_ search: SessionStore.Search) -> String {
        switch search {
        case .all: return "all"
        case .scan: return "scan"
        case .index: return "index"
        case .nothing: return "nothing"
        }
    }

    /// Pages, counts and positions of `filters` against the peer, in every order.
    func checkAgainstPeer(_ store: SessionStore, _ filters: [(terms: [SessionQuery.Term], way: String)]) throws {
        let expected = try peer(filters)
        for order in SessionOrder.allCases {
            for (index, filter) in filters.enumerated() {
                let query = SessionQuery(order: order, terms: filter.terms, now: Self.now)
                let want = try #require(expected["\(order.rawValue)|\(index)"])
                let label = "\(order) \(filter.terms)"
                #expect(try store.count(query) == want.count, "\(label)")
                #expect(try store.count(query, until: { false }) == want.count, "\(label) in steps")
                // The first page as a new filter reads it, then on in pages from the last row read.
                #expect(try store.keys(query, forwardInPagesOf: 128) == want, "\(label) forward")
                let backward = try store.page(query, before: nil, limit: 50).map(\.record.key)
                #expect(backward == Array(want.suffix(50)), "\(label) last page")
                if want.count > 300 {
                    #expect(
                        try store.page(query, after: want[100], skip: 150, limit: 20).map(\.record.key)
                            == Array(want[251..<271]), "\(label) skip")
                }
                for (row, key) in want.enumerated() where row % 211 == 0 || row == want.count - 1 {
                    #expect(try store.rowNumber(of: key, in: query) == row, "\(label) row of \(key)")
                }
            }
        }
    }

    @Test func everyWayFindsWhatThePythonPeerFinds() throws {
        let store = try seeded()
        for filter in Self.filters {
            let way = try store.search(SessionQuery(terms: filter.terms, now: Self.now))
            #expect(Self.name(way) == filter.way, "\(filter.terms)")
        }
        let expected = try peer()
        // Hand-checked anchors for the peer itself.
        #expect(expected["key|0"]?.count == Self.size)
        #expect(expected["key|1"]?.count == 1_000)
        #expect(expected["key|3"]?.count == 31)
        #expect(expected["key|7"]?.count == 6)  // "øre" on rows 2, 502, … 2502
        #expect(expected["key|9"]?.isEmpty == true)
        try checkAgainstPeer(store, Self.filters)
    }

    @Test func triggersKeepTheIndexInStepWithEveryWrite() throws {
        let store = try seeded()
        // A replace (REPLACE deletes, then inserts), a refresh's update of the searched fields, a flag change that
        // touches none of them, and removals.
        var renamed = Self.session(5).record
        renamed.email = "Quentin@Elsewhere.example"
        renamed.displayName = nil
        _ = try store.persist(Session(record: renamed, secrets: SessionSecrets(accessToken: "AT-new")), replace: true)
        var refreshed = Self.session(8)
        refreshed.record.email = "qa-team@example.com"
        try store.update(refreshed)
        try store.setAutoRefresh(Self.session(9).record.key, true)
        _ = try store.remove([Self.session(97).record.key, Self.session(194).record.key])
        let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        defer { raw.close() }
        // FTS5 checks the index against the rows of its content view.
        try raw.execute("INSERT INTO session_search (session_search, rank) VALUES ('integrity-check', 1)")
        try checkAgainstPeer(
            store,
            [
                ([.text("q")], "index"), ([.text("quentin")], "index"), ([.text("qa-t")], "index"),
                ([.text("zed")], "index"),
            ])
        #expect(try store.count(SessionQuery(terms: [.text("quentin")])) == 1)
    }

    @Test func aBulkInsertWithTheTriggersSuspendedLeavesTheIndexAsTheTriggersWould() throws {
        let store = try fixture.open()
        // The rows go in by plain SQL inside one transaction, as a bulk import would, with the triggers dropped.
        let triggers = try store.database.writeTransaction { () throws(SQLiteError) -> [String] in
            let triggers = try store.suspendSearchIndex()
            let insert = try store.database.prepare(
                """
                INSERT INTO sessions (key, backend, provider, subject, email, display_name, issuer, created_at, \
                refreshable, scopes, auto_refresh, secret, updated_at) \
                VALUES (?1, 'direct', 'google', ?2, ?3, ?4, 'https://issuer.example', 0, 0, '', 0, x'00', 0)
                """)
            for n in 0..<500 {
                let session = Self.session(n).record
                insert.reset()
                insert.bind(1, session.key)
                insert.bind(2, session.subject)
                insert.bind(3, session.email)
                insert.bind(4, session.displayName)
                _ = try insert.step()
            }
            try store.restoreSearchIndex(triggers)
            return triggers
        }
        #expect(triggers.count == 3)
        try store.database.execute(
            "INSERT INTO session_search (session_search, rank) VALUES ('integrity-check', 1)")
        // The triggers are back: a later write is indexed as it happens.
        var late = Self.session(2_999).record
        late.key = "late-qx"
        _ = try store.persist(Session(record: late, secrets: SessionSecrets(accessToken: "AT")), replace: false)
        try checkAgainstPeer(store, [([.text("q")], "index"), ([.text("-qx")], "index"), ([.text("øre")], "index")])
    }

    @Test func aCountInStepsStopsWhenCancelled() throws {
        let store = try seeded()
        let query = SessionQuery(terms: [.text("key")])
        #expect(try store.count(query, until: { true }) == nil)
        var steps = 0
        #expect(
            try store.count(
                query,
                until: {
                    steps += 1
                    return steps > 1
                }) == nil)
        #expect(try store.count(query, until: { false }) == Self.size)
    }

    @Test func aVersion3StoreGainsTheSearchIndexAndKeepsItsRows() throws {
        let store = try seeded()
        store.close()
        // Back to what version 3 left: no index, view or triggers, user_version 3.
        try fixture.downgrade(to: 3)
        let reopened = try fixture.open()
        let check = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        defer { check.close() }
        let version = try check.prepare("PRAGMA user_version")
        _ = try version.step()
        #expect(version.int64(0) == 4)
        try check.execute("INSERT INTO session_search (session_search, rank) VALUES ('integrity-check', 1)")
        let search = try check.prepare("SELECT count(*) FROM session_search WHERE session_search MATCH '\"ey-\"'")
        _ = try search.step()
        #expect(search.int64(0) == Int64(Self.size))
        try checkAgainstPeer(reopened, [([.text("ey-1")], "index"), ([.text("q")], "index")])
    }
}
