import AuthCore
import AuthCrypto
import Foundation

/// One protocol step of a sign-in attempt, as support staff read it: what happened, when, and the details with
/// every secret redacted by field name.
public struct TraceStep: Sendable, Equatable, Codable {
    /// What kind of step: `authorize`, `receiver`, `request`, `response`, `id_token`, `transition`, `notice`, `result`.
    public var kind: String
    /// Wall-clock time, ISO 8601 UTC with milliseconds.
    public var at: String
    /// Milliseconds since the trace began.
    public var elapsedMs: Double
    /// One line for a person.
    public var summary: String
    public var details: [String: JSONValue]
}

/// Records the steps of sign-in attempts: shown live (the TUI's Trace screen) and written as JSON lines
/// (`login --trace FILE`). Redaction is by field: parameters, JSON members and headers that can carry a secret are
/// replaced with their length before a step is stored, so nothing downstream can leak them.
public final class FlowTrace: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [TraceStep] = []
    private let started: Date
    private let clock: @Sendable () -> Date
    private let onStep: (@Sendable (TraceStep) -> Void)?

    /// Names whose values are secrets wherever they appear: form fields, query parameters, JSON members.
    public static let secretNames: Set<String> = [
        "code", "code_verifier", "client_secret", "client_assertion", "access_token", "refresh_token", "id_token",
        "token", "device_code", "password", "otpCode", "verificationToken", "oidcToken", "userJwt", "session",
        "sessionJwt", "clientSessionToken", "authCode", "codeVerifier", "assertion", "secret", "totpSecret",
        "privateKey", "privateKeyHex",
        // The proxy's client signature message embeds the verification token; an enrolment link embeds the
        // TOTP secret.
        "clientSignature", "totpLink", "enrolmentLink", "otpauth",
    ]
    /// Values that bind an attempt (state, nonce): shown by their first characters only, enough to match them up.
    public static let bindingNames: Set<String> = ["state", "nonce", "code_challenge"]

    public init(clock: @escaping @Sendable () -> Date = { Date() }, onStep: (@Sendable (TraceStep) -> Void)? = nil) {
        self.clock = clock
        self.started = clock()
        self.onStep = onStep
    }

    public var steps: [TraceStep] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    public func record(_ kind: String, _ summary: String, _ details: [String: JSONValue] = [:]) {
        let now = clock()
        let step = TraceStep(
            kind: kind, at: Self.timestamp(now), elapsedMs: (now.timeIntervalSince(started) * 1000).rounded(),
            summary: Self.redactText(summary), details: details)
        lock.lock()
        recorded.append(step)
        lock.unlock()
        onStep?(step)
    }

    /// The steps as JSON lines, one object a step.
    public func jsonLines() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return steps.compactMap { step in (try? encoder.encode(step)).map { String(decoding: $0, as: UTF8.self) } }
            .joined(separator: "\n") + "\n"
    }

    // MARK: - Redaction

    public static func redactedValue(_ name: String, _ value: String) -> JSONValue {
        if secretNames.contains(name) { return .string("[redacted \(value.count) chars]") }
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
        let (base, query) = FlowTrace.redactedURL(request.url)
        var details: [String: JSONValue] = ["method": .string(request.method), "url": .string(base)]
        if case .object(let parameters) = query, !parameters.isEmpty { details["query"] = query }
        details["headers"] = .object(
            Dictionary(
                request.headers.map { name, value in
                    (
                        name,
                        name.lowercased() == "authorization"
                            ? .string(value.split(separator: " ").first.map { "\($0) [redacted]" } ?? "[redacted]")
                            : .string(value)
                    )
                }, uniquingKeysWith: { _, last in last }))
        if !request.body.isEmpty { details["body"] = Self.redactedBody(request.body, contentType: request.headers) }
        trace.record("request", "\(request.method) \(base)", details)
        do {
            let response = try inner.send(request)
            var answer: [String: JSONValue] = [
                "status": .number(Double(response.status)), "ms": .number((response.duration * 1000).rounded()),
                "url": .string(base),
            ]
            if let contentType = response.headers["content-type"] { answer["contentType"] = .string(contentType) }
            if let json = try? JSONValue.parse(response.body) {
                answer["body"] = FlowTrace.redactedJSON(json)
                if let idToken = json["id_token"]?.string {
                    trace.record("id_token", "ID token received", FlowTrace.decodedIDToken(idToken))
                }
            } else if response.status >= 400, !response.body.isEmpty {
                // A proxy's or framework's error page says what went wrong; its start is kept, redacted.
                answer["body"] = .string(FlowTrace.redactedSnippet(response.body))
                answer["bodyBytes"] = .number(Double(response.body.count))
            } else if !response.body.isEmpty {
                answer["body"] = .string("[\(response.body.count) bytes, not JSON]")
            }
            trace.record(
                "response", "\(response.status) from \(base) in \(Int((response.duration * 1000).rounded())) ms", answer
            )
            return response
        } catch {
            trace.record("response", "no answer from \(base): \(error.message)", ["url": .string(base)])
            throw error
        }
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
