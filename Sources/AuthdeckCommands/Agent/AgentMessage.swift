import AuthCore
import Foundation
import SessionStorage

/// What the agent and its clients send: one JSON object per line. A request names the session (null: the agent's
/// default), the validity wanted and where it comes from; an answer carries the token or the failure with its
/// exit code. Tokens travel only in answers, never in logs.
enum AgentMessage {
    static func request(_ requirement: TokenRequirement, origin: String) -> [UInt8] {
        let minValid = requirement.minValidSeconds.map(String.init) ?? "null"
        let text =
            "{\"op\":\"token\",\"session\":\(SessionJSON.quoted(requirement.key)),\"minValid\":\(minValid),"
            + "\"idToken\":\(requirement.idToken),\"origin\":\(SessionJSON.quoted(origin))}\n"
        return Array(text.utf8)
    }

    /// A request as the agent reads it, or a message for a malformed one.
    static func parseRequest(_ line: [UInt8]) -> Result<(TokenRequirement, origin: String), CommandFailure> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            object["op"] as? String == "token"
        else {
            return .failure(.usage("not a token request"))
        }
        var requirement = TokenRequirement()
        if let key = object["session"], !(key is NSNull) {
            // Keys are checked here, not only by the store: they reach the log and the --confirm prompt. A refused
            // key is named escaped (`\u{1B}`), so the log says what was asked without carrying it.
            guard let key = key as? String else { return .failure(.usage("bad session in request")) }
            if let problem = SessionKeyRule.problem(key) { return .failure(.usage(problem)) }
            requirement.key = key
        }
        if let minValid = object["minValid"], !(minValid is NSNull) {
            guard let seconds = minValid as? Int, (0...DurationText.maximumSeconds).contains(seconds) else {
                return .failure(.usage("bad minValid in request"))
            }
            requirement.minValidSeconds = seconds
        }
        requirement.idToken = object["idToken"] as? Bool ?? false
        // The peer says where it runs; shown to the operator, so only a host name's characters are kept.
        let origin =
            (object["origin"] as? String).map { text in
                String(
                    text.unicodeScalars.filter {
                        $0.isASCII
                            && ($0.properties.isAlphabetic
                                || $0.properties.numericType
                                    != nil
                                || "-._".unicodeScalars.contains($0))
                    }.prefix(64).map(Character.init))
            }.flatMap { $0.isEmpty ? nil : $0 } ?? "?"
        return .success((requirement, origin))
    }

    static func answer(_ issued: IssuedToken) -> [UInt8] {
        Array(
            ("{\"ok\":true,\"key\":\(SessionJSON.quoted(issued.key)),\"token\":\(SessionJSON.quoted(issued.token)),"
                + "\"expiresAt\":\(SessionJSON.quoted(issued.expiresAt.map(SessionJSON.iso8601)))}\n").utf8)
    }

    static func answer(_ failure: CommandFailure) -> [UInt8] {
        Array(
            ("{\"ok\":false,\"exit\":\(failure.code.rawValue),\"error\":\(SessionJSON.quoted(failure.message))}\n")
                .utf8)
    }

    /// The token in an answer, or the failure it reports.
    static func parseAnswer(_ line: [UInt8]) -> Result<IssuedToken, CommandFailure> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let ok = object["ok"] as? Bool
        else {
            return .failure(CommandFailure(.failed, "the agent sent an answer authdeck cannot read"))
        }
        guard ok else {
            let code = (object["exit"] as? Int).flatMap { ExitCode(rawValue: Int32($0)) } ?? .failed
            return .failure(CommandFailure(code, "agent: " + (object["error"] as? String ?? "refused")))
        }
        guard let key = object["key"] as? String, let token = object["token"] as? String else {
            return .failure(CommandFailure(.failed, "the agent's answer holds no token"))
        }
        let expiresAt = (object["expiresAt"] as? String).flatMap { SessionJSON.parseISO8601($0) }
        return .success(IssuedToken(key: key, token: token, expiresAt: expiresAt))
    }
}
