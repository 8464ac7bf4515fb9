import AuthCore
import Foundation
import Testing

@testable import SessionStorage

/// The TUI's pages (`SessionStore+Pages`): every order paged forward and backward across page boundaries, skips,
/// row numbers, and the filter as SQL, each checked against a Python peer that reads the same database with plain
/// `SELECT *` and filters and sorts in Python by SPEC's rules. Also the schema 3 migration and its indexes.
@Suite struct SessionPagesTests {
    let fixture = StoreFixture()
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    /// 230 sessions whose keys are not in insertion order, with ties in every sort value (broken by the key),
    /// sessions with no expiry, expired, expiring and active ones, and users from display names, emails, phones
    /// or subjects in mixed case.
    func seeded() throws -> SessionStore {
        let store = try fixture.open()
        let sessions = (0..<230).map { n -> Session in
            let record = SessionRecord(
                key: String(format: "k%03d", (n * 37) % 230), backend: ["direct", "sandbox", "turnkey"][n % 3],
                provider: ["google", "discord", "x", "apple"][n % 4], subject: "sub\(n)",
                email: n % 2 == 0 ? "User\(n % 17)@example.com" : nil, phone: n % 7 == 0 ? "+1555\(n)" : nil,
                displayName: n % 5 == 0 ? (n % 10 == 0 ? "Zed \(n % 11)" : "adam \(n % 3)") : nil,
                issuer: "https://issuer.example", createdAt: Self.now,
                expiresAt: n % 6 == 0 ? nil : Self.now.addingTimeInterval(Double(n % 13 - 4) * 100),
                refreshable: n % 4 == 1, scopes: [], autoRefresh: n % 8 == 1)
            return Session(record: record, secrets: SessionSecrets(accessToken: "AT-\(n)"))
        }
        try store.persist(sessions, replace: false)
        return store
    }

    static let filters: [[SessionQuery.Term]] = [
        [], [.text("user1")], [.text("zed")], [.provider("dis")], [.backend("sand"), .text("adam")],
        [.status("exp")], [.status("expired")], [.status("a")], [.status("")], [.status("x")], [.text("@example")],
        [.text("+1555")], [.text("k00_")], [.text("%")], [.text("user1\\")],
    ]

    /// Python's answer: for each order and filter, the keys in order.
    func peer() throws -> [String: [String]] {
        try PythonListingPeer.keys(databasePath: fixture.databasePath, now: Self.now, filters: Self.filters)
    }

    /// Anchored, quoted and key words, and keys that rank first: an exact key, keys it starts, and a word no key
    /// starts (which leaves the order as it is).
    static let rankedFilters: [([SessionQuery.Term], [String])] = [
        ([.text("1")], ["k010"]), ([.text("2")], ["k02"]), ([.text("0"), .key("k1", prefix: true)], ["k10", "0"]),
        ([.anchored("user1", start: true, end: false)], []), ([.anchored("example.com", start: false, end: true)], []),
        ([.anchored("adam 1", start: true, end: true)], []), ([.key("k005", prefix: false)], ["k005"]),
        ([.key("k00", prefix: true)], ["k00"]), ([.text("user")], ["nokey"]), ([], ["k2"]),
    ]

    /// Holds the store to the peer's listing `want` for `query`: its count, read forward in pages of 7 and backward
    /// in pages of 5, and every seventh row's number.
    func expectPages(_ store: SessionStore, _ query: SessionQuery, _ want: [String], _ label: String) throws {
        #expect(try store.count(query) == want.count, "\(label)")
        #expect(try store.keys(query, forwardInPagesOf: 7) == want, "\(label) forward")
        #expect(try store.keys(query, backwardInPagesOf: 5) == want, "\(label) backward")
        for (row, key) in want.enumerated() where row % 7 == 0 {
            #expect(try store.rowNumber(of: key, in: query) == row, "\(label) row of \(key)")
        }
    }

    @Test func rankedAnchoredAndKeyFiltersPageLikeThePythonPeer() throws {
        let store = try seeded()
        let expected = try PythonListingPeer.keys(
            databasePath: fixture.databasePath, now: Self.now, filters: Self.rankedFilters.map(\.0),
            ranks: Self.rankedFilters.map(\.1))
        // Hand-checked: k010 leads the first filter's listing, k020…k029 the second's, in every order.
        #expect(expected["expiry|0"]?.first == "k010")
        #expect(expected["user|1"].map { Set($0.prefix(10)) } == Set((20..<30).map { "k0\($0)" }))
        #expect(expected["key|6"] == ["k005"])
        for order in SessionOrder.allCases {
            for (index, (terms, words)) in Self.rankedFilters.enumerated() {
                var query = SessionQuery(order: order, terms: terms, now: Self.now)
                query.rankWords = words
                let want = try #require(expected["\(order.rawValue)|\(index)"])
                try expectPages(store, query, want, "\(order) \(terms) ranked by \(words)")
            }
        }
    }

