import AuthCore
import Foundation
import Synchronization
import Testing

@testable import TerminalUI

/// The Sessions table paged, as the TUI runs it over the store: the list asks only for rows near the view, by
/// keyset from the rows it holds, and the cursor, the position, the marks and the selection work as they do with
/// every row in memory. The reducer never reads: it returns `.readPage` effects, answered here (as the event loop
/// answers them from the store) by a plain list of keys `s00000`… outside the state; its filter is a substring of
/// the key, so the expected rows are counted by hand.
@Suite struct PagedSessionsTests {
    /// Keys in key order; the filter keeps keys containing it. Counts what the list asked for.
    final class KeySource: SessionPageSource, @unchecked Sendable {
        private let lock = NSLock()
        private var keys: [String]
        private(set) var rowsRead = 0
        private(set) var largestRead = 0
        private(set) var offsetReads = 0
        var selected: String?

        init(count: Int) {
            keys = (0..<count).map { String(format: "s%05d", $0) }
        }

        func remove(_ key: String) { lock.withLock { keys.removeAll { $0 == key } } }

        private func listed(_ filter: String) -> [String] {
            filter.isEmpty ? keys : keys.filter { $0.contains(filter) }
        }

        private func item(for key: String) -> SessionItem {
            SessionItem(record: AppFixtures.record(key), isSelected: false)
        }

        func count(sort: SessionSort, filter: String, at date: Date) -> (total: Int, matching: Int) {
            lock.withLock { (keys.count, listed(filter).count) }
        }

        func rows(
            sort: SessionSort, descending: Bool, filter: String, at date: Date, after key: String?, skip: Int,
            limit: Int
        ) -> [SessionItem]? {
            page(filter, from: key, limit: limit) { all in
                guard let key else { return all.dropFirst(skip) }
                guard let index = all.firstIndex(of: key) else { return nil }
                return all.dropFirst(index + 1 + skip)
            }
        }

        func rows(
            sort: SessionSort, descending: Bool, filter: String, at date: Date, before key: String?, skip: Int,
            limit: Int
        ) -> [SessionItem]? {
            page(filter, from: key, limit: limit, last: true) { all in
                guard let key else { return all.prefix(max(0, all.count - skip)) }
                guard let index = all.firstIndex(of: key) else { return nil }
                return all.prefix(max(0, index - skip))
            }
        }

        /// The first (or `last`) `limit` keys of what `window` leaves of the listed keys, counted as read; a read
        /// without a key to start from counts as an offset read.
        private func page(
            _ filter: String, from key: String?, limit: Int, last: Bool = false,
            window: ([String]) -> ArraySlice<String>?
        ) -> [SessionItem]? {
            lock.withLock {
                let all = listed(filter)
                guard let kept = window(all) else { return nil }
                if key == nil { offsetReads += 1 }
                let rows = (last ? kept.suffix(limit) : kept.prefix(limit)).map { self.item(for: $0) }
                rowsRead += rows.count
                largestRead = max(largestRead, limit)
                return rows
            }
        }

        func rowNumber(of key: String, sort: SessionSort, descending: Bool, filter: String, at date: Date) -> Int? {
            lock.withLock { listed(filter).firstIndex(of: key) }
        }

        func item(_ key: String) -> SessionItem? {
            lock.withLock { keys.contains(key) ? item(for: key) : nil }
        }

