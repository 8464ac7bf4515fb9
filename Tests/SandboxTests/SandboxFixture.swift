import AuthCore
import AuthCrypto
import Foundation
import Sandbox
import SandboxTestSupport
import Testing

/// A sandbox on a free port with a frozen clock and shared keys, plus the client steps tests repeat.
final class SandboxFixture: Sendable {
    let running: FrozenSandbox
    var server: SandboxServer { running.server }
    var clock: SandboxClock { running.clock }
    var deliveries: Deliveries { running.deliveries }
    let port: UInt16
    let base: String

    static let loopback = "http://127.0.0.1:5999/callback"
    /// The config id a sandbox without `proxyConfigID` answers to (config.json's); any other is refused.
    static let proxyHeaders = ["X-Auth-Proxy-Config-ID": "sandbox-config"]
    /// The auth environment config.json names, the only one the sandbox accepts unless a test sets another.
    static let portalHeaders = ["x-portal-auth-environment-id": "sandbox-environment"]

    init(_ adjust: (inout SandboxConfiguration) -> Void = { _ in }) throws {
        running = try FrozenSandbox(adjust)
        port = running.server.port
        base = running.server.baseURL
    }

    // MARK: - HTTP

    func get(_ target: String, headers: [String: String] = [:]) throws -> SandboxHTTP.Reply {
        try SandboxHTTP.request("GET", port: port, target, headers: headers)
    }

    func form(_ target: String, _ fields: [(String, String)], headers: [String: String] = [:]) throws
        -> SandboxHTTP.Reply
    {
        try SandboxHTTP.form(port: port, target, fields, headers: headers)
    }

    func proxy(_ path: String, _ body: [String: Any]) throws -> SandboxHTTP.Reply {
        try SandboxHTTP.json(port: port, "/turnkey/v1/\(path)", body, headers: Self.proxyHeaders)
    }

    /// otp_login with `token` and a fresh session key, as the SDK sends it.
    func otpLogin(_ token: String) throws -> SandboxHTTP.Reply {
        try proxy("otp_login", try Self.otpLoginBody(verificationToken: token, key: try P256PrivateKey()))
    }

    func portal(_ path: String, _ body: [String: Any], bearer: String? = nil) throws -> SandboxHTTP.Reply {
        var headers = Self.portalHeaders
        if let bearer { headers["Authorization"] = "Bearer \(bearer)" }
        return try SandboxHTTP.json(port: port, "/portal/api/v3/auth\(path)", body, headers: headers)
    }

    var jwks: String {
        get throws { try get("/oidc/google/jwks").text }
    }

    // MARK: - OIDC steps

    struct Grant {
        let code: String
        let verifier: String
        let redirectURI: String
        let state: String
    }

    /// The authorize URL with PKCE, state and nonce, plus whatever `extra` adds.
    func authorizeTarget(
        _ profile: String, clientID: String = "test-client", redirectURI: String = loopback,
        challenge: String, state: String = "state-1", nonce: String? = "nonce-1",
        extra: [(String, String)] = []
    ) -> String {
        let scopes = ["apple": "name email", "discord": "identify email", "x": "users.read offline.access"]
        let scope = scopes[profile] ?? "openid email profile"
        var parameters = [
            ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"),
            ("scope", scope), ("state", state), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]
        if let nonce { parameters.append(("nonce", nonce)) }
        return "/oidc/\(profile)/authorize?" + FormEncoding.encode(parameters + extra)
    }

    /// Runs the scripted approval and returns the code, from a redirect or from Apple's form_post page.
    func approve(
        _ profile: String, user: String = "ada", clientID: String = "test-client",
        redirectURI: String = loopback, nonce: String? = "nonce-1"
    ) throws -> Grant {
        let verifier = Base64URL.encode(try SecureRandom.bytes(32))
        let target = authorizeTarget(
            profile, clientID: clientID, redirectURI: redirectURI,
            challenge: PKCE.challenge(for: verifier), nonce: nonce,
            extra: [("sandbox_user", user), ("sandbox_auto", "approve")])
        let reply = try get(target)
        let fields = profile == "apple" ? Self.formFields(reply.text) : reply.locationQuery
        guard let code = fields["code"] else {
            throw SandboxHTTP.Failure(description: "no code: \(reply.status) \(reply.text.prefix(300))")
        }
        return Grant(code: code, verifier: verifier, redirectURI: redirectURI, state: fields["state"] ?? "")
    }

