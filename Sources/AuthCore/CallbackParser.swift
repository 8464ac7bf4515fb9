import Foundation

/// Reads a redirect's parameters from a URL (query, or fragment for implicit-style answers) or from an
/// `application/x-www-form-urlencoded` body (Apple's form_post). Strict: a parameter given twice, a broken
/// escape or a URL that does not parse is refused, never guessed at.
public enum CallbackParser {
    /// Parameters larger than this are refused; real codes and tokens are far smaller.
    public static let maximumLength = 16 * 1024

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformedURL
        case malformedParameters
        case duplicateParameter(String)
        case tooLarge

        public var description: String {
            switch self {
            case .malformedURL: return "that is not a redirect URL"
            case .malformedParameters: return "the redirect's parameters are malformed"
            case .duplicateParameter(let name): return "the redirect repeats the parameter '\(name)'"
            case .tooLarge: return "the redirect is larger than 16 KiB"
            }
        }
    }

    /// A full redirect URL as a browser shows it, pasted or handed over by `open-url`.
    public static func parse(url text: String) throws(Failure) -> Callback {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= maximumLength else { throw .tooLarge }
        guard !trimmed.contains(where: { $0.isNewline || $0 == " " }),
            let scheme = URLComponents(string: trimmed)?.scheme, !scheme.isEmpty
        else {
            throw .malformedURL
        }
        // The raw text, not URLComponents' view of it: Foundation quietly re-escapes a broken `%ZZ`, and a
        // redirect with broken escapes must be refused, not repaired.
        let beforeFragment = trimmed.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        var pairs: [(String, String)] = []
        if let questionMark = beforeFragment[0].firstIndex(of: "?") {
            let query = beforeFragment[0][beforeFragment[0].index(after: questionMark)...]
            guard let decoded = FormEncoding.decode(query) else { throw .malformedParameters }
            pairs += decoded
        }
        if beforeFragment.count == 2, beforeFragment[1].contains("=") {
            guard let decoded = FormEncoding.decode(beforeFragment[1]) else { throw .malformedParameters }
            pairs += decoded
        }
        return try callback(from: pairs)
    }

    /// A form body (POST) or a bare query string.
    public static func parse(form body: [UInt8]) throws(Failure) -> Callback {
        guard body.count <= maximumLength else { throw .tooLarge }
        guard let text = String(validating: body, as: UTF8.self),
            let pairs = FormEncoding.decode(Substring(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        else {
            throw .malformedParameters
        }
        return try callback(from: pairs)
    }

    private static let known: Set<String> = [
        "code", "state", "error", "error_description", "id_token", "token", "iss", "response", "login_type",
        "authMethod",
    ]

    /// Parameters that arrived some other way: a verified JWT-secured response's claims, as strings.
    public static func parse(pairs: [(String, String)]) throws(Failure) -> Callback {
        try callback(from: pairs)
    }

    private static func callback(from pairs: [(String, String)]) throws(Failure) -> Callback {
        var seen: [String: String] = [:]
        for (name, value) in pairs where known.contains(name) {
            // A repeated parameter is how parameter-pollution attacks smuggle a second code or state.
            if seen[name] != nil { throw .duplicateParameter(name) }
            seen[name] = value
        }
        var callback = Callback(
            code: seen["code"], state: seen["state"], error: seen["error"],
            errorDescription: seen["error_description"], idToken: seen["id_token"], token: seen["token"],
            issuer: seen["iss"], response: seen["response"], loginType: seen["login_type"])
        callback.authMethod = seen["authMethod"]
        return callback
    }
}
