import AuthCore
import AuthCrypto
import Foundation
import Synchronization

/// One protocol step of a sign-in attempt, as support staff read it: what happened, when, and the details with
/// every secret redacted by field name.
public struct TraceStep: Sendable, Equatable, Codable {
    /// What kind of step a trace records; the raw values are what the JSON lines hold.
    public enum Kind: String, Sendable, Equatable, Codable, CaseIterable {
        /// The attempt began: the authorize URL, the device code, or a one-time code sent.
        case authorize
        /// A redirect reached a receiver, accepted or refused.
        case receiver
        case request
        case response
        /// An ID token's header and claims, decoded.
        case idToken = "id_token"
        /// A client assertion's header and claims as sent (`private_key_jwt`, `client_secret_jwt`); never its
        /// signature.
        case clientAssertion = "client_assertion"
        /// The machine changed state: `from` and `to` hold the states' names.
        case transition
        /// The user was asked whether to keep a session that came without `state`.
        case confirm
        /// Something went wrong and the attempt goes on; `code` holds the error's code when it was one.
        case notice
        /// How the attempt ended: a stored session, or an `error` with its `code`.
        case result
        /// The command's exit code (`login --trace`).
        case exit
    }

    public var kind: Kind
    /// Wall-clock time, ISO 8601 UTC with milliseconds.
    public var at: String
    /// Milliseconds since the trace began.
    public var elapsedMs: Double
    /// One line for a person.
    public var summary: String
    public var details: [String: JSONValue]
}

/// Records the steps of sign-in attempts: shown live (the TUI's Trace screen) and written as JSON lines
/// (`login --trace FILE`). Redaction is by field and by value: parameters, JSON members and headers that can carry a
/// secret are replaced with their length, and every secret value the attempt handled (learned from those fields, from
/// the redirect, from a typed code, from the PKCE verifier) is replaced wherever else it appears, whatever that field
/// is called (a proxy's `filterValue` holding an ID token). A secret learned after a step was stored is taken out of
/// that step too, so the steps read back and the JSON lines never hold it.
public final class FlowTrace: Sendable {
    private struct Recorded {
        var steps: [TraceStep] = []
        /// The secret values seen so far, longest first (a token that contains a shorter secret is replaced whole).
        var secretValues: [String] = []
    }
    private let recorded = Mutex(Recorded())
    private let started: Date
    private let clock: @Sendable () -> Date
    private let onStep: (@Sendable (TraceStep) -> Void)?

    /// Names whose values are secrets wherever they appear: form fields, query parameters, JSON members.
    public static let secretNames: Set<String> = [
        "code", "code_verifier", "client_secret", "client_assertion", "access_token", "refresh_token", "id_token",
        "token", "device_code", "password", "otpCode", "verificationToken", "oidcToken", "userJwt", "session",
        "sessionJwt", "clientSessionToken", "authCode", "codeVerifier", "assertion", "secret", "totpSecret",
        "privateKey", "privateKeyHex",
        // RP-Initiated Logout puts the session's ID token in the end-session URL.
        "id_token_hint",
        // The proxy's client signature message embeds the verification token; an enrolment link embeds the
        // TOTP secret.
        "clientSignature", "totpLink", "enrolmentLink", "otpauth",
        // CIBA's request handle (polled with it, like a device code) and token exchange's subject and actor tokens.
        "auth_req_id", "subject_token", "actor_token",
        // Turnkey's otp_verify_v2: the typed code and the session key, sealed to the proxy's enclave.
        "encryptedOtpBundle",
        // A WebAuthn response's proof: the signature, the attestation and the authenticator data it signs.
        "signature", "attestationObject", "authenticatorData",
    ]
    /// Values that bind an attempt (state, nonce): shown by their first characters only, enough to match them up.
    public static let bindingNames: Set<String> = ["state", "nonce", "code_challenge", "challenge"]

    public init(clock: @escaping @Sendable () -> Date = { Date() }, onStep: (@Sendable (TraceStep) -> Void)? = nil) {
        self.clock = clock
        self.started = clock()
        self.onStep = onStep
    }

    public var steps: [TraceStep] {
        recorded.withLock { $0.steps }
    }

    public func record(_ kind: TraceStep.Kind, _ summary: String, _ details: [String: JSONValue] = [:]) {
        let now = clock()
        let step = recorded.withLock { recorded in
            let step = Self.scrubbed(
                TraceStep(
                    kind: kind, at: Self.timestamp(now), elapsedMs: (now.timeIntervalSince(started) * 1000).rounded(),
                    summary: Self.redactText(summary), details: details),
                of: recorded.secretValues)
            recorded.steps.append(step)
            return step
        }
        onStep?(step)
    }

