import AuthCore
import AuthCrypto
import Foundation

/// The wire calls of a Turnkey-compatible Auth Proxy (SPEC 3.4): `POST <base>/v1/<path>` with a JSON body and the
/// `X-Auth-Proxy-Config-ID` header. Each call answers typed values or a `SignInError` carrying the proxy's own
/// message, so the sign-in above it never parses HTTP.
public struct TurnkeyProxyClient: Sendable {
    /// The proxy's base URL, without `/v1` (the sandbox's is `http://127.0.0.1:PORT/turnkey`).
    public let baseURL: String
    public let configID: String
    public let transport: HTTPTransport
    /// Whether the sandbox's TOTP step (`totpRequired`, `/v1/totp_verify`) is accepted. It is not in the Auth
    /// Proxy contract, so it stays off unless the backend's config.json entry turns it on (`totpExtension`).
    public let totpExtension: Bool
    /// The key that must have signed `otp_init_v2`'s encryption target (hex, uncompressed P-256): Turnkey's
    /// production signer unless config.json's `otpSignerPublicKey` names another (the sandbox's).
    public let otpSignerPublicKey: String

    public static let clientSignatureScheme = "CLIENT_SIGNATURE_SCHEME_API_P256"
    /// tkhq/swift-sdk's `TurnkeyConstants.productionTlsFetcherSignPublicKey`, which signs the OTP target bundle.
    public static let productionOTPSigner =
        "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9dff70b34992e520ce04c79d931f6ff6296b547d201"

    public init(
        baseURL: String, configID: String, transport: HTTPTransport, totpExtension: Bool = false,
        otpSignerPublicKey: String? = nil
    ) {
        self.baseURL = baseURL.trimmingSuffix("/")
        self.configID = configID
        self.transport = transport
        self.totpExtension = totpExtension
        self.otpSignerPublicKey = otpSignerPublicKey ?? Self.productionOTPSigner
    }

    /// What `wallet_kit_config` says about the proxy: which methods are on, the code shape, session lifetime and
    /// the OAuth clients it expects ID tokens for.
    public struct WalletKitConfig: Equatable, Sendable {
        public var enabledProviders: [String]
        public var otpFormat: OTPCodeFormat
        public var sessionExpirationSeconds: Int?
        public var oauthClientIDs: [String: String]
        public var oauthRedirectURL: String?
        public var organizationID: String?

        public func enables(_ method: String) -> Bool {
            enabledProviders.contains { $0.caseInsensitiveCompare(method) == .orderedSame }
        }
    }

    /// A login's answer: the session JWT, or the TOTP extension's challenge.
    public enum LoginAnswer: Equatable, Sendable {
        case session(String)
        case totpRequired(userJwt: String, totpLink: String?)
    }

    // MARK: - Calls

    public func walletKitConfig() throws(SignInError) -> WalletKitConfig {
        let json = try call("wallet_kit_config", [:])
        let providers: [String]
        if case .array(let list)? = json["enabledProviders"] {
            providers = list.compactMap(\.string)
        } else {
            providers = []
        }
        var clientIDs: [String: String] = [:]
        if case .object(let members)? = json["oauthClientIds"] {
            for (name, value) in members { if let id = value.string { clientIDs[name] = id } }
        }
        // A proxy that names no code shape gets Turnkey's default: six digits. The contract sends int64 values as
        // decimal strings (proto3 JSON); a plain number is read too.
        let format = try OTPCodeFormat(
            length: try Self.int64(json, "otpLength") ?? 6,
            alphanumeric: json["otpAlphanumeric"]?.bool ?? false)
        return WalletKitConfig(
            enabledProviders: providers, otpFormat: format,
            sessionExpirationSeconds: try Self.int64(json, "sessionExpirationSeconds"),
            oauthClientIDs: clientIDs, oauthRedirectURL: json["oauthRedirectUrl"]?.string,
            organizationID: json["organizationId"]?.string)
    }