    @Test func reversedOrdersPageLikeThePythonPeerWithRankedKeysStillFirst() throws {
        let store = try seeded()
        let expected = try PythonListingPeer.keys(
            databasePath: fixture.databasePath, now: Self.now, filters: Self.rankedFilters.map(\.0),
            ranks: Self.rankedFilters.map(\.1), descending: true)
        // Hand-checked: k229 heads the unfiltered key order turned round; k010 still leads its ranked filter.
        #expect(expected["key|9"]?.prefix(2) == ["k229", "k228"])
        #expect(expected["expiry|0"]?.first == "k010")
        for order in SessionOrder.allCases {
            for (index, (terms, words)) in Self.rankedFilters.enumerated() {
                var query = SessionQuery(order: order, terms: terms, now: Self.now)
                query.rankWords = words
                query.descending = true
                let want = try #require(expected["\(order.rawValue)|\(index)"])
                try expectPages(store, query, want, "\(order) reversed \(terms) ranked by \(words)")
            }
        }
    }

    /// Fuzzy words (letters in order within one field), ranked: exact key, key start, the word whole in the key, its
    /// letters in order in the key, then the rest; in both directions of every order.
    static let fuzzyFilters: [([SessionQuery.Term], [String])] = [
        ([.fuzzy("k05")], ["k05"]), ([.fuzzy("k15")], ["k15"]), ([.fuzzy("zd")], ["zd"]), ([.fuzzy("u1e")], ["u1e"]),
        ([.fuzzy("2"), .provider("dis")], ["2"]), ([.fuzzy("k0_")], ["k0_"]),
    ]

    @Test func fuzzyFiltersPageLikeThePythonPeerBestFirst() throws {
        let store = try seeded()
        for descending in [false, true] {
            let expected = try PythonListingPeer.keys(
                databasePath: fixture.databasePath, now: Self.now, filters: Self.fuzzyFilters.map(\.0),
                ranks: Self.fuzzyFilters.map(\.1), descending: descending)
            // Hand-checked: keys starting "k05" (k050…k059) lead; k150…k159 lead for "k15", then by key the first
            // holding k, 1, 5 apart: k015 (k215 turned round); "zd" is in no key, only in the users "Zed …".
            #expect(expected["user|0"].map { Set($0.prefix(10)) } == Set((50..<60).map { "k0\($0)" }))
            #expect(expected["key|1"]?.dropFirst(10).first == (descending ? "k215" : "k015"))
            #expect(expected["key|2"]?.isEmpty == false && expected["key|2"]?.allSatisfy { !$0.contains("z") } == true)
            #expect(expected["key|5"]?.isEmpty == true)
            for order in SessionOrder.allCases {
                for (index, (terms, words)) in Self.fuzzyFilters.enumerated() {
                    var query = SessionQuery(order: order, terms: terms, now: Self.now)
                    query.rankWords = words
                    query.fuzzyWords = terms.compactMap { if case .fuzzy(let word) = $0 { word } else { nil } }
                    query.descending = descending
                    let want = try #require(expected["\(order.rawValue)|\(index)"])
                    try expectPages(store, query, want, "\(order) \(descending ? "reversed " : "")\(terms)")
                }
            }
        }
    }

