import AuthCore
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Sessions as JSON text: the `list --json` object (exactly the fields of SPEC section 5) and the import/export
/// line, which adds the secrets. Written by hand: `list --json` over 100,000 sessions must stay well under
/// 300 ms, and a coder per object would not.
public enum SessionJSON {
    /// The `list --json` fields in order: key, backend, provider, subject, email, phone, issuer, createdAt,
    /// expiresAt, status, refreshable, selected.
    public static func listObject(_ entry: StoreEntry, now: Date) -> String {
        var text = "{"
        appendListFields(entry, now: now, to: &text)
        text += "}"
        return text
    }

    /// An array of `listObject`s, one per line.
    public static func listArray(_ entries: [StoreEntry], now: Date) -> String {
        guard !entries.isEmpty else { return "[]\n" }
        var text = "[\n"
        text.reserveCapacity(entries.count * 320)
        for (index, entry) in entries.enumerated() {
            text += "  {"
            appendListFields(entry, now: now, to: &text)
            text += index == entries.count - 1 ? "}\n" : "},\n"
        }
        text += "]\n"
        return text
    }

    /// One import/export line: the list fields, then displayName, scopes, autoRefresh and the secrets that are set.
    public static func transferLine(_ session: Session, selected: Bool, now: Date) -> String {
        let entry = StoreEntry(record: session.record, isSelected: selected,
                               refreshExpiresAt: session.secrets.refreshExpiresAt)
        var text = "{"
        appendListFields(entry, now: now, to: &text)
        let record = session.record, secrets = session.secrets
        text += ",\"displayName\":" + quoted(record.displayName)
        text += ",\"scopes\":[" + record.scopes.map { quoted($0) }.joined(separator: ",") + "]"
        text += ",\"autoRefresh\":" + (record.autoRefresh ? "true" : "false")
        let optional: [(String, String?)] = [
            ("accessToken", secrets.accessToken), ("refreshToken", secrets.refreshToken),
            ("idToken", secrets.idToken), ("sessionJwt", secrets.sessionJwt),
            ("privateKeyHex", secrets.privateKeyHex), ("refreshExpiresAt", secrets.refreshExpiresAt.map(iso8601)),
        ]
        for (name, value) in optional {
            if let value { text += ",\"\(name)\":" + quoted(value) }
        }
        text += "}"
        return text
    }

    /// Parses import lines (blank lines skipped). Errors name the line, never its content: it may hold a token.
    public static func parseLines(_ bytes: [UInt8]) throws(StoreError) -> [Session] {
        var sessions: [Session] = []
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }) { continue }
            sessions.append(try parseLine(Data(line), number: lineNumber))
        }
        return sessions
    }

    static func parseLine(_ data: Data, number: Int) throws(StoreError) -> Session {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .invalidInput("line \(number): not a JSON object")
        }
        func string(_ name: String, required: Bool = false) throws(StoreError) -> String? {
            switch object[name] {
            case nil, is NSNull:
                if required { throw .invalidInput("line \(number): '\(name)' is missing") }
                return nil
            case let value as String:
                return value
            default:
                throw .invalidInput("line \(number): '\(name)' must be a string")
            }
        }
        func date(_ name: String, required: Bool = false) throws(StoreError) -> Date? {
            guard let text = try string(name, required: required) else { return nil }
            guard let value = parseISO8601(text) else {
                throw .invalidInput("line \(number): '\(name)' is not an ISO 8601 date")
            }
            return value
        }
        func bool(_ name: String) throws(StoreError) -> Bool? {
            switch object[name] {
            case nil, is NSNull: return nil
            case let value as Bool: return value
            default: throw .invalidInput("line \(number): '\(name)' must be true or false")
            }
        }
        guard let key = try string("key", required: true), !key.isEmpty else {
            throw .invalidInput("line \(number): 'key' must not be empty")
        }
        let secrets = SessionSecrets(
            accessToken: try string("accessToken"), refreshToken: try string("refreshToken"),
            idToken: try string("idToken"), sessionJwt: try string("sessionJwt"),
            privateKeyHex: try string("privateKeyHex"), refreshExpiresAt: try date("refreshExpiresAt"))
        guard secrets.bearer != nil || secrets.idToken != nil else {
            throw .invalidInput("line \(number): needs accessToken, sessionJwt or idToken")
        }
        let scopes: [String]
        switch object["scopes"] {
        case nil, is NSNull: scopes = []
        case let list as [String]: scopes = list
        case let text as String: scopes = text.split(separator: " ").map(String.init)
        default: throw .invalidInput("line \(number): 'scopes' must be a list of strings")
        }
        let record = SessionRecord(
            key: key, backend: try string("backend") ?? "direct", provider: try string("provider") ?? "oidc",
            subject: try string("subject") ?? "", email: try string("email"), phone: try string("phone"),
            displayName: try string("displayName"), issuer: try string("issuer") ?? "",
            createdAt: try date("createdAt") ?? Date(), expiresAt: try date("expiresAt"),
            refreshable: secrets.refreshToken != nil, scopes: scopes, autoRefresh: try bool("autoRefresh") ?? false)
        return Session(record: record, secrets: secrets)
    }

    // MARK: - Pieces

    private static func appendListFields(_ entry: StoreEntry, now: Date, to text: inout String) {
        let record = entry.record
        text += "\"key\":" + quoted(record.key)
        text += ",\"backend\":" + quoted(record.backend)
        text += ",\"provider\":" + quoted(record.provider)
        text += ",\"subject\":" + quoted(record.subject)
        text += ",\"email\":" + quoted(record.email)
        text += ",\"phone\":" + quoted(record.phone)
        text += ",\"issuer\":" + quoted(record.issuer)
        text += ",\"createdAt\":" + quoted(iso8601(record.createdAt))
        text += ",\"expiresAt\":" + quoted(record.expiresAt.map(iso8601))
        text += ",\"status\":" + quoted(record.status(at: now).rawValue)
        text += ",\"refreshable\":" + (record.refreshable ? "true" : "false")
        text += ",\"selected\":" + (entry.isSelected ? "true" : "false")
    }

    /// A JSON string literal, or `null`.
    public static func quoted(_ value: String?) -> String {
        guard let value else { return "null" }
        var output = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    /// `2024-05-01T12:00:00Z`: UTC, whole seconds.
    public static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
    public static func parseISO8601(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        return plain.date(from: text) ?? withFraction.date(from: text)
    }
}