        func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem] { [] }
    }

    /// A source that counts later, as the TUI's does: it only notes what it was asked; the test posts the count.
    final class LaterSource: SessionPageSource, @unchecked Sendable {
        let keys = KeySource(count: 1_000)
        private(set) var requests: [(filter: String, request: Int)] = []
        private(set) var stops = 0
        private(set) var syncCounts = 0

        func count(sort: SessionSort, filter: String, at date: Date) -> (total: Int, matching: Int) {
            syncCounts += 1
            return keys.count(sort: sort, filter: filter, at: date)
        }
        func rows(
            sort: SessionSort, descending: Bool, filter: String, at date: Date, after key: String?, skip: Int,
            limit: Int
        ) -> [SessionItem]? {
            keys.rows(
                sort: sort, descending: descending, filter: filter, at: date, after: key, skip: skip, limit: limit)
        }
        func rows(
            sort: SessionSort, descending: Bool, filter: String, at date: Date, before key: String?, skip: Int,
            limit: Int
        ) -> [SessionItem]? {
            keys.rows(
                sort: sort, descending: descending, filter: filter, at: date, before: key, skip: skip, limit: limit)
        }
        func rowNumber(of key: String, sort: SessionSort, descending: Bool, filter: String, at date: Date) -> Int? {
            keys.rowNumber(of: key, sort: sort, descending: descending, filter: filter, at: date)
        }
        func item(_ key: String) -> SessionItem? { keys.item(key) }
        func autoRefreshCandidates(expiringBy horizon: Date) -> [SessionItem] { [] }
        func countLater(sort: SessionSort, filter: String, at date: Date, request: Int) -> Bool {
            requests.append((filter, request))
            return true
        }
        func stopCounting() { stops += 1 }
    }

    @Test func aFilterShowsItsFirstRowsAtOnceAndItsCountWhenItArrives() {
        let source = LaterSource()
        var current = AppFixtures.paged(SessionList(selected: nil), answering: source)
        let counted = source.syncCounts
        // "s00" is in 1000 keys: the first window is drawn and the count asked for, not worked out here.
        current = AppFixtures.run(current, AppFixtures.keys("/s00"), answering: source).0
        #expect(source.syncCounts == counted)
        #expect(current.sessions.isCounting)
        #expect(current.sessions.count == 64)
        var frame = AppScreen.frame(current).textDump()
        #expect(frame.contains("64+ of 1000 match “s00” (counting…)"), "\(frame)")
        #expect(frame.contains("1/64+"))
        #expect(source.requests.map(\.filter) == ["s", "s0", "s00"])
        // A count for an earlier filter is not this one's.
        let earlier = source.requests[1].request
        let latest = source.requests[2].request
        current = AppFixtures.run(current, [.sessionsCounted(request: earlier, matching: 7)], answering: source).0
        #expect(current.sessions.isCounting && current.sessions.count == 64)
        current = AppFixtures.run(current, [.sessionsCounted(request: latest, matching: 1_000)], answering: source).0
        #expect(!current.sessions.isCounting)
        frame = AppScreen.frame(current).textDump()
        #expect(frame.contains("1000 of 1000 match “s00”") && !frame.contains("counting"))
        current = AppFixtures.run(current, [.key(.enter), .key(.end)], answering: source).0
        #expect(current.sessions.current?.key == "s00999")
        // Fewer rows than a window: they are the count, nothing is asked.
        let asked = source.requests.count
        current = AppFixtures.run(current, AppFixtures.keys("/12"), answering: source).0
        #expect(source.requests.count == asked + 1)  // "s001" has 100 rows, "s0012" 10
        #expect(!current.sessions.isCounting && current.sessions.count == 10)
        #expect(AppScreen.frame(current).textDump().contains("10 of 1000 match “s0012”"))
        // Typing on stops the count that was running.
        current = AppFixtures.run(current, [.key(.backspace), .key(.backspace), .key(.backspace)], answering: source).0
        #expect(current.sessions.isCounting)
        let stops = source.stops
        current = AppFixtures.run(current, AppFixtures.keys("0"), answering: source).0
        #expect(source.stops == stops + 1)
    }

    func state(_ source: KeySource, selected: String? = nil) -> AppState {
        AppFixtures.paged(SessionList(selected: selected), answering: source)
    }

    static func key(_ row: Int) -> String { String(format: "s%05d", row) }

    @Test func stepsAndPagesAcrossWindowEdgesReadOnlyNearbyRows() {
        let source = KeySource(count: 100_000)
        var current = state(source)
        #expect(current.sessions.current?.key == "s00000")
        for step in 1...400 {
            current = AppFixtures.run(current, [.key(.down)], answering: source).0
            #expect(current.sessions.current?.key == Self.key(step))
        }
        #expect(AppScreen.frame(current).textDump().contains("401/100000"))
        for _ in 0..<30 { current = AppFixtures.run(current, [.key(.pageDown)], answering: source).0 }
        let afterPages = current.sessions.cursor
        #expect(afterPages > 400 && current.sessions.current?.key == Self.key(afterPages))
        for step in 1...300 {
            current = AppFixtures.run(current, [.key(.up)], answering: source).0
            #expect(current.sessions.current?.key == Self.key(afterPages - step))
        }
        // Every row on screen is the row its number says.
        let frame = AppScreen.frame(current).textDump()
        let first = current.sessions.scrollOffset
        for row in first..<first + 5 { #expect(frame.contains(Self.key(row))) }
        // Steps and pages read by keyset from the window's edge: a few windows' worth, never the listing.
        #expect(source.rowsRead < 3_000, "read \(source.rowsRead) rows")
        #expect(source.largestRead <= 384)
        #expect(source.offsetReads <= 1)
        current = AppFixtures.run(current, [.key(.end)], answering: source).0
        #expect(current.sessions.current?.key == "s99999")
        #expect(AppScreen.frame(current).textDump().contains("s99998"))
        current = AppFixtures.run(current, [.key(.up), .key(.up)], answering: source).0
        #expect(current.sessions.current?.key == "s99997")
        current = AppFixtures.run(current, [.key(.home)], answering: source).0
        #expect(current.sessions.current?.key == "s00000")
    }

    /// The reducer reads nothing: a step past the rows held returns the read as a value, the rows draw as loading
    /// until its answer lands as an event, and an answer to an older read is dropped.
    @Test func readsAreEffectsAndTheirAnswersEvents() throws {
        let source = KeySource(count: 1_000)
        let start = state(source)
        #expect(!AppScreen.frame(start).textDump().contains("…"))
        let read = source.rowsRead
        var (current, effects) = AppState.update(start, .key(.end))
        #expect(source.rowsRead == read)
        guard effects.count == 1, case .readPage(let request) = effects[0] else {
            Issue.record("expected one read, got \(effects)")
            return
        }
        #expect(request.rows == SessionPageRequest.Rows(before: true, anchor: nil, skip: 0, limit: 128))
        #expect(current.sessions.cursor == 999 && current.sessions.current == nil)
        #expect(AppScreen.frame(current).textLines().filter { $0.contains(" …") }.count >= 5)
        var stale = source.answer(request)
        stale.token -= 1
        (current, effects) = AppState.update(current, .pageRead(stale))
        #expect(current.sessions.current == nil && effects.isEmpty)
        (current, effects) = AppState.update(current, .pageRead(source.answer(request)))
        #expect(current.sessions.current?.key == "s00999" && effects.isEmpty)
        #expect(!AppScreen.frame(current).textDump().contains("…"))
    }

    @Test func theFilterCountsAndPagesThroughTheSource() {
        let source = KeySource(count: 1_000)
        let typed = AppFixtures.run(state(source), AppFixtures.keys("/s001"), answering: source)
        // s00100…s00199.
        #expect(typed.0.sessions.count == 100)
        let frame = AppScreen.frame(typed.0).textDump()
        #expect(frame.contains("100 of 1000 match"))
        #expect(frame.contains("1/100"))
        var current = AppFixtures.run(typed.0, [.key(.enter), .key(.end)], answering: source).0
        #expect(current.sessions.current?.key == "s00199")
        current = AppFixtures.run(current, [.key(.escape)], answering: source).0
        #expect(current.sessions.count == 1_000)
        #expect(AppScreen.frame(current).textDump().contains("1000 sessions"))
    }

    @Test func marksSelectionAndAnotherProcesssRemovalKeepTheCursorOnItsSession() {
        let source = KeySource(count: 500)
        var current = state(source, selected: "s00250")
        // The cursor starts on the selected session, drawn with `*`; `@` wins for the folder's session.
        #expect(current.sessions.current?.key == "s00250")
        #expect(AppScreen.frame(current).textDump().contains(" * s00250"))
        current.directorySession = "s00251"
        current = AppFixtures.run(current, [.key(.character(" ")), .key(.character(" "))], answering: source).0
        #expect(current.marked == ["s00250", "s00251"])
        let frame = AppScreen.frame(current).textDump()
        #expect(frame.contains("+* s00250") && frame.contains("+@ s00251"))
        #expect(current.sessions.current?.key == "s00252")
        // Another process removed a row above the cursor and the marked s00251.
        source.remove("s00010")
        source.remove("s00251")
        current =
            AppFixtures.run(
                current,
                [
                    .sessionsChangedElsewhere(
                        removed: ["s00251"],
                        selected: "s00250")
                ], answering: source
            ).0
        #expect(current.sessions.count == 498)
        #expect(current.sessions.current?.key == "s00252")
        #expect(current.marked == ["s00250"])
        #expect(AppScreen.frame(current).textDump().contains("251/498"))
    }
}
