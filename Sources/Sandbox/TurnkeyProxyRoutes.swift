import AuthCore
import AuthCrypto
import Foundation
import LoopbackHTTP
import Synchronization

/// The Turnkey-compatible Auth Proxy of SPEC 3.4 under `/turnkey/v1/<path>`: POST, a JSON object body, and the
/// `X-Auth-Proxy-Config-ID` header on every call, the sandbox's own id (an unknown one is UNAUTHENTICATED, as the
/// real proxy refuses it). Errors are `{"code", "message", "details"}` with gRPC codes. The v1 and v2 code routes
/// are both answered (TurnkeyProxyRoutes+V2).
///
/// Requests are checked against the contract first (`ProxyRequestSchema`: types, enums, required members, as
/// tkhq/sdk's `auth_proxy.swagger.json` has them); a refusal is INVALID_ARGUMENT in the proxy's error shape.
///
/// Choices the contract leaves open (the client side follows them):
/// - `account` takes `filterType` `EMAIL`, `PHONE_NUMBER` or `OIDC_TOKEN` (the token in `filterValue` or in
///   `oidcToken`) and answers `{"organizationId"}` or `{}` when there is no account.
/// - `signup` needs proof of what it registers: a verificationToken for the contact it names, or valid
///   oidcTokens in `oauthProviders: [{providerName, oidcToken}]`.
/// - `otp_verify`'s optional `publicKey` is bound into the verificationToken (`public_key` claim). Such a token
///   is then only usable with a `clientSignature` by that key over the token-usage message the Turnkey SDKs
///   build: `{"login":{"publicKey"},"tokenId","type":"USAGE_TYPE_LOGIN"}` for `otp_login`,
///   `{"signup":{"email"|"phoneNumber","apiKeys","authenticators","oauthProviders"},"tokenId",
///   "type":"USAGE_TYPE_SIGNUP"}` for `signup` (any key order or spacing; `tokenId` is the token's `id`). The
///   signature is ECDSA P-256 over SHA-256 of the message's UTF-8, raw r‖s as 128 hex characters.
/// - Five wrong codes end an otpId (the fifth answer is already 429); a verificationToken and an oidcToken each
///   log in once.
/// - The TOTP step (`totpRequired` in a login answer, then `/v1/totp_verify`) is a sandbox extension, not in
///   the contract; it runs only when `SandboxConfiguration.turnkeyTOTPExtension` is on.
/// - The hosted OAuth pages (`/oauth-origin`, `/oauth-redirect/<provider>`) stand in for Turnkey's
///   oauth-origin and oauth-redirect sites: Google or Apple at the sandbox's profiles, then an `id_token` with
///   the caller's nonce, sent on to `<scheme>://callback`.
final class TurnkeyProxyRoutes: Sendable {
    let context: SandboxContext
    let oidc: OIDCRoutes
    let state: Mutex<ProxyAccounts>

    /// How many codes a contact may be sent within ten minutes.
    static let sendLimit = 10
    static let clientSignatureScheme = "CLIENT_SIGNATURE_SCHEME_API_P256"

    init(context: SandboxContext, oidc: OIDCRoutes) {
        self.context = context
        self.oidc = oidc
        state = Mutex(
            ProxyAccounts(
                users: context.users,
                identity: { user, profile in
                    "\(context.issuer(profile)) \(user.subject(at: profile))"
                },
                maximumAttempts: context.configuration.otpMaximumAttempts))
        if let folder = context.configuration.dataFolder {
            state.withLock { $0.restore(folder.read(folder.accountsFile)) }
        }
    }

    /// `path` is what follows `/turnkey`.
    func handle(_ request: HTTPRequest, path: String) -> HTTPResponse {
        if path == "/oauth-origin" || path.hasPrefix("/oauth-redirect") {
            return hostedPage(request, path: path)
        }
        guard path.hasPrefix("/v1/"), let route = Route(rawValue: String(path.dropFirst(4))),
            route != .totpVerify || context.configuration.turnkeyTOTPExtension
        else {
            return ProxyError.notFound("no such proxy path \(path.prefix(200))").response
        }
        guard request.method == "POST" else {
            var answer = ProxyError(status: 405, code: 12, message: "use POST").response
            answer.headers.append(("Allow", "POST"))
            return answer
        }
        let configID = request.headers["x-auth-proxy-config-id"] ?? ""
        guard !configID.isEmpty else {
            return ProxyError.unauthenticated("the X-Auth-Proxy-Config-ID header is required").response
        }
        if !ConstantTime.equals(configID, context.configuration.writtenProxyConfigID) {
            return ProxyError.unauthenticated("unknown auth proxy config id").response
        }
        guard let body = request.jsonObject else {
            return ProxyError.invalidArgument("the body must be a JSON object sent as application/json").response
        }
        do throws(ProxyError) {
            try ProxyRequestSchema.check(body, route: route.rawValue)
            return .json(200, object: try route.run(self, body))
        } catch {
            return error.response
        }
    }