    @Test func everyOrderAndFilterPagesLikeThePythonPeer() throws {
        let store = try seeded()
        let expected = try peer()
        #expect(expected.count == SessionOrder.allCases.count * Self.filters.count)
        // Hand-checked anchors for the peer itself: every fourth session is a discord one; one in six has no expiry.
        #expect(expected["key|0"]?.count == 230)
        #expect(expected["key|3"]?.count == 58)
        #expect(
            expected["expiry|0"]?.suffix(39).allSatisfy { key in
                Int(key.dropFirst()).map { ($0 * 143) % 230 % 6 == 0 } ?? false
            } == true)
        for order in SessionOrder.allCases {
            for (index, terms) in Self.filters.enumerated() {
                let query = SessionQuery(order: order, terms: terms, now: Self.now)
                let want = try #require(expected["\(order.rawValue)|\(index)"])
                let label = "\(order) \(terms)"
                #expect(try store.count(query) == want.count, "\(label)")
                #expect(try store.keys(query, forwardInPagesOf: 7) == want, "\(label) forward")
                #expect(try store.keys(query, backwardInPagesOf: 5) == want, "\(label) backward")
                if want.count > 20 {
                    #expect(
                        try store.page(query, after: want[10], skip: 4, limit: 5).map(\.record.key)
                            == Array(want[15..<20]), "\(label) skip")
                    #expect(
                        try store.page(query, before: want[20], skip: 3, limit: 4).map(\.record.key)
                            == Array(want[13..<17]), "\(label) skip back")
                    #expect(
                        try store.page(query, after: nil, skip: want.count - 2, limit: 5).map(\.record.key)
                            == Array(want.suffix(2)), "\(label) offset")
                }
                for (row, key) in want.enumerated() where row % 9 == 0 {
                    #expect(try store.rowNumber(of: key, in: query) == row, "\(label) row of \(key)")
                }
                if let outside = expected["key|0"]?.first(where: { !want.contains($0) }) {
                    #expect(try store.rowNumber(of: outside, in: query) == nil, "\(label) \(outside)")
                }
            }
        }
    }

    @Test func aPageAfterASessionThatWentAwayIsNoSuchSession() throws {
        let store = try seeded()
        try store.remove("k005")
        #expect(throws: StoreError.noSuchSession("k005")) {
            try store.page(SessionQuery(order: .expiry), after: "k005", limit: 3)
        }
        #expect(try store.rowNumber(of: "k005", in: SessionQuery()) == nil)
    }

    @Test func autoRefreshCandidatesAreThoseMarkedRefreshableAndDue() throws {
        let store = try seeded()
        let horizon = Self.now.addingTimeInterval(60)
        let found = Set(try store.autoRefreshCandidates(expiringBy: horizon).map(\.record.key))
        // By hand: auto-refresh on n % 8 == 1 (so n is odd and n % 4 == 1: refreshable), an expiry (n % 6 != 0),
        // and (n % 13 - 4) * 100 <= 60, that is n % 13 <= 4.
        let due: [Int] = (0..<230).filter { (n: Int) -> Bool in n % 8 == 1 && n % 6 != 0 && n % 13 <= 4 }
        let want = Set(due.map { (n: Int) -> String in String(format: "k%03d", (n * 37) % 230) })
        #expect(!want.isEmpty)
        #expect(found == want)
    }

    @Test func theOrderIndexesAreUsedForPages() throws {
        _ = try seeded()
        let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        defer { raw.close() }
        for (order, index) in [
            (SessionOrder.expiry, "sessions_by_expiry"), (.user, "sessions_by_user"),
            (.provider, "sessions_by_provider"), (.backend, "sessions_by_backend"),
        ] {
            let value = order.sortExpression
            let plan = try raw.prepare(
                """
                EXPLAIN QUERY PLAN SELECT \(StoreSchema.sessionColumns) FROM sessions \
                WHERE \(value) >= ?1 AND (\(value), key) > (?1, ?2) ORDER BY \(value), key LIMIT 7
                """)
            var text = ""
            while try plan.step() { text += (plan.string(3) ?? "") + "\n" }
            #expect(text.contains("SEARCH sessions USING INDEX \(index)"), "\(order): \(text)")
        }
    }

    @Test func aVersion2StoreGainsTheIndexesAndKeepsItsRows() throws {
        let store = try seeded()
        store.close()
        // Back to what version 2 left: no indexes but the key's own, no search index, user_version 2.
        try fixture.downgrade(to: 2)
        let reopened = try fixture.open()
        #expect(try reopened.count(SessionQuery()) == 230)
        let check = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        defer { check.close() }
        let version = try check.prepare("PRAGMA user_version")
        _ = try version.step()
        #expect(version.int64(0) == 4)
        let names = try check.prepare(
            """
            SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'sessions_by_%'
            """)
        var found: Set<String> = []
        while try names.step() { found.insert(names.string(0) ?? "") }
        #expect(found == ["sessions_by_expiry", "sessions_by_provider", "sessions_by_user", "sessions_by_backend"])
        #expect(try reopened.page(SessionQuery(order: .user), after: nil, limit: 230).count == 230)
    }
}
