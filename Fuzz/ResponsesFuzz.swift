// What providers and proxies answer: token and error responses, discovery documents, user endpoints, and every
// call of the Turnkey-style Auth Proxy and the Portal backend, each through its real client with a transport that
// answers the fuzzer's bytes.
//
// Input: byte 0 picks the HTTP status, byte 1 the Content-Type; the rest is the body.
import AuthClient
import AuthCore
import AuthCrypto
import Foundation

private let statuses = [200, 201, 204, 400, 401, 403, 404, 429, 500, 502, 503, 302]
private let contentTypes = ["application/json", "application/json; charset=utf-8", "text/html", "text/plain", ""]

/// Answers every request with the same response, as a server that says one thing to everything would.
private struct CannedTransport: HTTPTransport {
    let response: IncomingResponse

    func send(_ request: OutgoingRequest) throws(SignInError) -> IncomingResponse { response }
}

private let sessionKey: P256PrivateKey = {
    // A fixed scalar: the proxy's answers must not depend on which session key was drawn.
    guard let key = try? P256PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32)) else {
        fatalError("a fixed P-256 scalar must import")
    }
    return key
}()

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { responseSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let status = statuses[Int(bytes[0]) % statuses.count]
    let type = contentTypes[Int(bytes[1]) % contentTypes.count]
    let response = IncomingResponse(
        status: status, headers: type.isEmpty ? [:] : ["content-type": type],
        body: Array(bytes[2...]), duration: 0.01)
    let transport = CannedTransport(response: response)

    checkJSON(response.body)
    checkOAuth(response, transport: transport)
    checkTurnkey(
        TurnkeyProxyClient(
            baseURL: "https://proxy.example/", configID: "cfg", transport: transport,
            totpExtension: true))
    checkPortal(PortalClient(baseURL: "https://portal.example", environmentID: "env", transport: transport))
}

/// Whatever a call throws is a one-line message a terminal can show: no provider text smuggles in control
/// characters (a `\u{1b}[2J` in an error_description must not clear the user's screen).
private func expectOneLine<T>(_ call: () throws(SignInError) -> T) -> T? {
    do {
        return try call()
    } catch {
        invariant(isOneLine(error.message), "an error message is not one line: \(error.message.debugDescription)")
        return nil
    }
}

/// JSON that parses re-encodes to JSON that parses to the same value.
private func checkJSON(_ body: [UInt8]) {
    guard let value = try? JSONValue.parse(body) else { return }
    guard let encoded = try? JSONEncoder().encode(value) else { return }
    let again = try? JSONValue.parse(Array(encoded))
    invariant(again == value, "JSON changed across encode and parse: \(String(decoding: encoded, as: UTF8.self))")
}

private func checkOAuth(_ response: IncomingResponse, transport: CannedTransport) {
    let endpoint = "https://oauth.example/token?client_secret=hidden"
    if let tokens = expectOneLine({ () throws(SignInError) in
        try TokenResponse.parse(response, endpoint: endpoint)
    }) {
        invariant((200..<300).contains(response.status), "a token response with status \(response.status) passed")
        invariant(!tokens.accessToken.isEmpty, "a token response without an access token passed")
    }
    let error = OAuthErrorResponse.error(from: response, endpoint: endpoint)
    invariant(isOneLine(error.message), "an OAuth error message is not one line: \(error.message.debugDescription)")
    invariant(!error.message.contains("hidden"), "an OAuth error message shows the endpoint's query")
    if response.status == 429 { invariant(error == .rateLimited, "HTTP 429 is not rateLimited") }

    if let document = try? JSONValue.parse(response.body) {
        let issuer = "https://issuer.example"
        if let endpoints = expectOneLine({ () throws(SignInError) in
            try ProviderEndpoints.fromDiscovery(document, expectedIssuer: issuer)
        }) {
            invariant(endpoints.issuer == issuer, "discovery accepted issuer \(endpoints.issuer)")
        }
    }
    if let identity = expectOneLine({ () throws(SignInError) in
        try UserEndpoint.identity(
            provider: "x", accessToken: "at", endpoint: "https://api.example/me",
            transport: transport)
    }) {
        invariant(!identity.subject.isEmpty, "a user endpoint answer without a user id passed")
    }

    let client = OAuthClient(transport: transport, clientID: "client-1", authentication: .secret("s3cret"))
    if let device = expectOneLine({ () throws(SignInError) in
        try client.startDeviceAuthorization(scopes: ["openid"], endpoint: "https://oauth.example/device")
    }) {
        invariant(device.interval >= 1, "a device grant polls every \(device.interval) s")
        _ = expectOneLine { () throws(SignInError) in try client.pollDevice(device, endpoint: endpoint) }
    }
    _ = expectOneLine { () throws(SignInError) in try client.refresh("rt", endpoint: endpoint) }
}

