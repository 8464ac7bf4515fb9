import AuthCore
import Foundation

/// The wire calls of a Portal-style auth backend (SPEC 3.5) under `<base>/api/v3/auth`, each with the
/// `x-portal-auth-environment-id` header. Answers are wrapped in `{"data": …}`; refusals are `{"error": message}`.
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
    }

    private var authBase: String { baseURL + "/api/v3/auth" }

    // MARK: - Calls

    /// The sign-in methods the environment enables (`google`, `apple`, …).
    public func methods() throws(SignInError) -> [String] {
        let data = try call(OutgoingRequest(url: authBase + "/methods", headers: headers()), name: "methods")
        let list: JSONValue?
        if case .array = data { list = data } else { list = data["methods"] }
        guard case .array(let methods)? = list else {
            throw .network(message: "Portal's methods answer lists no methods")
        }
        return methods.compactMap { $0.string ?? $0["name"]?.string ?? $0["type"]?.string }
    }

    /// The provider URLs to open; the browser comes back to `redirectURL` with `?token=…&state=…`.
    public func oauthURLs(redirectURL: String, state: String) throws(SignInError) -> [String: String] {
        let query = FormEncoding.encode([("redirectUrl", redirectURL), ("state", state)])
        let data = try call(OutgoingRequest(url: authBase + "/oauth/urls?" + query, headers: headers()),
                            name: "oauth/urls")
        guard case .object(let members) = data else {
            throw .network(message: "Portal's oauth/urls answer is not an object of URLs")
        }
        return members.compactMapValues(\.string)
    }

    /// Exchanges the redirect's one-time token.
    public func exchange(token: String) throws(SignInError) -> Tokens {
        let body = try TurnkeyProxyClient.encode(.object(["token": .string(token)]))
        let data = try call(.json(authBase + "/oauth/tokens", Array(body.utf8), headers: headers()),
                            name: "oauth/tokens")
        return try Self.tokens(data, call: "oauth/tokens")
    }

    /// Validates a TOTP code for the pending sign-in `userJwt` names; a wrong code is `invalidCode`.
    public func validateTOTP(userJwt: String, code: String) throws(SignInError) -> Tokens {
        let body = try TurnkeyProxyClient.encode(.object(["code": .string(code)]))
        let data = try call(.json(authBase + "/totps/validations", Array(body.utf8),
                                  headers: headers() + [("Authorization", "Bearer " + userJwt)]),
                            name: "totps/validations", codeSent: true)
        let tokens = try Self.tokens(data, call: "totps/validations")
        guard tokens.clientSessionToken != nil else {
            throw .network(message: "Portal accepted the TOTP code but sent no clientSessionToken")
        }
        return tokens
    }

    // MARK: - Pieces

    private func headers() -> [(String, String)] {
        [("x-portal-auth-environment-id", environmentID), ("Accept", "application/json")]
    }

    static func tokens(_ data: JSONValue, call: String) throws(SignInError) -> Tokens {
        guard let endUserID = data["endUserId"]?.string, !endUserID.isEmpty else {
            throw .network(message: "Portal's \(call) answer names no endUserId")
        }
        let session = data["clientSessionToken"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let userJwt = data["userJwt"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        if session == nil && userJwt == nil {
            throw .network(message: "Portal's \(call) answer has neither a clientSessionToken nor a userJwt")
        }
        return Tokens(endUserID: endUserID, clientID: data["clientId"]?.string, clientSessionToken: session,
                      userJwt: userJwt, totpLink: data["totpLink"]?.string)
    }

    /// Sends one request and unwraps `data`. 401 is `unauthorized` (a redirect URL that is not allow-listed, a
    /// wrong environment), or `invalidCode` where the request carried a typed code.
    private func call(_ request: OutgoingRequest, name: String,
                      codeSent: Bool = false) throws(SignInError) -> JSONValue {
        let response = try transport.send(request)
        guard (200..<300).contains(response.status) else {
            throw TurnkeyProxyError.error(from: response, service: "Portal", call: name, codeSent: codeSent)
        }
        let json = try response.json()
        guard let data = json["data"] else { throw .network(message: "Portal's \(name) answer has no data") }
        return data
    }
}
