import AuthCore
import Foundation

/// The wire calls of Portal's Client Auth API (SPEC 3.5) under `<base>/api/v3/auth`, each with the
/// `x-portal-auth-environment-id` header, as portal-hq/PortalSwift's `PortalAuthApi` makes them. Answers are wrapped
/// in `{"data": …}`; refusals are read by their status as `PortalRequests` reads them (`refusal(_:call:codeSent:)`).
public struct PortalClient: Sendable {
    /// The backend's base URL, without `/api/v3/auth` (the sandbox's is `http://127.0.0.1:PORT/portal`).
    public let baseURL: String
    public let environmentID: String
    public let transport: HTTPTransport

    public init(baseURL: String, environmentID: String, transport: HTTPTransport) {
        self.baseURL = baseURL.trimmingSuffix("/")
        self.environmentID = environmentID
        self.transport = transport
    }

    /// What `POST /oauth/tokens` and `POST /totps/validations` answer. No `clientSessionToken` means a TOTP code
    /// is still required, with `userJwt` as the bearer for it.
    public struct Tokens: Equatable, Sendable {
        public var endUserID: String
        public var clientID: String?
        public var clientSessionToken: String?
        public var userJwt: String?
        public var totpLink: String?
        public var isAccountAbstracted: Bool?
    }

    private var authBase: String { baseURL + "/api/v3/auth" }

    // MARK: - Calls

    /// The sign-in methods the environment enables, as Portal names them (`GOOGLE`, `APPLE`, …):
    /// `{"data": {"allowedAuthMethods": [...], "autoCreateWallet": bool}}`.
    public func methods() throws(SignInError) -> [String] {
        let data = try call(OutgoingRequest(url: authBase + "/methods", headers: headers()), name: "methods")
        guard case .array(let methods)? = data["allowedAuthMethods"] else {
            throw .network(message: "Portal's methods answer has no allowedAuthMethods")
        }
        return methods.compactMap(\.string)
    }

    /// The provider URLs to open; the browser comes back to `redirectURL` with `?token=…&login_type=…` and no
    /// app-side state. `redirectURL` is matched byte for byte against the environment's allow-list, so it is sent
    /// escaped as Portal's SDKs escape it (everything but `A-Z a-z 0-9 - _ . *`).
    public func oauthURLs(redirectURL: String) throws(SignInError) -> [String: String] {
        let query = "redirectUrl=" + Self.formURLEncode(redirectURL)
        let data = try call(
            OutgoingRequest(url: authBase + "/oauth/urls?" + query, headers: headers()),
            name: "oauth/urls")
        guard case .object(let members) = data else {
            throw .network(message: "Portal's oauth/urls answer is not an object of URLs")
        }
        return members.compactMapValues(\.string)
    }

    /// Exchanges the redirect's one-time token.
    public func exchange(token: String) throws(SignInError) -> Tokens {
        try exchangeGrant("oauth/tokens", token: token)
    }

    /// Sends the magic-link email (`POST /magic-links`, PortalSwift's `SendMagicLinkRequest`): the address trimmed
    /// and lower-cased as the SDK sends it (Portal requires lower case), the allow-listed redirect URL the link leads
    /// to, and the environment's sender and template. The answer's body says nothing; 429 is the address's
    /// per-minute limit.
    public func sendMagicLink(
        email: String, redirectURL: String, fromEmail: String, templateID: String
    ) throws(SignInError) {
        let body = try TurnkeyProxyClient.encode(
            .object([
                "email": .string(email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()),
                "redirectUrl": .string(redirectURL), "fromEmail": .string(fromEmail),
                "templateId": .string(templateID),
            ]))
        let response = try transport.send(.json(authBase + "/magic-links", Array(body.utf8), headers: headers()))
        guard (200..<300).contains(response.status) else {
            throw Self.refusal(response, call: "magic-links", codeSent: false)
        }
    }

    /// Exchanges a magic link's one-time token (`POST /magic-links/validations`): the same request and answer as
    /// `/oauth/tokens`.
    public func validateMagicLink(token: String) throws(SignInError) -> Tokens {
        try exchangeGrant("magic-links/validations", token: token)
    }

    /// Both grant exchanges: `{"token"}` in, a session or a TOTP step's userJwt out (PortalSwift's `exchangeGrant`).
    private func exchangeGrant(_ route: String, token: String) throws(SignInError) -> Tokens {
        let body = try TurnkeyProxyClient.encode(.object(["token": .string(token)]))
        let data = try call(.json(authBase + "/" + route, Array(body.utf8), headers: headers()), name: route)
        return try Self.tokens(data, call: route)
    }