private func checkTurnkey(_ proxy: TurnkeyProxyClient) {
    if let config = expectOneLine({ () throws(SignInError) in try proxy.walletKitConfig() }) {
        invariant((6...9).contains(config.otpFormat.length), "accepted a \(config.otpFormat.length)-character code")
    }
    let contact = Contact.email("user@example.com")
    let answers: [String?] = [
        expectOneLine { () throws(SignInError) in try proxy.initOTP(contact: contact) },
        expectOneLine { () throws(SignInError) in
            try proxy.verifyOTP(otpID: "otp-1", code: "123456", publicKey: sessionKey.publicKey.compressedHex)
        },
        expectOneLine { () throws(SignInError) in
            try proxy.oauth2Authenticate(
                provider: "x", authCode: "c", redirectURI: "http://127.0.0.1/cb",
                codeVerifier: "v", clientID: "id", nonce: "n")
        },
        expectOneLine { () throws(SignInError) in try proxy.verifyTOTP(userJwt: "jwt", code: "123456") },
    ]
    for answer in answers {
        if let answer { invariant(!answer.isEmpty, "a proxy call answered an empty value") }
    }
    _ = expectOneLine { () throws(SignInError) in try proxy.account(filterType: "EMAIL", filterValue: "a@b.co") }
    _ = expectOneLine { () throws(SignInError) in
        try proxy.signup(contact: contact, verificationToken: "vt", key: sessionKey)
    }
    _ = expectOneLine { () throws(SignInError) in try proxy.signup(oidcToken: "t", providerName: "google") }
    let logins = [
        expectOneLine { () throws(SignInError) in
            try proxy.otpLogin(verificationToken: "vt", key: sessionKey, organizationID: "org")
        },
        expectOneLine { () throws(SignInError) in
            try proxy.oauthLogin(oidcToken: "t", publicKey: sessionKey.publicKey.compressedHex, organizationID: nil)
        },
    ]
    for login in logins {
        switch login {
        case .session(let jwt)?: invariant(!jwt.isEmpty, "an empty session passed")
        case .totpRequired(let userJwt, _)?: invariant(!userJwt.isEmpty, "a TOTP challenge without userJwt passed")
        case nil: break
        }
    }
}

private func checkPortal(_ portal: PortalClient) {
    if let methods = expectOneLine({ () throws(SignInError) in try portal.methods() }) {
        _ = methods.count
    }
    _ = expectOneLine { () throws(SignInError) in
        try portal.oauthURLs(redirectURL: "http://127.0.0.1/cb")
    }
    if let tokens = expectOneLine({ () throws(SignInError) in try portal.exchange(token: "t") }) {
        invariant(!tokens.endUserID.isEmpty, "Portal tokens without endUserId passed")
        invariant(tokens.clientSessionToken != nil || tokens.userJwt != nil, "Portal tokens without any token passed")
    }
    if let tokens = expectOneLine({ () throws(SignInError) in
        try portal.validateTOTP(userJwt: "u", code: "123456")
    }) {
        invariant(tokens.clientSessionToken != nil, "a TOTP validation without a session passed")
    }
}