    /// The shortest value redacted wherever it appears: shorter ones (a four-digit code) would blank out unrelated
    /// numbers and words; those are redacted where they are named.
    public static let shortestSecretValue = 6

    /// Remembers a secret the attempt handled, so that no later step shows it, and takes it out of the steps
    /// already stored.
    public func learnSecret(_ value: String?) {
        guard let value, value.utf8.count >= Self.shortestSecretValue else { return }
        recorded.withLock { recorded in
            guard !recorded.secretValues.contains(value) else { return }
            recorded.secretValues.append(value)
            recorded.secretValues.sort { $0.utf8.count > $1.utf8.count }
            recorded.steps = recorded.steps.map { Self.scrubbed($0, of: [value]) }
        }
    }

    /// Every value of a secret-named field in form or query pairs, learned.
    public func learnSecrets(in pairs: [(String, String)]) {
        for (name, value) in pairs where Self.secretNames.contains(name) { learnSecret(value) }
    }

    /// Every value under a secret-named member of a JSON document, at any depth (all the strings inside a secret
    /// object such as the proxy's client signature), learned.
    public func learnSecrets(in json: JSONValue, inSecret: Bool = false) {
        switch json {
        case .object(let members):
            for (name, member) in members {
                learnSecrets(in: member, inSecret: inSecret || Self.secretNames.contains(name))
            }
        case .array(let elements):
            for element in elements { learnSecrets(in: element, inSecret: inSecret) }
        case .string(let text):
            if inSecret { learnSecret(text) }
        case .null, .bool, .number:
            break
        }
    }

    /// `step` with every occurrence of each of `secrets` replaced by its length, in the summary and in every string
    /// of the details (keys included).
    static func scrubbed(_ step: TraceStep, of secrets: [String]) -> TraceStep {
        guard !secrets.isEmpty else { return step }
        var result = step
        result.summary = scrubbed(step.summary, of: secrets)
        result.details = step.details.reduce(into: [:]) { details, member in
            details[scrubbed(member.key, of: secrets)] = scrubbed(member.value, of: secrets)
        }
        return result
    }

    static func scrubbed(_ value: JSONValue, of secrets: [String]) -> JSONValue {
        switch value {
        case .string(let text): return .string(scrubbed(text, of: secrets))
        case .array(let elements): return .array(elements.map { scrubbed($0, of: secrets) })
        case .object(let members):
            return .object(
                members.reduce(into: [:]) { object, member in
                    object[scrubbed(member.key, of: secrets)] = scrubbed(member.value, of: secrets)
                })
        case .null, .bool, .number: return value
        }
    }

    /// Compared as UTF-16 code units (Foundation's literal search), never as grapheme clusters: a secret followed by
    /// a combining mark is still found.
    static func scrubbed(_ text: String, of secrets: [String]) -> String {
        var result = text
        for secret in secrets {
            result = result.replacingOccurrences(
                of: secret, with: "[redacted \(secret.count) chars]", options: .literal)
        }
        return result
    }

