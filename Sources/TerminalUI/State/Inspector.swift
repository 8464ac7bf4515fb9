import AuthCore

/// The Details screen's inspector (`i`): the session's tokens decoded and checked against the issuer's keys, the
/// same `TokenInspection` that `authdeck inspect` prints, drawn as its rows.
public struct Inspector: Equatable, Sendable {
    /// Where the inspection stands.
    public enum Content: Equatable, Sendable {
        /// Asked; the issuer's keys may be on their way.
        case checking
        case inspected(TokenInspection)
        /// Nothing could be checked (the issuer unreachable, the store locked): why, in one line.
        case failed(String)
    }

    /// The session it inspects.
    public var key: String
    public var content: Content
    /// The first row shown: ↑/↓ and PgUp/PgDn scroll an inspection taller than the screen.
    public var scroll: Int

    public init(key: String, content: Content = .checking, scroll: Int = 0) {
        self.key = key
        self.content = content
        self.scroll = scroll
    }

    /// The rows the screen draws, from `TokenInspection.rows` or a line saying where it stands.
    public var rows: [TokenInspection.Row] {
        switch content {
        case .checking: return [TokenInspection.Row(.holds, "checking", "the issuer's keys are being fetched…")]
        case .failed(let reason): return [TokenInspection.Row(.failed, "failed", reason)]
        case .inspected(let inspection): return inspection.rows
        }
    }

    /// Scrolled by `rows` (negative: up), kept within the rows there are.
    mutating func scroll(by rows: Int) {
        scroll = max(0, min(self.rows.count - 1, scroll + rows))
    }
}