private func responseSeeds() -> [(name: String, bytes: [UInt8])] {
    // Byte 0 indexes `statuses` (0 = 200, 3 = 400, 4 = 401, 6 = 404, 7 = 429, 8 = 500), byte 1 `contentTypes`.
    let bodies: [(String, UInt8, UInt8, String)] = [
        (
            "token", 0, 0,
            #"{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","#
                + #""id_token":"eyJhbGciOiJFUzI1NiJ9.e30.sig","scope":"openid email"}"#
        ),
        ("token-string-expiry", 0, 1, #"{"access_token":"at","expires_in":"3599"}"#),
        ("oauth-error", 3, 0, #"{"error":"invalid_grant","error_description":"Code expired\u001b[2J"}"#),
        ("oauth-slow-down", 7, 0, #"{"error":"slow_down"}"#),
        (
            "device", 0, 0,
            #"{"device_code":"dc","user_code":"WDJB-MJHT","verification_uri":"https://x.example/d","#
                + #""expires_in":1800,"interval":0}"#
        ),
        (
            "discovery", 0, 0,
            #"{"issuer":"https://issuer.example","authorization_endpoint":"https://issuer.example/a","#
                + #""token_endpoint":"https://issuer.example/t","jwks_uri":"https://issuer.example/j","#
                + #""userinfo_endpoint":"https://issuer.example/u","#
                + #""device_authorization_endpoint":"https://issuer.example/d"}"#
        ),
        ("user-x", 0, 0, #"{"data":{"id":"2244994945","name":"X Dev","username":"XDevelopers"}}"#),
        ("user-discord", 0, 0, #"{"id":"80351110224678912","username":"Nelly","global_name":"N","email":"n@d.co"}"#),
        (
            "wallet-kit-config", 0, 0,
            #"{"enabledProviders":["email","sms","google"],"otpLength":"8","#
                + #""otpAlphanumeric":true,"sessionExpirationSeconds":900,"oauthClientIds":{"google":"g-id"},"#
                + #""oauthRedirectUrl":"https://r.example","organizationId":"org-1"}"#
        ),
        ("otp-init", 0, 0, #"{"otpId":"otp-1","otpCode":"ignored","verificationToken":"vt","oidcToken":"t"}"#),
        ("session", 0, 0, #"{"session":"eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjF9.c2ln","organizationId":"org"}"#),
        ("totp-required", 0, 0, #"{"totpRequired":{"userJwt":"u.j.w","totpLink":"otpauth://totp/x?secret=AB"}}"#),
        (
            "proxy-error", 4, 0,
            #"{"code":16,"#
                + #""message":"invalid code eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl","#
                + #""details":[]}"#
        ),
        ("proxy-404", 6, 0, #"{"code":5,"message":"no account"}"#),
        (
            "portal-tokens", 0, 0,
            #"{"data":{"endUserId":"eu-1","clientId":"c","clientSessionToken":"cst","#
                + #""userJwt":"uj","totpLink":"otpauth://totp/p"}}"#
        ),
        ("portal-methods", 0, 0, #"{"data":{"allowedAuthMethods":["GOOGLE","APPLE",7],"autoCreateWallet":true}}"#),
        ("portal-error", 3, 0, #"{"error":"redirect URL not allowed"}"#),
        ("html-gateway", 9, 2, "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"),
        ("empty", 8, 4, ""),
        ("deep-nesting", 0, 0, String(repeating: "[", count: 200) + String(repeating: "]", count: 200)),
        ("numbers", 0, 0, #"{"access_token":"a","expires_in":1e308,"x":-0.0,"y":123456789012345678901234567890}"#),
    ]
    return bodies.map { name, status, type, body in (name, [status, type] + Array(body.utf8)) }
}
