/// A value bound to a statement parameter when the statement is built at run time.
enum SQLiteValue: Equatable, Sendable {
    case text(String)
    case real(Double)

    func bind(to statement: SQLiteStatement, at index: Int32) {
        switch self {
        case .text(let text): statement.bind(index, text)
        case .real(let number): statement.bind(index, number)
        }
    }
}
