import AuthCore
import Foundation

/// The home screen: the sessions table (key, provider letter, user, backend, status in its colour, expires-in
/// counting down, the selected one marked) and a details pane for the session under the cursor.
public struct SessionsScreen: Screen {
    /// Where the table and the details pane sit.
    public struct Layout: Equatable, Sendable {
        public var table: Rect
        public var details: Rect
    }

    public init() {}

    /// The columns at their smallest; `columns(for:)` sizes KEY, USER and BACKEND to the rows on screen.
    public static let columns = [
        Table.Column(" ", width: .fixed(2)),
        Table.Column("KEY", width: .flexible(minimum: 10)),
        Table.Column("P", width: .fixed(1)),
        Table.Column("USER", width: .flexible(minimum: 10)),
        Table.Column("BACKEND", width: .fixed(9)),
        Table.Column("STATUS", width: .fixed(8)),
        Table.Column("EXPIRES", width: .fixed(9), alignment: .right),
    ]

    /// From this width on the table adds CREATED, EMAIL and SCOPES.
    public static let wideColumns = 160

    /// Columns sized to their content: KEY, USER and BACKEND as wide as their longest value on screen, long keys
    /// cut in the middle and users at the end when the width runs out; what is left over stays at the right (on a
    /// wide terminal, for SCOPES).
    static func columns(for state: AppState, width: Int, rows: Range<Int>) -> [Table.Column] {
        var key = 3
        var user = 4
        var backend = 7
        var email = 5
        let wide = width >= wideColumns
        for row in rows {
            guard let record = state.sessions.loadedItem(atRow: row)?.record else { continue }
            key = max(key, DisplayText.width(of: DisplayText.sanitized(record.key)))
            user = max(user, DisplayText.width(of: DisplayText.sanitized(record.userLabel)))
            backend = max(backend, DisplayText.width(of: DisplayText.sanitized(record.backend)))
            if wide { email = max(email, DisplayText.width(of: DisplayText.sanitized(record.email ?? ""))) }
        }
        email = min(email, 32)
        // The sorted column's heading carries the arrow (KEY↑, USER↓), so it needs one column more.
        let sorted = state.sessions.sort
        let provider = sorted == .provider ? 2 : 1
        if sorted == .key { key = max(key, 4) }
        if sorted == .user { user = max(user, 5) }
        if sorted == .backend { backend = max(backend, 8) }
        var fixed = 2 + provider + 8 + 9 + 6  // marks, P, STATUS, EXPIRES and the six gaps
        if wide { fixed += 16 + email + 12 + 3 }  // CREATED, EMAIL, at least 12 for SCOPES, and their gaps
        let room = max(0, width - fixed)
        backend = min(backend, max(sorted == .backend ? 8 : 7, room * 2 / 5))
        key = min(key, max(10, (room - backend) * 11 / 20))
        user = max(sorted == .user ? 5 : 4, min(user, room - key - backend))
        let arrow = state.sessions.descending ? "↓" : "↑"
        func title(_ name: String, _ order: SessionSort) -> String { order == sorted ? name + arrow : name }
        return [
            Table.Column(" ", width: .fixed(2)),
            Table.Column(title("KEY", .key), width: .fixed(key)),
            Table.Column(title("P", .provider), width: .fixed(provider)),
            Table.Column(title("USER", .user), width: .fixed(user)),
            Table.Column(title("BACKEND", .backend), width: .fixed(backend)),
            Table.Column("STATUS", width: .fixed(8)),
            Table.Column(title("EXPIRES", .expiry), width: .fixed(9), alignment: .right),
        ]
            + (wide
                ? [
                    Table.Column("CREATED", width: .fixed(16)), Table.Column("EMAIL", width: .fixed(email)),
                    Table.Column("SCOPES", width: .flexible(minimum: 12)),
                ] : [])
    }

    /// `25/407`: the cursor's row and how many rows the filter leaves (`25/64+` while they are counted).
    static func position(_ list: SessionList) -> String {
        list.count == 0 ? "0/0" : "\(list.cursor + 1)/\(list.count)\(list.isCounting ? "+" : "")"
    }

    public static func layout(rows: Int, cols: Int) -> Layout {
        let body = AppFrame.body(rows: rows, cols: cols)
        let detailsHeight = body.rows >= 30 ? 10 : 8
        let (table, details) = body.splitBottom(detailsHeight)
        return Layout(table: Rect(row: table.row, col: 1, rows: table.rows, cols: cols - 2), details: details)
    }

