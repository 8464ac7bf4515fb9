import AuthCore
import Foundation

/// One step of a sign-in as the TUI saw it: a state change, a receiver's callback and its verdict, a notice.
public struct TraceLine: Equatable, Sendable {
    /// What kind of step, for its colour.
    public enum Kind: Equatable, Sendable {
        /// The machine moved to another state.
        case state
        /// A receiver delivered a callback (accepted or refused).
        case callback
        /// Something was refused but the attempt goes on.
        case notice
        /// The attempt ended.
        case result
        /// A protocol step from the flow trace (request, response, id_token…), named by its kind.
        case step(String)
    }

    public var time: Date
    public var kind: Kind
    public var text: String
    /// Whether the step went wrong, so it is drawn in the error colour.
    public var isError: Bool
    /// What Enter reveals: the step's redacted details as indented JSON, one line each (empty: nothing to expand).
    public var details: [String]

    public init(time: Date, kind: Kind, text: String, isError: Bool = false, details: [String] = []) {
        self.time = time
        self.kind = kind
        self.text = text
        self.isError = isError
        self.details = details
    }

    /// A step's details (already redacted by the flow trace) as the lines of indented JSON with sorted members;
    /// JSON escapes every control character, so nothing in a value can move the cursor.
    public static func detailLines(_ details: [String: JSONValue]) -> [String] {
        guard !details.isEmpty else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONValue.object(details)) else {
            return ["(details could not be shown)"]
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { withHumanTime(String($0)) }
    }

    /// The NumericDate claims a reader wants as a date (RFC 7519 4.1.4–4.1.6, OIDC Core 2's `auth_time`).
    static let timeClaims = ["iat", "exp", "nbf", "auth_time"]

    /// A pretty-printed line `"exp" : 1764660000,` with the moment it names beside it, in UTC:
    /// `"exp" : 1764660000,  (2025-12-02 07:20 UTC)`.
    static func withHumanTime(_ line: String) -> String {
        let trimmed = line.drop { $0 == " " }
        guard let claim = timeClaims.first(where: { trimmed.hasPrefix("\"\($0)\" : ") }) else { return line }
        let value = trimmed.dropFirst(claim.count + 5).prefix { $0.isNumber || $0 == "." }
        guard let seconds = Double(value), seconds.isFinite, seconds > 0, seconds < 1e11 else { return line }
        return line + "  (" + TimeText.dateTime(Date(timeIntervalSince1970: seconds), offset: 0) + " UTC)"
    }

    /// What a protocol step is, in the words of the features it belongs to, from its redacted details: a pushed
    /// authorization request (RFC 9126: the authorization parameters in a POST body; its answer a `request_uri`),
    /// a signed request object (RFC 9101), a DPoP proof in its headers (RFC 9449). Client assertions and ID tokens
    /// are steps of their own kind.
    public static func protocolLabels(kind: String, details: [String: JSONValue]) -> [String] {
        var labels: [String] = []
        switch kind {
        case "request":
            if case .object(let body)? = details["body"] {
                if body["response_type"] != nil || body["request"] != nil { labels.append("PAR") }
                if body["request"] != nil { labels.append("signed request object") }
            }
            if case .object(let headers)? = details["headers"],
                headers.keys.contains(where: { $0.lowercased() == "dpop" })
            {
                labels.append("DPoP proof")
            }
        case "response":
            if case .object(let body)? = details["body"], body["request_uri"] != nil, body["expires_in"] != nil {
                labels.append("PAR")
            }
        case "authorize":
            if case .object(let parameters)? = details["parameters"] {
                if parameters["request_uri"] != nil { labels.append("by PAR") }
                if parameters["request"] != nil { labels.append("signed request object") }
                if parameters["dpop_jkt"] != nil { labels.append("DPoP key bound") }
            }
        default:
            break
        }
        return labels
    }
}
