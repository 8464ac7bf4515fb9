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

    /// A request for a DPoP proof (`dpop-proof` through the agent): the token request's fields and the proof's.
    static func request(_ requirement: TokenRequirement, _ proof: ProofRequest, origin: String) -> [UInt8] {
        let text =
            "{\"op\":\"dpop-proof\",\"session\":\(SessionJSON.quoted(requirement.key)),"
            + "\"method\":\(SessionJSON.quoted(proof.method)),\"url\":\(SessionJSON.quoted(proof.url)),"
            + "\"nonce\":\(SessionJSON.quoted(proof.nonce)),\"origin\":\(SessionJSON.quoted(origin))}\n"
        return Array(text.utf8)
    }

    /// A client's report that a resource answered the session's token with RFC 9470's step-up challenge: the agent
    /// then refuses the session's tokens, naming the `login --step-up` to run, until it is signed in again.
    static func request(stepUp challenge: StepUpChallenge, key: String, origin: String) -> [UInt8] {
        let text =
            "{\"op\":\"step-up\",\"session\":\(SessionJSON.quoted(key)),"
            + "\"acrValues\":\(SessionJSON.quoted(challenge.acrValues.joined(separator: " "))),"
            + "\"maxAge\":\(challenge.maxAge.map(String.init) ?? "null"),\"origin\":\(SessionJSON.quoted(origin))}\n"
        return Array(text.utf8)
    }

    /// The agent's answer to a step-up report: the command that answers the challenge.
    static func answer(stepUp command: String, key: String) -> [UInt8] {
        Array(("{\"ok\":true,\"key\":\(SessionJSON.quoted(key)),\"stepUp\":\(SessionJSON.quoted(command))}\n").utf8)
    }

    /// The command in an answer to a step-up report, or the failure it reports.
    static func parseStepUpAnswer(_ line: [UInt8]) -> Result<String, CommandFailure> {
        switch answered(line) {
        case .success(let object):
            guard let command = object["stepUp"] as? String else {
                return .failure(CommandFailure(.failed, "the agent's answer holds no step-up command"))
            }
            return .success(command)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// A request as the agent reads it (with the proof asked for, for a DPoP proof request, and the challenge
    /// reported, for a step-up report), or a message for a malformed one.
    static func parseRequest(
        _ line: [UInt8]
    ) -> Result<
        (TokenRequirement, origin: String, proof: ProofRequest?, stepUp: StepUpChallenge?), CommandFailure
    > {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let op = object["op"] as? String, op == "token" || op == "dpop-proof" || op == "step-up"
        else {
            return .failure(.usage("not a token request"))
        }
        var stepUp: StepUpChallenge?
        if op == "step-up" {
            guard object["session"] is String else { return .failure(.usage("a step-up report names its session")) }
            let maxAge = object["maxAge"] as? Int
            if let maxAge, maxAge < 0 { return .failure(.usage("bad maxAge in step-up report")) }
            let values = (object["acrValues"] as? String ?? "").split(separator: " ").map(String.init)
            guard values.count <= 16, values.allSatisfy({ $0.utf8.count <= 256 && SessionKeyRule.isValid($0) }) else {
                return .failure(.usage("bad acrValues in step-up report"))
            }
            stepUp = StepUpChallenge(acrValues: values, maxAge: maxAge)
        }
        var proof: ProofRequest?
        if op == "dpop-proof" {
            guard let method = object["method"] as? String, let url = object["url"] as? String else {
                return .failure(.usage("a dpop-proof request needs method and url"))
            }
            let asked = ProofRequest(method: method, url: url, nonce: object["nonce"] as? String)
            if let problem = asked.problem { return .failure(.usage(problem)) }
            proof = asked
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
                String(decoding: text.utf8.filter(isHostNameByte).prefix(64), as: UTF8.self)
            }.flatMap { $0.isEmpty ? nil : $0 } ?? "?"
        return .success((requirement, origin, proof, stepUp))
    }

    /// An ASCII letter, digit, `-`, `.` or `_`: what an origin keeps. Bytes, not Unicode properties: a multi-byte
    /// character's bytes are all above 0x7F, so none is kept.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    static func answer(_ issued: IssuedToken) -> [UInt8] {
        Array(
            ("{\"ok\":true,\"key\":\(SessionJSON.quoted(issued.key)),\"token\":\(SessionJSON.quoted(issued.token)),"
                + "\"expiresAt\":\(SessionJSON.quoted(issued.expiresAt.map(SessionJSON.iso8601)))}\n").utf8)
    }

    static func answer(proof: String, key: String) -> [UInt8] {
        Array(("{\"ok\":true,\"key\":\(SessionJSON.quoted(key)),\"proof\":\(SessionJSON.quoted(proof))}\n").utf8)
    }

    static func answer(_ failure: CommandFailure) -> [UInt8] {
        Array(
            ("{\"ok\":false,\"exit\":\(failure.code.rawValue),\"error\":\(SessionJSON.quoted(failure.message))}\n")
                .utf8)
    }

    /// The token in an answer, or the failure it reports.
    static func parseAnswer(_ line: [UInt8]) -> Result<IssuedToken, CommandFailure> {
        let object: [String: Any]
        switch answered(line) {
        case .success(let found): object = found
        case .failure(let failure): return .failure(failure)
        }
        guard let key = object["key"] as? String, let token = object["token"] as? String else {
            return .failure(CommandFailure(.failed, "the agent's answer holds no token"))
        }
        let expiresAt = (object["expiresAt"] as? String).flatMap { SessionJSON.parseISO8601($0) }
        return .success(IssuedToken(key: key, token: token, expiresAt: expiresAt))
    }

    /// The proof in an answer, or the failure it reports.
    static func parseProofAnswer(_ line: [UInt8]) -> Result<String, CommandFailure> {
        switch answered(line) {
        case .success(let object):
            guard let proof = object["proof"] as? String else {
                return .failure(CommandFailure(.failed, "the agent's answer holds no DPoP proof"))
            }
            return .success(proof)
        case .failure(let failure): return .failure(failure)
        }
    }

    /// An answer's object when it says ok, else the failure it reports.
    private static func answered(_ line: [UInt8]) -> Result<[String: Any], CommandFailure> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let ok = object["ok"] as? Bool
        else {
            return .failure(CommandFailure(.failed, "the agent sent an answer authdeck cannot read"))
        }
        guard ok else {
            let code = (object["exit"] as? Int).flatMap { ExitCode(rawValue: Int32($0)) } ?? .failed
            return .failure(CommandFailure(code, "agent: " + (object["error"] as? String ?? "refused")))
        }
        return .success(object)
    }
}
