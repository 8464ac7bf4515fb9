import Testing

@testable import TerminalUI

/// Compares a buffer's text with the expected screen written in the test. On a mismatch the actual screen is
/// printed in full, ready to compare by eye.
func expectScreen(
    _ buffer: ScreenBuffer, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let actual = buffer.textDump()
    #expect(actual == expected, "screen was:\n\(actual)", sourceLocation: sourceLocation)
}

/// The session list the table tests draw: key, provider, user, status with its colour.
let sampleSessions: [[Table.Item]] = (1...30).map { number in
    let status: Table.Item =
        number % 3 == 0
        ? Table.Item("expired", color: .expired)
        : (number % 3 == 1 ? Table.Item("active", color: .active) : Table.Item("expiring", color: .expiring))
    return [
        Table.Item("session-\(number)"),
        Table.Item(number % 2 == 0 ? "google" : "discord"),
        Table.Item("user\(number)@example.com"),
        status,
    ]
}

let sampleColumns = [
    Table.Column("KEY", width: .fixed(12)),
    Table.Column("PROVIDER", width: .fixed(8)),
    Table.Column("USER", width: .flexible(minimum: 10)),
    Table.Column("STATUS", width: .fixed(8), alignment: .right),
]
