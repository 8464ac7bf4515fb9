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

    public init(key: String, content: Content = .checking) {
        self.key = key
        self.content = content
    }
}