    /// The steps as JSON lines, one object a step.
    public func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return steps.compactMap { step in (try? encoder.encode(step)).map { String(decoding: $0, as: UTF8.self) } }
            .joined(separator: "\n") + "\n"
    }

    /// The JSON lines and, after them, one `exit` step that is written but not recorded (the live trace does not
    /// show it): who wrote the file and through which backend, so `trace replay` takes the same backend.
    public func jsonLines(closedBy details: [String: JSONValue], _ summary: String) -> String {
        let now = clock()
        let step = TraceStep(
            kind: .exit, at: Self.timestamp(now), elapsedMs: (now.timeIntervalSince(started) * 1000).rounded(),
            summary: summary, details: details)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line = (try? encoder.encode(step)).map { String(decoding: $0, as: UTF8.self) + "\n" } ?? ""
        return jsonLines() + line
    }

    // MARK: - Redaction

    /// Signed JWTs that travel as parameters (a request object, a JARM response): shown decoded, never with their
    /// signature, their secret claims redacted.
    public static let signedNames: Set<String> = ["request", "response"]

    public static func redactedValue(_ name: String, _ value: String) -> JSONValue {
        if secretNames.contains(name) { return .string("[redacted \(value.count) chars]") }
        if signedNames.contains(name) { return .object(decodedIDToken(value)) }
        if bindingNames.contains(name) { return .string(String(value.prefix(4)) + "…") }
        return .string(value)
    }

    /// Form or query pairs with secrets redacted.
    public static func redactedPairs(_ pairs: [(String, String)]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (name, value) in pairs { object[name] = redactedValue(name, value) }
        return .object(object)
    }

    /// A JSON document with secret members redacted at any depth.
    public static func redactedJSON(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (name, member) in members {
                if case .string(let text) = member, secretNames.contains(name) || bindingNames.contains(name) {
                    result[name] = redactedValue(name, text)
                } else if secretNames.contains(name), case .object = member {
                    result[name] = .string("[redacted object]")
                } else {
                    result[name] = redactedJSON(member)
                }
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map(redactedJSON))
        case .null, .bool, .number, .string:
            return value
        }
    }

    /// A URL with its query parameters listed separately and redacted; the fragment dropped.
    public static func redactedURL(_ text: String) -> (base: String, parameters: JSONValue) {
        let withoutFragment = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let mark = withoutFragment.firstIndex(of: "?") else { return (String(withoutFragment), .object([:])) }
        let pairs = FormEncoding.decode(withoutFragment[withoutFragment.index(after: mark)...]) ?? []
        return (String(withoutFragment[..<mark]), redactedPairs(pairs))
    }

    /// The first 512 bytes of a body that is not JSON (an HTML error page), as printable text with every value of
    /// a secret-named field and every long opaque word (a token, a code) replaced by its length.
    public static func redactedSnippet(_ body: [UInt8], limit: Int = 512) -> String {
        let text = String(decoding: body.prefix(limit), as: UTF8.self).unicodeScalars.map { scalar -> Character in
            scalar.properties.generalCategory == .control || scalar == "\u{FFFD}" ? " " : Character(scalar)
        }
        func isWord(_ character: Character) -> Bool {
            character.isASCII && (character.isLetter || character.isNumber || "-_.~+/%".contains(character))
        }
        var output = ""
        var word = ""
        var previousWord = ""
        var gap = ""
        func flush() {
            guard !word.isEmpty else { return }
            let followsSecretName = secretNames.contains(previousWord) && gap.allSatisfy { "=:\"' ".contains($0) }
            if followsSecretName || word.count >= 24 {
                output += "[redacted \(word.count) chars]"
            } else {
                output += word
            }
            previousWord = word
            word = ""
            gap = ""
        }
        for character in text {
            if isWord(character) {
                word.append(character)
            } else {
                flush()
                gap.append(character)
                output.append(character)
            }
        }
        flush()
        return output + (body.count > limit ? "…" : "")
    }

    /// Free text (summaries) never carries a JWT-shaped or long opaque token: such words are redacted too.
    static func redactText(_ text: String) -> String {
        text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            let parts = word.split(separator: ".")
            if parts.count == 3, word.count > 40 { return "[redacted token]" }
            return String(word)
        }.joined(separator: " ")
    }

    /// An ID token's header and claims, decoded without verifying (for display; verification happens elsewhere).
    public static func decodedIDToken(_ token: String) -> [String: JSONValue] {
        guard let parts = try? JWS.decodeUnverified(token) else { return ["error": .string("not a JWS")] }
        let header = (try? JSONValue.parse(parts.header)) ?? .null
        let claims = (try? JSONValue.parse(parts.payload)).map(redactedJSON) ?? .null
        return ["header": header, "claims": claims]
    }

    /// A DPoP proof's header and claims, decoded; its signature is left out (the key's public half is in the header).
    public static func decodedProof(_ proof: String) -> [String: JSONValue] {
        guard let parts = try? JWS.decodeUnverified(proof) else { return ["error": .string("not a JWS")] }
        let header = (try? JSONValue.parse(parts.header)) ?? .null
        let claims = (try? JSONValue.parse(parts.payload)) ?? .null
        return ["header": header, "claims": claims]
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

/// Sends requests through another transport and records each request and response in a trace, redacted.
public struct TracingTransport: HTTPTransport {
    public let inner: HTTPTransport
    public let trace: FlowTrace

    public init(_ inner: HTTPTransport, trace: FlowTrace) {
        self.inner = inner
        self.trace = trace
    }

    public func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse {
        learnSecrets(of: request)
        let (base, query) = FlowTrace.redactedURL(request.url)
        var details: [String: JSONValue] = ["method": .string(request.method), "url": .string(base)]
        if case .object(let parameters) = query, !parameters.isEmpty { details["query"] = query }
        details["headers"] = .object(
            Dictionary(
                request.headers.map { name, value in
                    switch name.lowercased() {
                    case "authorization":
                        return (
                            name,
                            .string(value.split(separator: " ").first.map { "\($0) [redacted]" } ?? "[redacted]")
                        )
                    case "dpop": return (name, .object(FlowTrace.decodedProof(value)))
                    default: return (name, .string(value))
                    }
                }, uniquingKeysWith: { _, last in last }))
        if !request.body.isEmpty { details["body"] = Self.redactedBody(request.body, contentType: request.headers) }
        if let certificate = request.clientCertificate {
            // Mutual TLS: which certificate went into the handshake, by its thumbprint; never its key.
            details["clientCertificate"] = .object([
                "x5t#S256": .string(certificate.thumbprint), "subject": .string(certificate.certificate.subject),
            ])
        }
        if let assertion = Self.clientAssertion(in: request) {
            trace.record(.clientAssertion, "client assertion for \(base)", FlowTrace.decodedIDToken(assertion))
        }
        trace.record(.request, "\(request.method) \(base)", details)
        do {
            let response = try inner.send(request)
            var answer: [String: JSONValue] = [
                "status": .number(Double(response.status)), "ms": .number((response.duration * 1000).rounded()),
                "url": .string(base),
            ]
            if let contentType = response.headers["content-type"] { answer["contentType"] = .string(contentType) }
            if let nonce = response.headers["dpop-nonce"] { answer["dpopNonce"] = .string(nonce) }
            if let json = try? JSONValue.parse(response.body) {
                trace.learnSecrets(in: json)
                answer["body"] = FlowTrace.redactedJSON(json)
                if let idToken = json["id_token"]?.string {
                    trace.record(.idToken, "ID token received", FlowTrace.decodedIDToken(idToken))
                }
            } else if response.status >= 400, !response.body.isEmpty {
                // A proxy's or framework's error page says what went wrong; its start is kept, redacted.
                answer["body"] = .string(FlowTrace.redactedSnippet(response.body))
                answer["bodyBytes"] = .number(Double(response.body.count))
            } else if !response.body.isEmpty {
                answer["body"] = .string("[\(response.body.count) bytes, not JSON]")
            }
            trace.record(
                .response, "\(response.status) from \(base) in \(Int((response.duration * 1000).rounded())) ms", answer
            )
            return response
        } catch {
            trace.record(.response, "no answer from \(base): \(error.message)", ["url": .string(base)])
            throw error
        }
    }

    /// What the request carries in secret-named places (query, form or JSON body, the Authorization header's
    /// credentials), learned before anything of it is recorded.
    private func learnSecrets(of request: OutgoingRequest) {
        let withoutFragment = request.url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if let mark = withoutFragment.firstIndex(of: "?"),
            let pairs = FormEncoding.decode(withoutFragment[withoutFragment.index(after: mark)...])
        {
            trace.learnSecrets(in: pairs)
        }
        // A DPoP proof is shown decoded, never whole: its signature stays out of the trace.
        for (name, value) in request.headers where name.lowercased() == "dpop" { trace.learnSecret(value) }
        for (name, value) in request.headers where name.lowercased() == "authorization" {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else {
                trace.learnSecret(value)
                continue
            }
            let credentials = String(parts[1])
            trace.learnSecret(credentials)
            // Basic: `id:secret`, each form-encoded (RFC 6749 2.3.1); the secret is learned as sent and as decoded.
            if parts[0].lowercased() == "basic", let decoded = Base64URL.decode(credentials),
                let text = String(bytes: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            {
                let secret = String(text[text.index(after: colon)...])
                trace.learnSecret(secret)
                trace.learnSecret(FormEncoding.decode(Substring("s=" + secret))?.first?.1)
            }
        }
        guard !request.body.isEmpty else { return }
        let type = request.headers.first { $0.0.lowercased() == "content-type" }?.1.lowercased() ?? ""
        if type.hasPrefix("application/json"), let json = try? JSONValue.parse(request.body) {
            trace.learnSecrets(in: json)
        } else if type.hasPrefix("application/x-www-form-urlencoded"),
            let pairs = FormEncoding.decode(Substring(String(decoding: request.body, as: UTF8.self)))
        {
            trace.learnSecrets(in: pairs)
        }
    }

    /// The `client_assertion` a form request carries (RFC 7523 2.2), to show decoded.
    private static func clientAssertion(in request: OutgoingRequest) -> String? {
        let type = request.headers.first { $0.0.lowercased() == "content-type" }?.1.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded"),
            let pairs = FormEncoding.decode(Substring(String(decoding: request.body, as: UTF8.self)))
        else { return nil }
        return pairs.first { $0.0 == "client_assertion" }?.1
    }

    static func redactedBody(_ body: [UInt8], contentType headers: [(String, String)]) -> JSONValue {
        let type = headers.first { $0.0.lowercased() == "content-type" }?.1.lowercased() ?? ""
        if type.hasPrefix("application/json"), let json = try? JSONValue.parse(body) {
            return FlowTrace.redactedJSON(json)
        }
        if type.hasPrefix("application/x-www-form-urlencoded"),
            let pairs = FormEncoding.decode(Substring(String(decoding: body, as: UTF8.self)))
        {
            return FlowTrace.redactedPairs(pairs)
        }
        return .string("[\(body.count) bytes]")
    }
}