    /// The table as drawn for `state`: rows are built only for the lines on screen.
    public static func table(for state: AppState) -> Table {
        let list = state.sessions
        let now = state.now
        let empty =
            list.filter.isEmpty
            ? "No sessions yet — press n to sign in."
            : "No session matches “\(list.filter)” — Esc clears the filter."
        let rect = layout(rows: state.rows, cols: state.cols).table
        let shown = list.scrollOffset..<min(list.count, list.scrollOffset + max(0, rect.rows - 1))
        let columns = columns(for: state, width: rect.cols, rows: shown)
        var keyWidth = 0
        var backendWidth = 0
        if case .fixed(let width) = columns[1].width { keyWidth = width }
        if case .fixed(let width) = columns[4].width { backendWidth = width }
        return Table(
            columns: columns, rowCount: list.count, selectedRow: list.count > 0 ? list.cursor : nil,
            scrollOffset: list.scrollOffset, emptyMessage: empty
        ) { row in
            // A row being read (for the instant before the read lands): a dim ellipsis.
            guard let item = list.loadedItem(atRow: row) else {
                return [Table.Item(""), Table.Item("…", color: .dim)]
                    + Array(repeating: Table.Item(""), count: columns.count - 2)
            }
            let record = item.record
            let status = record.status(at: now)
            let expires: String
            switch item.refresh {
            case .refreshing: expires = "refresh…"
            case .idle, .refreshed, .failed:
                expires = record.expiresAt.map { TimeText.signed(TimeText.secondsUntil($0, from: now)) } ?? "—"
            }
            let here = state.directorySession == record.key
            let marks = (state.marked.contains(record.key) ? "+" : " ") + (here ? "@" : item.isSelected ? "*" : " ")
            return [
                Table.Item(marks, color: .accent, attributes: .bold),
                Table.Item(
                    DisplayText.truncatedMiddle(DisplayText.sanitized(record.key), toWidth: keyWidth),
                    attributes: state.marked.contains(record.key) ? .bold : []),
                Table.Item(Provider(record.provider).letter, color: .accent),
                Table.Item(record.userLabel),
                Table.Item(DisplayText.truncatedMiddle(DisplayText.sanitized(record.backend), toWidth: backendWidth)),
                Table.Item(status.rawValue, color: Self.color(status)),
                Table.Item(expires, color: status == .active ? .normal : Self.color(status)),
            ]
                + (columns.count > 7
                    ? [
                        Table.Item(TimeText.dateTime(record.createdAt, offset: state.utcOffsetSeconds)),
                        Table.Item(DisplayText.sanitized(record.email ?? "")),
                        Table.Item(DisplayText.sanitized(record.scopes.joined(separator: " ")), color: .dim),
                    ] : [])
        }
    }

    public static func color(_ status: SessionStatus) -> Color {
        switch status {
        case .active: return .active
        case .expiring: return .expiring
        case .expired: return .expired
        }
    }

    public func render(_ state: AppState, into buffer: inout ScreenBuffer) {
        let layout = Self.layout(rows: buffer.rows, cols: buffer.cols)
        let list = state.sessions
        var right = list.totalCount == 1 ? "1 session" : "\(list.totalCount) sessions"
        if !list.filter.isEmpty {
            // While the count is worked out, the rows read so far: "64+ of 100000 match “us” (counting…)".
            let counting = list.isCounting ? " (counting…)" : ""
            right = "\(list.count)\(list.isCounting ? "+" : "") of \(list.totalCount) match “\(list.filter)”\(counting)"
        }
        if !state.marked.isEmpty { right += " · \(state.marked.count) marked" }
        right += " · by \(list.sort.rawValue)\(list.descending ? " reversed" : "") · " + Self.position(list)
        let (hints, pinned) = Self.hints(state)
        AppFrame.draw(title: "Sessions", right: right, hints: hints, pinned: pinned, state: state, into: &buffer)
        Self.table(for: state).draw(in: layout.table, into: &buffer)
        drawDetails(state, in: layout.details, into: &buffer)
        if let field = state.filterField {
            let row = buffer.rows - 2
            buffer.fill(Rect(row: row, col: 0, rows: 1, cols: buffer.cols))
            let label = SessionList.isFuzzy(field.text) ? " Fuzzy: " : " Filter: "
            let start = buffer.write(label, row: row, col: 0, style: Style(foreground: .accent, attributes: .bold))
            field.draw(in: Rect(row: row, col: start, rows: 1, cols: min(40, buffer.cols - start - 1)), into: &buffer)
        }
    }