    func exchange(
        _ profile: String, _ grant: Grant, clientID: String = "test-client",
        verifier: String? = nil, redirectURI: String? = nil
    ) throws -> SandboxHTTP.Reply {
        try form(
            "/oidc/\(profile)/token",
            [
                ("grant_type", "authorization_code"), ("code", grant.code), ("client_id", clientID),
                ("redirect_uri", redirectURI ?? grant.redirectURI), ("code_verifier", verifier ?? grant.verifier),
            ])
    }

    /// The hidden inputs of an auto-submitting form_post page.
    static func formFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for piece in html.components(separatedBy: "<input type=\"hidden\" ").dropFirst() {
            guard let name = piece.between("name=\"", "\""), let value = piece.between("value=\"", "\"") else {
                continue
            }
            fields[name] = value.replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        }
        return fields
    }

    /// The action URL of the first form on a page.
    static func formAction(_ html: String) -> String? {
        html.between("<form method=\"post\" action=\"", "\"")?.replacingOccurrences(of: "&amp;", with: "&")
    }

    // MARK: - Proxy steps

    /// otp_init + otp_verify for `contact`; returns the verificationToken.
    /// `key`: bound into the token at otp_verify (the contract's `publicKey`), as authdeck binds its session key.
    func verifiedContact(
        _ contact: String, type: String = "OTP_TYPE_EMAIL",
        boundTo key: P256PrivateKey? = nil
    ) throws -> String {
        let initReply = try proxy("otp_init", ["contact": contact, "otpType": type])
        guard initReply.status == 200, let otpID = initReply.string("otpId"),
            let code = deliveries.code(otpID: otpID)
        else {
            throw SandboxHTTP.Failure(description: "otp_init failed: \(initReply.status) \(initReply.text)")
        }
        var body = ["otpId": otpID, "otpCode": code]
        if let key { body["publicKey"] = key.publicKey.compressedHex }
        let verify = try proxy("otp_verify", body)
        guard let token = verify.string("verificationToken") else {
            throw SandboxHTTP.Failure(description: "otp_verify failed: \(verify.status) \(verify.text)")
        }
        return token
    }

    /// The members every signup must carry, empty (the contract requires them).
    static var signupArrays: [String: Any] {
        ["apiKeys": [Any](), "authenticators": [Any](), "oauthProviders": [Any]()]
    }

    /// A signup body: `fields` plus the required arrays.
    static func signupBody(_ fields: [String: Any]) -> [String: Any] {
        signupArrays.merging(fields) { _, new in new }
    }

    /// The `id` claim of a verificationToken, read as the Turnkey SDK reads it (unverified).
    static func tokenID(_ token: String) -> String {
        guard let parts = try? JWS.decodeUnverified(token),
            let claims = (try? JSONSerialization.jsonObject(with: Data(parts.payload))) as? [String: Any]
        else {
            return ""
        }
        return claims["id"] as? String ?? ""
    }

    /// otp_login's body with the client signature over the SDK's token-usage message
    /// `{"login":{"publicKey"},"tokenId","type":"USAGE_TYPE_LOGIN"}`.
    static func otpLoginBody(
        verificationToken: String, key: P256PrivateKey,
        message: String? = nil, signer: P256PrivateKey? = nil
    ) throws -> [String: Any] {
        let publicKey = key.publicKey.compressedHex
        let text =
            try message
            ?? String(
                decoding: JSONSerialization.data(
                    withJSONObject: [
                        "login": ["publicKey": publicKey], "tokenId": tokenID(verificationToken),
                        "type": "USAGE_TYPE_LOGIN",
                    ], options: [.sortedKeys]), as: UTF8.self)
        let signature = try (signer ?? key).signature(for: Array(text.utf8))
        return [
            "verificationToken": verificationToken, "publicKey": publicKey,
            "clientSignature": [
                "message": text, "publicKey": publicKey, "scheme": "CLIENT_SIGNATURE_SCHEME_API_P256",
                "signature": Hex.encode(signature),
            ],
        ]
    }

    /// The verified claims of a JWT the sandbox signed.
    func claims(_ token: String) throws -> [String: Any] {
        let verified = try JWS.verify(token, jwks: try jwks)
        return (try JSONSerialization.jsonObject(with: Data(verified.payload))) as? [String: Any] ?? [:]
    }
}

extension String {
    /// The text between the first `start` and the next `end`.
    func between(_ start: String, _ end: String) -> String? {
        guard let from = range(of: start), let to = self[from.upperBound...].range(of: end) else { return nil }
        return String(self[from.upperBound..<to.lowerBound])
    }
}
