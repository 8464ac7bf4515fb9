import Foundation

/// The request members of the Auth Proxy contract (tkhq/sdk `auth_proxy.swagger.json`) that the sandbox checks
/// before any route runs, so it refuses what the real proxy refuses: a member of the wrong type, an enum value
/// outside its list, a required member left out. The answer is the proxy's own shape, gRPC INVALID_ARGUMENT.
/// Members the contract does not name are ignored, as grpc-gateway ignores unknown fields.
enum ProxyRequestSchema {
    indirect enum Kind: Sendable {
        case string
        case boolean
        case enumeration([String])
        case object([String: Field])
        case array(Kind)
    }

    struct Field: Sendable {
        let kind: Kind
        let required: Bool

        static func string(_ required: Bool = false) -> Field { Field(kind: .string, required: required) }
        static func boolean() -> Field { Field(kind: .boolean, required: false) }
    }

    static let clientSignature = Kind.object([
        "publicKey": .string(true),
        "scheme": Field(
            kind: .enumeration(["CLIENT_SIGNATURE_SCHEME_API_P256"]),
            required: true),
        "message": .string(true), "signature": .string(true),
    ])

    static let apiKey = Kind.object([
        "apiKeyName": .string(true), "publicKey": .string(true), "expirationSeconds": .string(),
        "curveType": Field(
            kind: .enumeration([
                "API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1",
                "API_KEY_CURVE_ED25519",
            ]), required: true),
    ])

    static let authenticator = Kind.object([
        "authenticatorName": .string(true), "challenge": .string(true),
        "attestation": Field(
            kind: .object([
                "credentialId": .string(true), "clientDataJson": .string(true), "attestationObject": .string(true),
                "transports": Field(
                    kind: .array(
                        .enumeration([
                            "AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL",
                            "AUTHENTICATOR_TRANSPORT_NFC",
                            "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID",
                        ])), required: true),
            ]), required: true),
    ])

    static let oauthProvider = Kind.object(["providerName": .string(true), "oidcToken": .string(true)])
    /// signup's and signup_v2's request, which differ in their `oauthProviders` entries.
    static func signup(oauthProviders: Kind) -> [String: Field] {
        [
            "userEmail": .string(), "userPhoneNumber": .string(), "userTag": .string(), "userName": .string(),
            "organizationName": .string(), "verificationToken": .string(),
            "apiKeys": Field(kind: .array(apiKey), required: true),
            "authenticators": Field(kind: .array(authenticator), required: true),
            "oauthProviders": Field(kind: .array(oauthProviders), required: true),
            "clientSignature": Field(kind: clientSignature, required: false),
            // `wallet` is passed through unchecked: the sandbox creates no wallets.
        ]
    }

    /// signup_v2's `v1OauthProviderParamsV2`: one of `oidcToken` or `oidcClaims` (`v1OidcClaims`).
    static let oauthProviderV2 = Kind.object([
        "providerName": .string(true), "oidcToken": .string(),
        "oidcClaims": Field(
            kind: .object(["aud": .string(true), "iss": .string(true), "sub": .string(true)]), required: false),
    ])

    /// Each route's request, by the path after `/v1/`.
    static let routes: [String: [String: Field]] = [
        "wallet_kit_config": [:],
        "account": [
            "filterType": .string(true), "filterValue": .string(true), "verificationToken": .string(),
            "oidcToken": .string(),
        ],
        "oauth2_authenticate": [
            "provider": Field(kind: .enumeration(["OAUTH2_PROVIDER_X", "OAUTH2_PROVIDER_DISCORD"]), required: true),
            "authCode": .string(true), "redirectUri": .string(true), "codeVerifier": .string(true),
            "nonce": .string(true), "clientId": .string(true),
        ],
        "oauth_login": [
            "oidcToken": .string(true), "publicKey": .string(true), "invalidateExisting": .boolean(),
            "organizationId": .string(),
        ],
        "otp_init": ["otpType": .string(true), "contact": .string(true)],
        "otp_verify": ["otpId": .string(true), "otpCode": .string(true), "publicKey": .string()],
        "otp_login": [
            "verificationToken": .string(true), "publicKey": .string(true),
            "invalidateExisting": .boolean(), "organizationId": .string(),
            "clientSignature": Field(kind: clientSignature, required: false),
        ],
        "signup": signup(oauthProviders: oauthProvider),
        "otp_init_v2": ["otpType": .string(true), "contact": .string(true)],
        "otp_verify_v2": ["otpId": .string(true), "encryptedOtpBundle": .string(true)],
        "otp_login_v2": [
            "verificationToken": .string(true), "publicKey": .string(true),
            "invalidateExisting": .boolean(), "organizationId": .string(),
            "clientSignature": Field(kind: clientSignature, required: true),
        ],
        "signup_v2": signup(oauthProviders: oauthProviderV2),
        "wallet_kit_client_params": [:],
    ]

    /// Checks `body` against the route's request; nil route (an extension route) checks nothing.
    static func check(_ body: [String: Any], route: String) throws(ProxyError) {
        guard let fields = routes[route] else { return }
        try check(body, fields: fields, path: "")
    }

    private static func check(_ object: [String: Any], fields: [String: Field], path: String) throws(ProxyError) {
        for name in fields.keys.sorted() {
            guard let field = fields[name] else { continue }
            let value = object[name]
            if value == nil || value is NSNull {
                if field.required { throw .invalidArgument("missing required field \(path)\(name)") }
                continue
            }
            if let value { try check(value, kind: field.kind, path: path + name) }
        }
    }

    private static func check(_ value: Any, kind: Kind, path: String) throws(ProxyError) {
        switch kind {
        case .string:
            guard value is String else { throw .invalidArgument("\(path): expected a string") }
        case .boolean:
            guard value is Bool, !(value is String) else { throw .invalidArgument("\(path): expected a boolean") }
        case .enumeration(let allowed):
            guard let text = value as? String, allowed.contains(text) else {
                throw .invalidArgument(
                    "\(path): invalid value for enum, expected one of "
                        + allowed.joined(separator: ", "))
            }
        case .object(let fields):
            guard let object = value as? [String: Any] else { throw .invalidArgument("\(path): expected an object") }
            try check(object, fields: fields, path: path + ".")
        case .array(let items):
            guard let list = value as? [Any] else { throw .invalidArgument("\(path): expected an array") }
            guard list.count <= 16 else { throw .invalidArgument("\(path): too many entries") }
            for (index, item) in list.enumerated() { try check(item, kind: items, path: "\(path)[\(index)]") }
        }
    }
}