    /// Validates a TOTP code for the pending sign-in `userJwt` names; a wrong code is `invalidCode` (any 401: it
    /// does not spend the userJwt, so another code may follow). The answer carries no `endUserId`: it is read from
    /// the userJwt's `endUserId` claim, before the code is spent.
    public func validateTOTP(userJwt: String, code: String) throws(SignInError) -> Tokens {
        guard let endUserID = Self.endUserID(userJwt: userJwt) else {
            throw .network(message: "Portal's userJwt carries no endUserId claim")
        }
        let body = try TurnkeyProxyClient.encode(.object(["code": .string(code)]))
        let data = try call(
            .json(
                authBase + "/totps/validations", Array(body.utf8),
                headers: headers() + [("Authorization", "Bearer " + userJwt)]),
            name: "totps/validations", codeSent: true)
        guard let session = data["clientSessionToken"]?.string, !session.isEmpty else {
            throw .network(message: "Portal accepted the TOTP code but sent no clientSessionToken")
        }
        return Tokens(
            endUserID: endUserID, clientID: data["clientId"]?.string, clientSessionToken: session,
            userJwt: nil, totpLink: nil, isAccountAbstracted: data["isAccountAbstracted"]?.bool)
    }

    /// The `endUserId` claim of a userJwt, read without verifying (Portal's key is not the client's to know; the
    /// claim only labels the session, the token is what Portal checks).
    static func endUserID(userJwt: String) -> String? {
        guard let id = TurnkeySignIn.unverifiedClaims(userJwt)["endUserId"]?.string,
            !id.trimmingCharacters(in: .whitespaces).isEmpty
        else { return nil }
        return id
    }

    /// Java's `URLEncoder` form with `%20` for space: what Portal's SDKs send, byte for byte.
    static func formURLEncode(_ value: String) -> String {
        var output = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "*"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    /// A refusal as PortalSwift reads it: by status first, the body only where the SDK parses it. Every 401 is
    /// unauthorized whatever its body (`invalidCode` where the request carried a typed code: a wrong code leaves
    /// the userJwt usable); 429 is a rate limit; a 400 from `oauth/urls` with `{"error": message}` says account
    /// abstraction is unavailable; any other refusal keeps its status and its body as text, unparsed.
    static func refusal(_ response: IncomingResponse, call: String, codeSent: Bool) -> SignInError {
        let status = response.status
        switch status {
        case 401:
            return codeSent ? .invalidCode : .unauthorized
        case 429:
            return .rateLimited
        case 400 where call == "oauth/urls" || call == "magic-links":
            if let message = (try? JSONValue.parse(response.body))?["error"]?.string {
                return .authenticationFailed(
                    providerError: "account abstraction is not available for this auth environment: "
                        + TurnkeyProxyError.printable(String(message.prefix(200))))
            }
        default:
            break
        }
        let body = bodyText(response)
        if status >= 500 { return .network(message: "Portal failed on \(call) (HTTP \(status))\(body)") }
        return .authenticationFailed(providerError: "Portal refused \(call) (HTTP \(status))\(body)")
    }

    /// A refusal's body for a message, as text (PortalSwift copies it whole into its error): one printable line,
    /// or what kind of body it was when it is not one (an HTML page, nothing).
    private static func bodyText(_ response: IncomingResponse) -> String {
        let kind = TurnkeyProxyError.bodyKind(response)
        if response.body.isEmpty || kind.contains("HTML") { return " and \(kind)" }
        return ": " + TurnkeyProxyError.printable(String(decoding: response.body.prefix(400), as: UTF8.self))
    }

    // MARK: - Pieces

    private func headers() -> [(String, String)] {
        [("x-portal-auth-environment-id", environmentID), ("Accept", "application/json")]
    }

    /// A grant exchange's answer: a session (which must name its end user), or a userJwt for the TOTP step.
    static func tokens(_ data: JSONValue, call: String) throws(SignInError) -> Tokens {
        let session = data["clientSessionToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let userJwt = data["userJwt"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        if session == nil && userJwt == nil {
            throw .network(message: "Portal's \(call) answer has neither a clientSessionToken nor a userJwt")
        }
        let named = data["endUserId"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        guard let endUserID = named ?? (session == nil ? userJwt.flatMap { endUserID(userJwt: $0) } : nil) else {
            throw .network(message: "Portal's \(call) answer names no endUserId")
        }
        return Tokens(
            endUserID: endUserID, clientID: data["clientId"]?.string, clientSessionToken: session,
            userJwt: session == nil ? userJwt : nil, totpLink: data["totpLink"]?.string,
            isAccountAbstracted: data["isAccountAbstracted"]?.bool)
    }

    /// Sends one request and unwraps `data`.
    private func call(
        _ request: OutgoingRequest, name: String,
        codeSent: Bool = false
    ) throws(SignInError) -> JSONValue {
        let response = try transport.send(request)
        guard (200..<300).contains(response.status) else {
            throw Self.refusal(response, call: name, codeSent: codeSent)
        }
        let json = try response.json()
        guard let data = json["data"] else { throw .network(message: "Portal's \(name) answer has no data") }
        return data
    }
}
