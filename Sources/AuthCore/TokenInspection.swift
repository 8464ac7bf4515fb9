import AuthCrypto
import Foundation

/// What a session's tokens say, decoded and checked against the issuer's keys: `authdeck inspect` prints it as text
/// or JSON and the TUI's Details draws it, from this one value. It holds claims and headers only, never a token or
/// its signature. Pure: the JWKS and the time come in as values.
public struct TokenInspection: Equatable, Sendable {
    /// One check of one token, named as the claim or property it is about.
    public struct Check: Equatable, Sendable {
        /// `signature`, `iss`, `aud`, `exp`, `nbf` or `iat`.
        public var name: String
        public var ok: Bool
        /// What was found: the date and how far it is, the audience, the key that signed, or why it failed.
        public var detail: String

        public init(_ name: String, ok: Bool, _ detail: String) {
            self.name = name
            self.ok = ok
            self.detail = detail
        }
    }

    /// One of the session's tokens.
    public struct Token: Equatable, Sendable {
        /// `id_token` or `access_token`, as OAuth names them.
        public var name: String
        public var content: Content
        public var checks: [Check]

        /// What the token is, decoded as far as it can be.
        public enum Content: Equatable, Sendable {
            /// A JWT: its protected header and claims, decoded whether or not the signature holds.
            case jwt(header: [String: JSONValue], claims: [String: JSONValue])
            /// Not a JWT: a reference only its issuer can read (`authdeck introspect` asks it).
            case opaque
            /// Three dot-separated parts that do not decode into a JWS with a JSON header and claims.
            case damaged(String)
        }

        /// The words the screens use: "ID token", "access token".
        public var title: String { name == "id_token" ? "ID token" : "access token" }
    }

    public var key: String
    public var issuer: String
    public var clientID: String?
    public var tokens: [Token]
    /// What a session without tokens to decode holds instead (an auth proxy's session JWT, a Portal session).
    public var holds: [String]
    /// When the checks ran; times are shown relative to it.
    public var checkedAt: Date
    /// Set when a signature check met a `kid` the JWKS lacks: the caller refetches the keys once and inspects again.
    public var needsFreshKeys: Bool

    /// Every check that failed, as `id_token signature`, and every token that could not be decoded.
    public var failures: [String] {
        tokens.flatMap { token -> [String] in
            if case .damaged = token.content { return ["\(token.name) damaged"] }
            return token.checks.filter { !$0.ok }.map { "\(token.name) \($0.name)" }
        }
    }

    public var passed: Bool { failures.isEmpty }

    /// Inspects the session's tokens. `jwks` is the issuer's key set, nil when the issuer publishes none; `clientID`
    /// is the ID token's expected audience (not checked when nil: the session does not say who it was issued to).
    public static func inspect(
        key: String, issuer: String, clientID: String?, idToken: String?, accessToken: String?,
        jwks: String?, now: Date
    ) -> TokenInspection {
        var result = TokenInspection(
            key: key, issuer: issuer, clientID: clientID, tokens: [], holds: [], checkedAt: now,
            needsFreshKeys: false)
        for (name, token) in [("id_token", idToken), ("access_token", accessToken)] {
            guard let token else { continue }
            let (inspected, unknownKey) = inspectOne(
                name, token, issuer: issuer, clientID: name == "id_token" ? clientID : nil, jwks: jwks, now: now)
            result.tokens.append(inspected)
            if unknownKey { result.needsFreshKeys = true }
        }
        return result
    }

    /// A session whose tokens are not JWTs of an issuer with published keys: what it holds, nothing checked.
    public static func holding(_ holds: [String], key: String, issuer: String, now: Date) -> TokenInspection {
        TokenInspection(
            key: key, issuer: issuer, clientID: nil, tokens: [], holds: holds, checkedAt: now, needsFreshKeys: false)
    }

