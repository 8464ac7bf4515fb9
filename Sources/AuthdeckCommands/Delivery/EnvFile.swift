import AuthCore
import Foundation

/// `exec --env-file FILE`: `NAME=value` lines, where a value `authdeck://KEY/token` (or `/id-token`) names a
/// session's token and any other value is passed as written. `#` lines and blank lines are skipped.
struct EnvFile {
    /// A line's variable: its literal value, or the session and field whose token it becomes.
    enum Value: Equatable {
        case literal(String)
        case reference(key: String, idToken: Bool)
    }

    struct Entry: Equatable {
        var name: String
        var value: Value
        /// `FILE:LINE`, for a message about this entry.
        var place: String
    }

    static let scheme = "authdeck://"
    static let fields = ["token": false, "id-token": true]

    let entries: [Entry]

    /// Reads and checks `path`; a line that is not `NAME=value`, or a reference that is not `authdeck://KEY/FIELD`
    /// with a known field, is refused in one line naming the file and line.
    init(path: String) throws(CommandFailure) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badInput("cannot read the env file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badInput("\(path) is not UTF-8 text")
        }
        try self.init(text: text, path: path)
    }

    init(text: String, path: String) throws(CommandFailure) {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "\(path):\(index + 1)"
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .badInput("\(place): not NAME=value (a # line is a comment)")
            }
            let name = String(line[..<equals])
            do throws(CommandFailure) {
                _ = try ExecCommand.variableName(name)
            } catch {
                throw .badInput(
                    "\(place): '\(TerminalText.sanitized(name))' is not a variable name "
                        + "(letters, digits, _; not starting with a digit)")
            }
            let value = String(line[line.index(after: equals)...])
            entries.append(Entry(name: name, value: try Self.value(value, place: place), place: place))
        }
        self.entries = entries
    }

    private static func value(_ text: String, place: String) throws(CommandFailure) -> Value {
        guard text.hasPrefix(scheme) else { return .literal(text) }
        let rest = text.dropFirst(scheme.count)
        guard let slash = rest.lastIndex(of: "/"), slash != rest.startIndex else {
            throw .badInput("\(place): a reference is authdeck://KEY/token or authdeck://KEY/id-token")
        }
        let key = String(rest[..<slash])
        let field = String(rest[rest.index(after: slash)...])
        if let problem = SessionKeyRule.problem(key) { throw .badInput("\(place): \(problem)") }
        guard let idToken = fields[field] else {
            throw .badInput(
                "\(place): unknown field '\(TerminalText.sanitized(field))' (token or id-token)")
        }
        return .reference(key: key, idToken: idToken)
    }
}