    enum Route: String {
        case walletKitConfig = "wallet_kit_config"
        case account
        case oauth2Authenticate = "oauth2_authenticate"
        case oauthLogin = "oauth_login"
        case otpInit = "otp_init"
        case otpVerify = "otp_verify"
        case otpLogin = "otp_login"
        case signup
        case totpVerify = "totp_verify"
        case otpInitV2 = "otp_init_v2"
        case otpVerifyV2 = "otp_verify_v2"
        case otpLoginV2 = "otp_login_v2"
        case signupV2 = "signup_v2"
        case walletKitClientParams = "wallet_kit_client_params"

        func run(_ routes: TurnkeyProxyRoutes, _ body: [String: Any]) throws(ProxyError) -> [String: Any] {
            switch self {
            case .walletKitConfig: return routes.walletKitConfig()
            case .account: return try routes.account(body)
            case .oauth2Authenticate: return try routes.oauth2Authenticate(body)
            case .oauthLogin: return try routes.oauthLogin(body)
            case .otpInit: return try routes.otpInit(body)
            case .otpVerify: return try routes.otpVerify(body)
            case .otpLogin: return try routes.otpLogin(body)
            case .signup: return try routes.signup(body)
            case .totpVerify: return try routes.totpVerify(body)
            case .otpInitV2: return try routes.otpInitV2(body)
            case .otpVerifyV2: return try routes.otpVerifyV2(body)
            case .otpLoginV2: return try routes.otpLoginV2(body)
            case .signupV2: return try routes.signup(body, usage: "signupV2")
            case .walletKitClientParams: return [:]
            }
        }
    }

    // MARK: - Configuration and accounts

    var issuer: String { context.baseURL + "/turnkey" }

    private func walletKitConfig() -> [String: Any] {
        let configuration = context.configuration
        var clientIDs: [String: String] = [:]
        for profile in [OIDCProfile.google, .apple, .discord, .x] {
            clientIDs[profile.rawValue] = configuration.clientID(for: profile)
        }
        // int64 members travel as decimal strings (proto3 JSON), as the contract's types say.
        return [
            "enabledProviders": ["email", "sms", "google", "apple", "discord", "x"],
            "otpLength": String(configuration.otpLength),
            "otpAlphanumeric": configuration.otpAlphanumeric,
            "sessionExpirationSeconds": String(configuration.sessionLifetime),
            "oauthClientIds": clientIDs,
            "oauthRedirectUrl": Self.hostedRedirectURL(base: context.baseURL),
            "organizationId": ProxyAccounts.stableID("parent organization"),
        ]
    }

    private func account(_ body: [String: Any]) throws(ProxyError) -> [String: Any] {
        let filterType = try Self.required(body, "filterType")
        let found: ProxyAccounts.Account?
        switch filterType {
        case "EMAIL", "PHONE_NUMBER":
            let contact = try Self.contact(
                try Self.required(body, "filterValue"),
                otpType: filterType == "EMAIL" ? "OTP_TYPE_EMAIL" : "OTP_TYPE_SMS")
            if let token = JSONText.string(body, "verificationToken") {
                let verified = try verifiedVerificationToken(token)
                guard verified.contact == contact else {
                    throw .permissionDenied("the verificationToken is for another contact")
                }
            }
            found = state.withLock { filterType == "EMAIL" ? $0.account(email: contact) : $0.account(phone: contact) }
        case "OIDC_TOKEN":
            var token = JSONText.string(body, "oidcToken") ?? ""
            if token.isEmpty { token = try Self.required(body, "filterValue") }
            let identity = try verifiedOIDCToken(token)
            found = state.withLock { $0.account(identity: identity.key) }
        default:
            throw .invalidArgument("filterType must be EMAIL, PHONE_NUMBER or OIDC_TOKEN")
        }
        guard let found else { return [:] }
        return ["organizationId": found.organizationID]
    }