    /// Whether `token` has the shape of a compact JWS (three base64url parts, the first a JSON header with `alg`),
    /// so that its issuer's keys are needed to check it.
    public static func looksLikeJWT(_ token: String) -> Bool {
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3,
            let parts = try? JWS.decodeUnverified(token), case .object(let header)? = try? JSONValue.parse(parts.header)
        else { return false }
        return header["alg"]?.string != nil
    }

    private static func inspectOne(
        _ name: String, _ token: String, issuer: String, clientID: String?, jwks: String?, now: Date
    ) -> (Token, unknownKey: Bool) {
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            return (Token(name: name, content: .opaque, checks: []), false)
        }
        guard let parts = try? JWS.decodeUnverified(token),
            case .object(let header)? = try? JSONValue.parse(parts.header),
            case .object(let claims)? = try? JSONValue.parse(parts.payload)
        else {
            let reason = "its header or claims are not base64url-encoded JSON objects"
            return (Token(name: name, content: .damaged(reason), checks: []), false)
        }
        var checks: [Check] = []
        var unknownKey = false
        let signer = [header["alg"]?.string, header["kid"]?.string.map { "key " + $0 }].compactMap { $0 }
        if let jwks {
            do {
                _ = try IDTokenVerifier.signedClaims(token, jwks: jwks)
                checks.append(Check("signature", ok: true, (signer + ["of the issuer's JWKS"]).joined(separator: " ")))
            } catch {
                if error == .unknownKeyID { unknownKey = true }
                // IDTokenFailure says "signature: …" for a bad one; the check's name says that already.
                let reason = error.description
                checks.append(
                    Check(
                        "signature", ok: false, reason.hasPrefix("signature: ") ? String(reason.dropFirst(11)) : reason)
                )
            }
        } else {
            checks.append(Check("signature", ok: false, "the issuer publishes no JWKS (no jwks_uri in its discovery)"))
        }
        let issued = claims["iss"]?.string ?? "none"
        let issuerProblem = IDTokenVerifier.issuerProblem(claims, issuer: issuer)
        checks.append(
            Check("iss", ok: issuerProblem == nil, issuerProblem.map { "\($0): \(issued), not \(issuer)" } ?? issued))
        if let clientID {
            let audiences = IDTokenVerifier.audiences(claims).joined(separator: " ")
            let problem = IDTokenVerifier.audienceProblem(claims, clientID: clientID)
            checks.append(
                Check(
                    "aud", ok: problem == nil,
                    problem.map { "\($0): \(audiences.isEmpty ? "none" : audiences), not \(clientID)" } ?? audiences))
        }
        let timed: [(String, ([String: JSONValue], Date) -> String?)] = [
            ("exp", IDTokenVerifier.expiryProblem), ("nbf", IDTokenVerifier.notBeforeProblem),
            ("iat", IDTokenVerifier.issueTimeProblem),
        ]
        for (claim, problemOf) in timed {
            let when = claims[claim].map { time($0, now: now) } ?? "absent"
            let problem = problemOf(claims, now)
            checks.append(Check(claim, ok: problem == nil, problem.map { "\($0): \(when)" } ?? when))
        }
        return (Token(name: name, content: .jwt(header: header, claims: claims), checks: checks), unknownKey)
    }

    /// A NumericDate (RFC 7519 2) as an ISO 8601 UTC date and how far from `now`: `2026-12-02T04:19:46Z (in 4m 10s)`.
    public static func time(_ value: JSONValue, now: Date) -> String {
        guard let seconds = value.number, seconds.isFinite, abs(seconds) < 1e11 else { return "\(value.jsonText)" }
        let date = Date(timeIntervalSince1970: seconds.rounded(.down))
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let distance = Int(date.timeIntervalSince(now).rounded())
        return formatter.string(from: date) + " (" + DurationText.relative(distance) + ")"
    }

    /// The claims that are times (RFC 7519 4.1, OIDC Core 2).
    public static let timeClaims: Set<String> = ["exp", "nbf", "iat", "auth_time"]
}

extension JSONValue {
    /// The value as compact JSON with sorted keys, as `inspect` shows a claim that is not a plain string.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