    static func hints(_ state: AppState) -> (hints: [StatusBar.Hint], pinned: [StatusBar.Hint]) {
        if state.filterField != nil {
            return (
                [.init("Enter", "keep"), .init("Esc", "clear"), .init("Tab", "fuzzy")],
                [.init("?", "help"), .init("q", "quit")]
            )
        }
        return KeyBinding.hints(state.keys.sessions)
    }

    private func drawDetails(_ state: AppState, in rect: Rect, into buffer: inout ScreenBuffer) {
        guard rect.rows >= 3 else { return }
        let box = Box(title: "Details", style: Style(foreground: .dim), titleStyle: Style(attributes: .bold))
        box.draw(in: rect, into: &buffer)
        let inside = rect.inset(by: 1)
        guard let item = state.sessions.current else {
            buffer.write(
                " Sign in with n; the new session shows here.", row: inside.row, col: inside.col,
                style: Style(foreground: .dim), maxWidth: inside.cols)
            return
        }
        Self.draw(Self.detailLines(item, state: state), in: inside, into: &buffer)
    }

    /// Detail lines as label and value columns, as many as `inside` has rows for (the pane and the Details screen).
    /// A long value (a refresh failure's reason) wraps onto the rows the lines after it leave free, as `m` shows it.
    static func draw(_ lines: [DetailLine], in inside: Rect, into buffer: inout ScreenBuffer) {
        var row = inside.row
        for (index, line) in lines.enumerated() where row < inside.bottom {
            let end = buffer.write(
                " " + DisplayText.padded(line.label, toWidth: 9), row: row, col: inside.col,
                style: Style(foreground: .accent), maxWidth: inside.cols)
            let width = inside.right - end - 1
            let spare = inside.bottom - row - (lines.count - index)
            var parts = [line.value]
            if spare > 0, width > 0, DisplayText.width(of: line.value) > width {
                parts = Array(DisplayText.wrapped(line.value, toWidth: width).prefix(1 + spare))
            }
            for part in parts {
                buffer.write(part, row: row, col: end, style: Style(foreground: line.color), maxWidth: width)
                row += 1
            }
        }
    }

    /// One labelled line of the details pane.
    struct DetailLine {
        var label: String
        var value: String
        var color: Color = .normal
    }

    static func detailLines(_ item: SessionItem, state: AppState) -> [DetailLine] {
        let record = item.record
        let offset = state.utcOffsetSeconds
        var user = [record.displayName, record.email, record.phone].compactMap { $0 }
        // A backend that names users by an id only (Portal without a TOTP enrolment link): the id stands in, and
        // the line says so rather than pass it off as a name.
        if user.isEmpty { user = [record.subject + "  (id only; no name known)"] }
        var lines = [
            DetailLine(
                label: "User",
                value: user.joined(separator: " · ")
                    + (state.directorySession == record.key
                        ? "   (@ this folder uses it)"
                        : item.isSelected ? "   (* the default for scripts)" : "")),
            DetailLine(label: "Claims", value: "sub \(record.subject) · iss \(record.issuer)"),
            DetailLine(
                label: "Session",
                value: "\(record.key) · \(record.provider) via \(record.backend)"
                    + (record.scopes.isEmpty ? "" : " · scopes " + record.scopes.joined(separator: " "))),
        ]
        var times = "created " + TimeText.dateTime(record.createdAt, offset: offset)
        var timesColor = Color.normal
        if let expiresAt = record.expiresAt {
            let left = TimeText.secondsUntil(expiresAt, from: state.now)
            times +=
                " · expires " + TimeText.dateTime(expiresAt, offset: offset)
                + (left > 0 ? " (in \(TimeText.remaining(left)))" : " (expired)")
            let status = record.status(at: state.now)
            if status != .active { timesColor = color(status) }
        } else {
            times += " · no known expiry"
        }
        lines.append(DetailLine(label: "Times", value: times, color: timesColor))
        var refresh = record.refreshable ? "refresh token held" : "no refresh token"
        if let until = item.refreshExpiresAt {
            refresh += " until " + TimeText.dateTime(until, offset: offset)
        }
        refresh += record.autoRefresh ? " · auto-refresh on (a)" : " · auto-refresh off (a)"
        var refreshColor = Color.normal
        switch item.refresh {
        case .idle: break
        case .refreshing: refresh += " · refreshing…"
        case .refreshed(let date): refresh += " · refreshed at " + TimeText.clock(date, offset: offset)
        case .failed(let why):
            refresh += " · last refresh failed: " + why
            refreshColor = .error
        }
        lines.append(DetailLine(label: "Refresh", value: refresh, color: refreshColor))
        return lines
    }
}