    /// `usage`: the token-usage member the clientSignature's message carries (`signupV2` for signup_v2).
    func signup(_ body: [String: Any], usage: String = "signup") throws(ProxyError) -> [String: Any] {
        var email = try Self.optionalString(body, "userEmail").map { (text) throws(ProxyError) in
            try Self.contact(text, otpType: "OTP_TYPE_EMAIL")
        }
        let phone = try Self.optionalString(body, "userPhoneNumber").map { (text) throws(ProxyError) in
            try Self.contact(text, otpType: "OTP_TYPE_SMS")
        }
        var identities: [VerifiedIdentity] = []
        var claimed: [(issuer: String, subject: String, audience: String)] = []
        if let providers = body["oauthProviders"] {
            guard let list = providers as? [Any], list.count <= 8 else {
                throw .invalidArgument("oauthProviders must be an array of {providerName, oidcToken}")
            }
            for entry in list {
                // signup_v2's v1OauthProviderParamsV2: an oidcToken, or oidcClaims {iss, sub, aud} naming one more
                // client id (audience) for an identity a token in the same request proves.
                if usage == "signupV2", let object = entry as? [String: Any], object["oidcToken"] == nil,
                    let claims = object["oidcClaims"] as? [String: Any]
                {
                    guard let issuer = JSONText.string(claims, "iss"), let subject = JSONText.string(claims, "sub"),
                        let audience = JSONText.string(claims, "aud"), !audience.isEmpty, audience.utf8.count <= 256
                    else {
                        throw .invalidArgument("oidcClaims needs iss, sub and aud")
                    }
                    claimed.append((issuer, subject, audience))
                    continue
                }
                guard let object = entry as? [String: Any], let token = JSONText.string(object, "oidcToken") else {
                    throw .invalidArgument("each oauthProviders entry needs an oidcToken")
                }
                identities.append(try verifiedOIDCToken(token))
            }
        }
        var audiences: [String: Set<String>] = [:]
        for identity in identities { audiences[identity.key, default: []].formUnion(identity.audiences) }
        for claim in claimed {
            let key = "\(claim.issuer) \(claim.subject)"
            guard audiences[key] != nil else {
                throw .permissionDenied("oidcClaims name an identity no oidcToken in this signup proves")
            }
            audiences[key]?.insert(claim.audience)
        }
        guard email != nil || phone != nil || !identities.isEmpty else {
            throw .invalidArgument("signup needs userEmail, userPhoneNumber or oauthProviders")
        }
        if email != nil || phone != nil {
            guard let token = JSONText.string(body, "verificationToken") else {
                throw .unauthenticated("a verificationToken proving the contact is required")
            }
            let verified = try verifiedVerificationToken(token)
            guard verified.contact == email || verified.contact == phone else {
                throw .permissionDenied("the verificationToken is for another contact")
            }
            if let boundKey = verified.publicKey {
                let signed = try checkedClientSignature(
                    body, boundKey: boundKey, tokenID: verified.id,
                    type: "USAGE_TYPE_SIGNUP", usage: usage)
                let raw = [JSONText.string(body, "userEmail"), JSONText.string(body, "userPhoneNumber")]
                guard JSONText.string(signed, "email") == raw[0], JSONText.string(signed, "phoneNumber") == raw[1]
                else {
                    throw .unauthenticated("clientSignature.message's signup does not match this request")
                }
            }
        }
        if email == nil { email = identities.lazy.compactMap(\.email).first }
        let userName = context.users.first { user in
            (email != nil && user.email == email) || (phone != nil && user.phone == phone)
                || identities.contains { $0.profile.map(user.subject(at:)) == $0.subject }
        }?.name
        guard let userID = try? context.randomID(), let organizationID = try? context.randomID() else {
            throw .internal("the sandbox could not draw random bytes")
        }
        let created = ProxyAccounts.Account(
            userID: userID, organizationID: organizationID, email: email, phone: phone,
            identities: Set(identities.map(\.key)), userName: userName, audiences: audiences)
        try state.withLock { (accounts) throws(ProxyError) in
            var taken =
                email.flatMap { accounts.account(email: $0) } != nil
                || phone.flatMap { accounts.account(phone: $0) } != nil
            for identity in identities where accounts.account(identity: identity.key) != nil { taken = true }
            guard !taken else { throw .alreadyExists("an account with this contact or identity exists") }
            accounts.add(created)
            if let folder = context.configuration.dataFolder {
                folder.save(accounts.savedAccounts, to: folder.accountsFile)
            }
        }
        return ["organizationId": organizationID, "userId": userID]
    }

    // MARK: - Body fields

    static func required(_ body: [String: Any], _ key: String) throws(ProxyError) -> String {
        guard let value = body[key] else { throw .invalidArgument("\(key) is required") }
        guard let text = value as? String, !text.isEmpty, text.utf8.count <= 8192 else {
            throw .invalidArgument("\(key) must be a non-empty string")
        }
        return text
    }

    static func optionalString(_ body: [String: Any], _ key: String) throws(ProxyError) -> String? {
        guard let value = body[key], !(value is NSNull) else { return nil }
        return try required(body, key)
    }

    /// The contact normalised as clients normalise it, or INVALID_ARGUMENT.
    static func contact(_ text: String, otpType: String) throws(ProxyError) -> String {
        switch otpType {
        case "OTP_TYPE_EMAIL":
            guard let contact = try? Contact.validatedEmail(text) else {
                throw .invalidArgument("not a valid email address")
            }
            // Accounts match addresses case-insensitively, as every real provider does.
            return contact.value.lowercased()
        case "OTP_TYPE_SMS":
            guard let contact = try? Contact.validatedPhone(text) else {
                throw .invalidArgument("not a valid E.164 phone number")
            }
            return contact.value
        default:
            throw .invalidArgument("otpType must be OTP_TYPE_EMAIL or OTP_TYPE_SMS")
        }
    }
}