    /// Sends a one-time code; answers its otpId.
    public func initOTP(contact: Contact) throws(SignInError) -> String {
        let json = try call("otp_init", ["contact": .string(contact.value), "otpType": .string(Self.otpType(contact))])
        return try Self.member(json, "otpId", of: "otp_init")
    }

    /// Checks a typed code through v1. With `keepsCodeStep` (the Turnkey SDK's rule, for proxies without
    /// `otp_verify_v2`) any refusal is `codeRefused`; without it a 401 is `invalidCode`. Either way the sign-in keeps
    /// waiting for another code. `publicKey`
    /// (the session key) is bound into the verificationToken, so only its holder can use the token afterwards.
    public func verifyOTP(
        otpID: String, code: String, publicKey: String?, keepsCodeStep: Bool = false
    ) throws(SignInError) -> String {
        var body: [String: JSONValue] = ["otpId": .string(otpID), "otpCode": .string(code)]
        if let publicKey { body["publicKey"] = .string(publicKey) }
        let json = try call("otp_verify", body, codeSent: true, codeStep: keepsCodeStep)
        return try Self.member(json, "verificationToken", of: "otp_verify")
    }

    /// The organization of the account a contact or identity belongs to; nil when there is none yet.
    public func account(
        filterType: String, filterValue: String,
        verificationToken: String? = nil
    ) throws(SignInError) -> String? {
        var body: [String: JSONValue] = ["filterType": .string(filterType), "filterValue": .string(filterValue)]
        if let verificationToken { body["verificationToken"] = .string(verificationToken) }
        // Some proxies answer a lookup that found nothing with 404 rather than `{}`: both mean "no account".
        guard let json = try lookup("account", body) else { return nil }
        return json["organizationId"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Creates an account for a verified contact; answers its organization. The contract requires `apiKeys`,
    /// `authenticators` and `oauthProviders` (empty when unused); the token is bound to `key` at `otp_verify`, so
    /// the signup carries the key's signature over its usage.
    public func signup(
        contact: Contact, verificationToken: String,
        key: P256PrivateKey
    ) throws(SignInError) -> String? {
        let email = Self.isEmail(contact)
        var usage: [String: JSONValue] = [
            "apiKeys": .array([]), "authenticators": .array([]),
            "oauthProviders": .array([]),
        ]
        usage[email ? "email" : "phoneNumber"] = .string(contact.value)
        let message = try Self.tokenUsage(
            verificationToken: verificationToken, type: "USAGE_TYPE_SIGNUP",
            usage: ("signup", .object(usage)))
        let json = try call(
            "signup",
            [
                email ? "userEmail" : "userPhoneNumber": .string(contact.value),
                "verificationToken": .string(verificationToken),
                "apiKeys": .array([]), "authenticators": .array([]), "oauthProviders": .array([]),
                "clientSignature": try Self.clientSignature(message: message, key: key),
            ])
        return json["organizationId"]?.string
    }

    /// Creates an account for a social identity through v1 `signup`; answers its organization.
    public func signup(oidcToken: String, providerName: String) throws(SignInError) -> String? {
        let json = try call(
            "signup",
            [
                "apiKeys": .array([]), "authenticators": .array([]),
                "oauthProviders": .array([
                    .object(["providerName": .string(providerName), "oidcToken": .string(oidcToken)])
                ]),
            ])
        return json["organizationId"]?.string
    }

    /// As the SDK's buildSecondaryOauthProviders: one `signup_v2` entry per secondary client id, the token's own iss
    /// and sub with that id as aud (v1OauthProviderParamsV2's oidcClaims).
    static func secondaryProviders(
        oidcToken: String, providerName: String, clientIDs: [String]
    ) -> [JSONValue] {
        let claims = TurnkeySignIn.unverifiedClaims(oidcToken)
        guard let issuer = claims["iss"]?.string, let subject = claims["sub"]?.string else { return [] }
        return clientIDs.map { clientID in
            .object([
                "providerName": .string(providerName),
                "oidcClaims": .object(["aud": .string(clientID), "iss": .string(issuer), "sub": .string(subject)]),
            ])
        }
    }

    /// The `providerName` a signup registers a social identity under, as the SDK names it (X is `twitter`).
    public static func signupProviderName(_ provider: String) -> String {
        provider == "x" ? "twitter" : provider
    }

    /// Logs in with a verificationToken, proving with the client signature that the caller holds the key the
    /// token was bound to at `otp_verify` (here the session key itself).
    public func otpLogin(
        verificationToken: String, key: P256PrivateKey,
        organizationID: String?
    ) throws(SignInError) -> LoginAnswer {
        let publicKey = key.publicKey.compressedHex
        let message = try Self.tokenUsage(
            verificationToken: verificationToken, type: "USAGE_TYPE_LOGIN",
            usage: ("login", .object(["publicKey": .string(publicKey)])))
        var body: [String: JSONValue] = [
            "verificationToken": .string(verificationToken), "publicKey": .string(publicKey),
            "clientSignature": try Self.clientSignature(message: message, key: key),
        ]
        if let organizationID { body["organizationId"] = .string(organizationID) }
        return try loginAnswer(try call("otp_login", body), of: "otp_login")
    }

    /// Discord and X have no ID token: the proxy redeems the code and answers an oidcToken carrying `nonce`.
    /// `provider` is authdeck's name (`x`, `discord`); the wire carries the contract's enum value.
    public func oauth2Authenticate(
        provider: String, authCode: String, redirectURI: String, codeVerifier: String,
        clientID: String, nonce: String
    ) throws(SignInError) -> String {
        guard let wireProvider = Self.oauth2Providers[provider] else {
            throw .authMethodUnavailable(method: "\(provider) through the auth proxy's oauth2_authenticate")
        }
        let json = try call(
            "oauth2_authenticate",
            [
                "provider": .string(wireProvider), "authCode": .string(authCode), "redirectUri": .string(redirectURI),
                "codeVerifier": .string(codeVerifier), "clientId": .string(clientID), "nonce": .string(nonce),
            ])
        return try Self.member(json, "oidcToken", of: "oauth2_authenticate")
    }

    public func oauthLogin(
        oidcToken: String, publicKey: String,
        organizationID: String?
    ) throws(SignInError) -> LoginAnswer {
        var body: [String: JSONValue] = ["oidcToken": .string(oidcToken), "publicKey": .string(publicKey)]
        if let organizationID { body["organizationId"] = .string(organizationID) }
        return try loginAnswer(try call("oauth_login", body), of: "oauth_login")
    }

    /// The TOTP extension's second step; a wrong code is `invalidCode`.
    public func verifyTOTP(userJwt: String, code: String) throws(SignInError) -> String {
        let json = try call("totp_verify", ["userJwt": .string(userJwt), "code": .string(code)], codeSent: true)
        return try Self.member(json, "session", of: "totp_verify")
    }

    // MARK: - Pieces

    /// The contract's `v1Oauth2Provider` values for authdeck's provider names.
    static let oauth2Providers = ["x": "OAUTH2_PROVIDER_X", "discord": "OAUTH2_PROVIDER_DISCORD"]

    /// The token-usage message a client signature covers, as the Turnkey SDKs build it (`v1TokenUsage`):
    /// `{"<usage>": {…}, "tokenId": <the verificationToken's id claim>, "type": "USAGE_TYPE_…"}`.
    public static func tokenUsage(
        verificationToken: String, type: String,
        usage: (String, JSONValue)
    ) throws(SignInError) -> String {
        guard let tokenID = TurnkeySignIn.unverifiedClaims(verificationToken)["id"]?.string, !tokenID.isEmpty else {
            throw .network(message: "the auth proxy's verificationToken carries no id")
        }
        return try encode(.object([usage.0: usage.1, "tokenId": .string(tokenID), "type": .string(type)]))
    }

    /// The contract's `v1ClientSignature`: ECDSA P-256 over SHA-256 of the message's UTF-8, raw r‖s as hex, by the
    /// key the verificationToken is bound to.
    public static func clientSignature(message text: String, key: P256PrivateKey) throws(SignInError) -> JSONValue {
        let publicKey = key.publicKey.compressedHex
        let signature: [UInt8]
        do {
            signature = try key.signature(for: Array(text.utf8))
        } catch {
            throw .unavailable(reason: "the session key cannot sign: \(error.description)")
        }
        return .object([
            "message": .string(text), "publicKey": .string(publicKey), "scheme": .string(clientSignatureScheme),
            "signature": .string(Hex.encode(signature)),
        ])
    }

    static func otpType(_ contact: Contact) -> String {
        isEmail(contact) ? "OTP_TYPE_EMAIL" : "OTP_TYPE_SMS"
    }

    static func isEmail(_ contact: Contact) -> Bool {
        if case .email = contact { return true }
        return false
    }

    /// An int64 member, which proto3 JSON writes as a decimal string; nil when absent.
    static func int64(_ json: JSONValue, _ name: String) throws(SignInError) -> Int? {
        guard let value = json[name], value != .null else { return nil }
        if let number = value.integer { return number }
        if let text = value.string, let number = Int(text) { return number }
        throw .network(message: "the auth proxy's wallet_kit_config has a \(name) that is not a number")
    }

    func loginAnswer(_ json: JSONValue, of call: String) throws(SignInError) -> LoginAnswer {
        if let challenge = json["totpRequired"], case .object = challenge {
            guard totpExtension else {
                throw .network(
                    message: "the auth proxy's \(call) asked for a TOTP step, which is not in the Auth "
                        + "Proxy contract; set \"totpExtension\": true on the backend in config.json to allow it")
            }
            guard let userJwt = challenge["userJwt"]?.string, !userJwt.isEmpty else {
                throw .network(message: "the auth proxy's \(call) asked for TOTP without a userJwt")
            }
            return .totpRequired(userJwt: userJwt, totpLink: challenge["totpLink"]?.string)
        }
        return .session(try Self.member(json, "session", of: call))
    }

    static func member(_ json: JSONValue, _ name: String, of call: String) throws(SignInError) -> String {
        guard let value = json[name]?.string, !value.isEmpty else {
            throw .network(message: "the auth proxy's \(call) answer has no \(name)")
        }
        return value
    }

    static func encode(_ value: JSONValue) throws(SignInError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw .unavailable(reason: "a request body cannot be encoded")
        }
    }

    /// One call. `codeSent`: the request carries a code the user typed, so 401 means that code was wrong.
    /// `codeStep`: it verifies a one-time code, so any refusal keeps the code step (`codeRefusal`).
    func call(
        _ path: String, _ body: [String: JSONValue], codeSent: Bool = false, codeStep: Bool = false
    ) throws(SignInError) -> JSONValue {
        let response = try send(path, body)
        if codeStep, !(200..<300).contains(response.status) { throw Self.codeRefusal(response) }
        return try Self.object(response, of: path, codeSent: codeSent)
    }

    /// A lookup: 404 is an answer ("nothing found"), not an error.
    func lookup(_ path: String, _ body: [String: JSONValue]) throws(SignInError) -> JSONValue? {
        let response = try send(path, body)
        if response.status == 404, (try? JSONValue.parse(response.body)) != nil { return nil }
        return try Self.object(response, of: path, codeSent: false)
    }

    /// The JSON object a 2xx answer to `path` holds; any other answer as the error it is.
    static func object(
        _ response: IncomingResponse, of path: String, codeSent: Bool
    ) throws(SignInError) -> JSONValue {
        guard (200..<300).contains(response.status) else {
            throw TurnkeyProxyError.error(from: response, call: path, codeSent: codeSent)
        }
        let json = try response.json()
        guard case .object = json else {
            throw .network(message: "the auth proxy's \(path) answer is not a JSON object")
        }
        return json
    }

    func send(_ path: String, _ body: [String: JSONValue]) throws(SignInError) -> IncomingResponse {
        let request = OutgoingRequest.json(
            baseURL + "/v1/" + path, Array(try Self.encode(.object(body)).utf8),
            headers: [("X-Auth-Proxy-Config-ID", configID)])
        return try transport.send(request)
    }
}
